// JitdumpWriter: builds jit-<pid>.dump files in memory for tests, in the layout of
// src/symbolize/jitdump.h (spec B9.1, tools/perf/Documentation/jitdump-specification.txt),
// in either byte order. Usage:
//   JitdumpWriter w(4242);                        // 40-byte header, version 1, pid 4242
//   w.CodeLoad(0x7f0000001000, 0x40, 1, "add");   // name + 0x40 code bytes (0xcc)
//   w.CodeMove(0x7f0000001000, 0x7f0000009000, 0x40, 1);
//   std::vector<uint8_t> bytes = w.bytes();
// Raw* and Record* write damaged records for hostile-input tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "testutil/perf_data_writer.h"

namespace perflens::testutil {

class JitdumpWriter {
 public:
  explicit JitdumpWriter(uint32_t pid, Endian endian = Endian::kLittle, uint32_t extra_header = 0) : w_(endian) {
    w_.U32(0x4A695444);  // "JiTD"
    w_.U32(1);           // version
    w_.U32(40 + extra_header);
    w_.U32(62);  // EM_X86_64
    w_.U32(0);
    w_.U32(pid);
    w_.U64(1000);  // timestamp
    w_.U64(0);     // flags
    w_.Zeros(extra_header);
  }

  // CODE_LOAD with a NUL-terminated `name` and code_size bytes of code.
  void CodeLoad(uint64_t code_addr, uint64_t code_size, uint64_t code_index, std::string_view name) {
    RawCodeLoad(code_addr, code_size, code_index, std::string(name) + '\0', code_size);
  }
  // CODE_LOAD whose name bytes (NUL included or not) and code byte count are as given.
  void RawCodeLoad(uint64_t code_addr, uint64_t code_size, uint64_t code_index, const std::string& name_bytes,
                   uint64_t code_bytes) {
    ByteWriter b(endian());
    b.U32(1);  // pid
    b.U32(1);  // tid
    b.U64(code_addr);  // vma
    b.U64(code_addr);
    b.U64(code_size);
    b.U64(code_index);
    b.Bytes({reinterpret_cast<const uint8_t*>(name_bytes.data()), name_bytes.size()});
    b.Fill(code_bytes, 0xcc);
    Record(0, b.bytes());
  }
  void CodeMove(uint64_t old_addr, uint64_t new_addr, uint64_t code_size, uint64_t code_index) {
    ByteWriter b(endian());
    b.U32(1);
    b.U32(1);
    b.U64(new_addr);  // vma
    b.U64(old_addr);
    b.U64(new_addr);
    b.U64(code_size);
    b.U64(code_index);
    Record(1, b.bytes());
  }
  // DEBUG_INFO with no entries, CODE_CLOSE.
  void DebugInfo() {
    ByteWriter b(endian());
    b.U64(0);
    b.U64(0);
    Record(2, b.bytes());
  }
  void Close() { Record(3, {}); }
  // A record with header id, total_size = 16 + body.size(), timestamp, then `body`.
  void Record(uint32_t id, const std::vector<uint8_t>& body) {
    RecordHeader(id, static_cast<uint32_t>(16 + body.size()));
    w_.Bytes(body);
  }
  // Only a record header, with any total_size.
  void RecordHeader(uint32_t id, uint32_t total_size) {
    w_.U32(id);
    w_.U32(total_size);
    w_.U64(++time_);
  }
  void PatchU32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) w_.bytes()[at + (w_.big() ? 3 - i : i)] = static_cast<uint8_t>(v >> (8 * i));
  }

  const std::vector<uint8_t>& bytes() const { return w_.bytes(); }
  void WriteTo(const std::string& path) const {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes().data()),
                                                static_cast<std::streamsize>(bytes().size()));
  }

 private:
  Endian endian() const { return w_.big() ? Endian::kBig : Endian::kLittle; }
  ByteWriter w_;
  uint64_t time_ = 1000;
};

}  // namespace perflens::testutil
