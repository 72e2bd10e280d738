// Placeholder so the library has a source until the report engine lands.
namespace perflens {}
