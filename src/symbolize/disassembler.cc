#include "symbolize/disassembler.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "base/shared_library.h"

namespace perflens {
namespace {

// capstone's entry points, opened on the first Create (base/shared_library.h says why
// it is not linked).
struct CapstoneApi {
  SharedLibrary lib;
  decltype(cs_open)* open = nullptr;
  decltype(cs_close)* close = nullptr;
  decltype(cs_option)* option = nullptr;
  decltype(cs_strerror)* strerror = nullptr;
  decltype(cs_malloc)* malloc = nullptr;
  decltype(cs_free)* free = nullptr;
  decltype(cs_disasm_iter)* disasm_iter = nullptr;
};

Result<CapstoneApi> LoadCapstoneApi() {
  auto lib = SharedLibrary::Open("libcapstone.so." + std::to_string(CS_API_MAJOR));
  if (!lib.ok()) return lib.error();
  CapstoneApi api;
  api.lib = std::move(*lib);
  for (Status st : {api.lib.Bind("cs_open", &api.open), api.lib.Bind("cs_close", &api.close),
                    api.lib.Bind("cs_option", &api.option), api.lib.Bind("cs_strerror", &api.strerror),
                    api.lib.Bind("cs_malloc", &api.malloc), api.lib.Bind("cs_free", &api.free),
                    api.lib.Bind("cs_disasm_iter", &api.disasm_iter)})
    if (!st.ok()) return st.error();
  return api;
}

// Opened once per process; a Disassembler exists only once it succeeded.
const Result<CapstoneApi>& Api() {
  // Never closed: no dlclose during static destruction while another thread may
  // still be inside the library.
  static const auto* api = new Result<CapstoneApi>(LoadCapstoneApi());
  return *api;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Appends the decimal number at s[i...] (digits only) as "0x<hex>"; returns the
// index after it.
size_t AppendDecimalAsHex(std::string_view s, size_t i, std::string* out) {
  uint64_t v = 0;
  size_t j = i;
  while (j < s.size() && IsDigit(s[j])) v = v * 10 + static_cast<uint64_t>(s[j++] - '0');
  fmt::format_to(std::back_inserter(*out), "{:#x}", v);
  return j;
}

// Whether a decimal number starts at s[i] (not a "0x" hex one).
bool DecimalAt(std::string_view s, size_t i) {
  if (i >= s.size() || !IsDigit(s[i])) return false;
  return !(s[i] == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X'));
}

// x86 mnemonics whose last letter capstone's AT&T printer adds as an
// operand-size suffix and objdump leaves out when a register operand gives the
// size.
constexpr std::string_view kSizedX86[] = {
    "mov",  "add",  "sub", "and",    "or",    "xor",   "cmp",     "test", "lea",  "imul", "mul",
    "div",  "idiv", "shr", "shl",    "sar",   "sal",   "rol",     "ror",  "rcl",  "rcr",  "inc",
    "dec",  "neg",  "not", "adc",    "sbb",   "xchg",  "bt",      "bts",  "btr",  "btc",  "movabs",
    "xadd", "bsf",  "bsr", "popcnt", "lzcnt", "tzcnt", "cmpxchg", "shld", "shrd", "nop",  "andn",
};
// Always without a suffix in 64-bit code (objdump prints `push $0x0`, `call
// *%rax`).
constexpr std::string_view kUnsizedX86[] = {"push", "pop", "call", "ret", "jmp", "leave"};

// An encoded zero displacement, which capstone leaves out and objdump prints:
// "(%rax)" → "0x0(%rax)", "%r14,(%r13)" → "%r14,0x0(%r13)", "%cs:(%rax)" → "%cs:0x0(%rax)".
void InsertZeroDisplacement(std::string* operands) {
  for (size_t i = 0; i < operands->size(); ++i) {
    if ((*operands)[i] != '(') continue;
    const char before = i ? (*operands)[i - 1] : ',';
    if (before == ',' || before == '*' || before == ':') operands->insert(i, "0x0");
    return;
  }
}

bool SizeSuffix(char c) { return c == 'b' || c == 'w' || c == 'l' || c == 'q'; }

}  // namespace

std::optional<CodeArch> CodeArchFromName(std::string_view arch) {
  if (arch == "x86_64" || arch == "amd64") return CodeArch::kX86_64;
  if (arch == "aarch64" || arch == "arm64") return CodeArch::kAarch64;
  return std::nullopt;
}

std::string ObjdumpX86Operands(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  int depth = 0;
  bool operand_start = true;
  size_t paren_parts = 0;  // comma-separated parts inside the current parentheses
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (depth == 0 && operand_start) {
      if (c == '*') {  // indirect branch operand
        out += c, ++i;
        continue;
      }
      operand_start = false;
      // A displacement before '(' (or a bare memory address) in decimal.
      size_t j = i;
      if (s[j] == '-') ++j;
      if (DecimalAt(s, j)) {
        out.append(s.substr(i, j - i));
        i = AppendDecimalAsHex(s, j, &out);
        continue;
      }
    }
    if (c == '$') {  // an immediate
      out += c, ++i;
      size_t j = i;
      if (j < s.size() && s[j] == '-') out += '-', ++j;
      if (DecimalAt(s, j))
        i = AppendDecimalAsHex(s, j, &out);
      else
        i = j;
      continue;
    }
    if (c == '(') {
      ++depth;
      paren_parts = 1;
    } else if (c == ')') {
      // "(%rax, %rcx)": objdump prints the scale 1 of an index register.
      if (depth == 1 && paren_parts == 2) out += ",1";
      --depth;
    } else if (c == ',') {
      if (depth > 0)
        ++paren_parts;
      else
        operand_start = true;
      out += c, ++i;
      while (i < s.size() && s[i] == ' ') ++i;
      continue;
    }
    out += c, ++i;
  }
  return out;
}

std::string ObjdumpX86Mnemonic(std::string_view mnemonic, std::string_view operands) {
  // Prefixes ("rep stosq", "lock cmpxchgq") keep their spelling; the last word
  // is the instruction.
  const size_t space = mnemonic.rfind(' ');
  const std::string_view prefix = space == std::string_view::npos ? std::string_view() : mnemonic.substr(0, space + 1);
  const std::string_view word = space == std::string_view::npos ? mnemonic : mnemonic.substr(space + 1);
  std::string out(prefix);
  if (word.size() < 2 || !SizeSuffix(word.back())) return out.append(word);
  const std::string_view base = word.substr(0, word.size() - 1);
  if (std::find(std::begin(kUnsizedX86), std::end(kUnsizedX86), base) != std::end(kUnsizedX86)) return out.append(base);
  // SSE conversions from a general register: objdump's `cvtsi2sd %eax,%xmm1`
  // (the suffix stays with a memory source, `cvtsi2sdl 0x8(%rsp),%xmm0`).
  if ((base == "cvtsi2sd" || base == "cvtsi2ss") && operands.rfind("%", 0) == 0 && operands.rfind("%xmm", 0) != 0)
    return out.append(base);
  const bool sized = std::find(std::begin(kSizedX86), std::end(kSizedX86), base) != std::end(kSizedX86) ||
                     (base.size() > 4 && base.substr(0, 4) == "cmov");
  if (!sized) return out.append(word);
  // A general register operand outside the memory operand's parentheses gives
  // the size (not a segment prefix "%fs:", not a vector register: `movq
  // %xmm0,%rax` stays).
  int depth = 0;
  bool reg = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    const char c = operands[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c != '%' || depth > 0) continue;
    const std::string_view r = operands.substr(i + 1);
    if (r.size() >= 3 && r[2] == ':') continue;
    if (r.rfind("xmm", 0) == 0 || r.rfind("ymm", 0) == 0 || r.rfind("zmm", 0) == 0 || r.rfind("mm", 0) == 0) {
      reg = false;
      break;
    }
    reg = true;
  }
  return out.append(reg ? base : word);
}

Result<Disassembler> Disassembler::Create(CodeArch arch) {
  csh handle = 0;
  const cs_arch cs_a = arch == CodeArch::kX86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64;
  const cs_mode mode = arch == CodeArch::kX86_64 ? CS_MODE_64 : CS_MODE_ARM;
  const auto& api = Api();
  if (!api.ok()) return Err("cannot disassemble: {}", api.error().message);
  if (cs_err e = api->open(cs_a, mode, &handle); e != CS_ERR_OK)
    return Err("capstone cannot disassemble {}: {}", arch == CodeArch::kX86_64 ? "x86_64" : "aarch64",
               api->strerror(e));
  if (arch == CodeArch::kX86_64) api->option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  api->option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  return Disassembler(static_cast<size_t>(handle), arch);
}

Disassembler::~Disassembler() {
  if (handle_) {
    csh h = handle_;
    Api()->close(&h);
  }
}

Disassembler& Disassembler::operator=(Disassembler&& other) noexcept {
  if (this != &other) {
    if (handle_) {
      csh h = handle_;
      Api()->close(&h);
    }
    handle_ = other.handle_;
    arch_ = other.arch_;
    other.handle_ = 0;
  }
  return *this;
}

std::vector<Instruction> Disassembler::Disassemble(std::span<const uint8_t> code, uint64_t dso_vaddr) const {
  std::vector<Instruction> out;
  const csh h = handle_;
  cs_insn* insn = Api()->malloc(h);
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t address = dso_vaddr;
  const bool x86 = arch_ == CodeArch::kX86_64;
  while (left > 0) {
    Instruction ins;
    if (!Api()->disasm_iter(h, &p, &left, &address, insn)) {
      const size_t bad = std::min<size_t>(left, x86 ? 1 : 4);
      ins.dso_vaddr = address;
      ins.size = static_cast<uint32_t>(bad);
      ins.mnemonic = "(bad)";
      out.push_back(std::move(ins));
      p += bad, left -= bad, address += bad;
      continue;
    }
    ins.dso_vaddr = insn->address;
    ins.size = insn->size;
    const cs_detail* d = insn->detail;
    bool jump = false;
    for (uint8_t g = 0; d && g < d->groups_count; ++g)
      if (d->groups[g] == CS_GRP_JUMP || d->groups[g] == CS_GRP_CALL) jump = true;
    if (x86) {
      const cs_x86& x = d->x86;
      if (jump && x.op_count == 1 && x.operands[0].type == X86_OP_IMM) {
        ins.target = static_cast<uint64_t>(x.operands[0].imm);
        ins.branch = true;
        ins.operands = fmt::format("{:x}", *ins.target);
      } else {
        ins.operands = ObjdumpX86Operands(insn->op_str);
        for (uint8_t i = 0; i < x.op_count; ++i) {
          if (x.operands[i].type != X86_OP_MEM) continue;
          if (x.operands[i].mem.base == X86_REG_RIP)
            ins.target = insn->address + insn->size + static_cast<uint64_t>(x.operands[i].mem.disp);
          else if (x.operands[i].mem.disp == 0 && x.encoding.disp_size > 0)
            InsertZeroDisplacement(&ins.operands);
        }
      }
      ins.mnemonic = ObjdumpX86Mnemonic(insn->mnemonic, ins.operands);
    } else {
      ins.mnemonic = insn->mnemonic;
      ins.operands = insn->op_str;
      const cs_arm64& a = d->arm64;
      const bool pc_relative = insn->id == ARM64_INS_ADR || insn->id == ARM64_INS_ADRP;
      if ((jump || pc_relative) && a.op_count > 0 && a.operands[a.op_count - 1].type == ARM64_OP_IMM) {
        const uint64_t target = static_cast<uint64_t>(a.operands[a.op_count - 1].imm);
        ins.target = target;
        ins.branch = jump;
        // objdump prints the address bare: "b.ne 1200", "adrp x0, 20000".
        const std::string imm = fmt::format("#{:#x}", target);
        if (const size_t at = ins.operands.rfind(imm); at != std::string::npos)
          ins.operands.replace(at, imm.size(), fmt::format("{:x}", target));
      }
    }
    out.push_back(std::move(ins));
  }
  Api()->free(insn, 1);
  return out;
}

}  // namespace perflens
