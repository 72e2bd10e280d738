// Disassembler: machine code of one function → instructions, through capstone
// (Debian libcapstone-dev), for `perflens annotate`. x86_64 in AT&T syntax and
// aarch64, the arch named by the recording's HEADER_ARCH (never the machine
// perflens runs on).
//
// The text is shaped like GNU objdump's `-d --no-show-raw-insn` (what perf 6.1's
// annotate prints) as far as is practical: for x86_64 the operand-size suffix is
// dropped where a register operand implies it (`push %rbp`, `mov %rsp,%rbp`; kept
// in `nopl 0x0(%rax,%rax,1)`, `movb $0x2d,-0x40(%rbp)`), operands are separated by
// ',', immediates and displacements are hex, an encoded zero displacement is
// printed (`0x0(%r13)`), and a direct branch's operand is the target's address in
// hex (`jne 14b20`; the caller adds objdump's `<sym+0xoff>`). Known differences
// from objdump: prefixes (`nopw %cs:0x0(...)` for objdump's `cs nopw 0x0(...)`),
// suffixes capstone keeps on SSE conversions (`cvtsi2sdl`), and other rare
// spellings.
//
// Addresses: every address here is a dso_vaddr (the link-time address objdump
// prints); the caller converts the symbol's file_offset range with
// DsoModule::ToDsoVaddr. Example: the 0x7c bytes at dso_vaddr 0x14b00 of
// bench/workload's Func0467 give {0x14b00, 10, "movabs",
// "$0x9e36aab97f49659c,%rcx"}, {0x14b0a, 1, "push", "%rbp"}, …, {0x14b31, 2,
// "jne", "14b20", target 0x14b20, branch}, …, {0x14b7b, 1, "ret", ""}.
//
// Threads: one Disassembler per thread (capstone handles are not shared).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace perflens {

enum class CodeArch : uint8_t { kX86_64, kAarch64 };

// perf's HEADER_ARCH names (uname -m): "x86_64"/"amd64", "aarch64"/"arm64";
// nullopt for the others.
std::optional<CodeArch> CodeArchFromName(std::string_view arch);

struct Instruction {
  uint64_t dso_vaddr = 0;  // its first byte
  uint32_t size = 0;       // bytes; undecodable bytes are one "(bad)" each
  std::string mnemonic;    // "push", "jne", "(bad)"
  std::string operands;    // "%rbp", "$0x6d,%eax", "14b20"; "" when none
  // A direct jump or call's destination (`branch`), or the address a
  // PC-relative operand refers to (x86_64 `0xbf81(%rip)`, aarch64
  // `adrp`/`adr`): objdump prints
  // `<sym+0xoff>` after the former and `# addr <sym>` after the latter.
  std::optional<uint64_t> target;
  bool branch = false;
};

class Disassembler {
 public:
  // Errors: capstone was built without the arch, or cannot be opened; libcapstone.so.4
  // is not installed (opened on the first Create, not linked: base/shared_library.h).
  static Result<Disassembler> Create(CodeArch arch);
  ~Disassembler();
  Disassembler(Disassembler&& other) noexcept : handle_(other.handle_), arch_(other.arch_) { other.handle_ = 0; }
  Disassembler& operator=(Disassembler&& other) noexcept;
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;

  CodeArch arch() const { return arch_; }

  // Every instruction of `code`, whose first byte is at `dso_vaddr`, in address
  // order. Bytes capstone cannot decode are "(bad)" instructions of one byte
  // (aarch64: four), and decoding goes on after them, so the instructions cover
  // `code` exactly.
  std::vector<Instruction> Disassemble(std::span<const uint8_t> code, uint64_t dso_vaddr) const;

 private:
  Disassembler(size_t handle, CodeArch arch) : handle_(handle), arch_(arch) {}
  size_t handle_ = 0;  // capstone's csh
  CodeArch arch_ = CodeArch::kX86_64;
};

// objdump's AT&T spelling of capstone's x86 operand text (exposed for tests):
// "$8, %rsp" → "$0x8,%rsp", "-8(%rbp)" → "-0x8(%rbp)", "(%rax, %rcx)" →
// "(%rax,%rcx,1)".
std::string ObjdumpX86Operands(std::string_view capstone_operands);
// objdump's x86 mnemonic for capstone's: the size suffix dropped when a
// register operand implies the size, and always for push/pop/call/ret/jmp
// ("pushq" → "push", "movl" with "%eax" → "mov"); `operands` in objdump's
// spelling.
std::string ObjdumpX86Mnemonic(std::string_view capstone_mnemonic, std::string_view operands);

}  // namespace perflens
