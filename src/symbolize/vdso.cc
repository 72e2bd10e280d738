#include "symbolize/vdso.h"

namespace perflens {

// Stub: replaced by the real implementation.
Result<LocalVdso> GetLocalVdso(DsoKind) { return Err("local vdso not implemented"); }
void RemoveVdsoTempFiles() {}

}  // namespace perflens
