// Placeholder until symbolizer.cc lands.
namespace perflens {}
