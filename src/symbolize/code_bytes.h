// ReadCodeBytes: the machine code of one symbol, read from the ELF image a
// DsoModule resolved it in (DsoModule::runtime_path: the binary whose build-id
// matched, from the build-id cache, the --symfs or its path; never another
// file), for `perflens annotate`.
//
// Addresses: `file_offset` is a byte offset in that image (the kUser/kVdso
// space of DsoModule, where Symbol::start/end live); the section is the one
// whose file bytes hold it. Example: bench/workload's Func0467, symbol
// [0x14b00, 0x14b7c) of a PIE whose text PT_LOAD has p_offset == p_vaddr: the
// 0x7c bytes at file offset 0x14b00, in ".text".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "symbolize/dso_module.h"

namespace perflens {

struct CodeBytes {
  std::vector<uint8_t> bytes;
  std::string section;  // ".text", ".plt", ... ("" when no section header holds them)
  std::string path;     // the file read
};

// Errors: the module has no ELF image (kernel, JIT maps, perf maps), the image
// cannot be read, the range is not all in the file, or it lies in a section
// without file bytes (SHT_NOBITS: a debug file standing in for a binary that
// was not found).
Result<CodeBytes> ReadCodeBytes(const DsoModule& module, uint64_t file_offset, uint64_t size);

}  // namespace perflens
