#include "symbolize/dwarf_index.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "base/mapped_file.h"
#include "symbolize/demangle.h"
#include "symbolize/elf_sections.h"
#include "symbolize/symbol_frames.h"

namespace perflens {

namespace {

constexpr uint32_t kNoFile = UINT32_MAX;
constexpr uint32_t kNoNode = UINT32_MAX;
// Deeper DIE trees or inline chains than this are malformed (or hostile): not followed.
constexpr int kMaxDieDepth = 256;
constexpr size_t kMaxInlineDepth = DwarfIndex::kMaxFrames;

// binutils' non_mangled(): languages whose DW_AT_name is also the linkage name, so an
// innermost function without DW_AT_linkage_name is still named by its DIE.
bool NamesAreLinkageNames(int lang) {
  switch (lang) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_Ada83:
    case DW_LANG_Cobol74:
    case DW_LANG_Cobol85:
    case DW_LANG_Fortran77:
    case DW_LANG_Pascal83:
    case DW_LANG_C99:
    case DW_LANG_Ada95:
    case DW_LANG_PLI:
    case DW_LANG_UPC:
    case DW_LANG_C11:
      return true;
    default:
      return false;
  }
}

std::string TooManyRanges(Dwarf_Off cu_die) {
  return fmt::format("compile unit at {:#x}: more address ranges than the DWARF has bytes; the rest skipped", cu_die);
}

}  // namespace

struct DwarfIndex::Cu {
  uint64_t die_offset = 0;  // in the main file's DWARF (a skeleton unit's, with split DWARF)
  // The unit read for lines and inline scopes: the CU's DIE, or for a skeleton unit the
  // split unit's DIE in its .dwo (libdw found it and checked its DWO id), whose line
  // table libdw takes from the skeleton. Valid while the index's Dwarf is open.
  Dwarf_Die die{};
  std::once_flag once;

  struct Row {
    uint64_t addr;
    uint32_t file;  // into files
    uint32_t line;
    uint32_t column;
    uint32_t end;  // DW_LNE_end_sequence: no line from here on
  };
  // An address range of a function instance, with the Symbol its frames show there.
  struct Piece {
    uint64_t lo, hi;  // [lo, hi) dso_vaddr
    uint32_t node;
    const Symbol* sym;  // nullptr: the ELF symbol of the looked-up address
  };
  struct Node {
    uint32_t call_file = kNoFile, call_line = 0, call_column = 0;  // inlined calls only
    uint32_t children_begin = 0, children_end = 0;                 // into children
    bool name_is_linkage = true;  // binutils' is_linkage (see the header)
    // The instance's first range starts where an ELF symbol starts (binutils compares
    // its arange.low with the symbol it finds; see the header).
    bool starts_at_symbol = false;
  };
  std::vector<Row> rows;                // sorted by address, end markers first at ties
  std::vector<std::string_view> files;  // interned paths
  std::vector<Node> nodes;
  std::vector<Piece> roots;     // DW_TAG_subprogram ranges, sorted by lo
  std::vector<Piece> children;  // each node's inlined calls' ranges, sorted per node

  static const Piece* FindPiece(std::span<const Piece> pieces, uint64_t addr) {
    auto it = std::upper_bound(pieces.begin(), pieces.end(), addr, [](uint64_t a, const Piece& p) { return a < p.lo; });
    if (it == pieces.begin()) return nullptr;
    --it;
    return addr < it->hi ? &*it : nullptr;
  }
  SourceLine Line(uint64_t addr) const {
    auto it = std::upper_bound(rows.begin(), rows.end(), addr, [](uint64_t a, const Row& r) { return a < r.addr; });
    if (it == rows.begin()) return {};
    --it;
    if (it->end) return {};
    return {files[it->file], it->line, it->column};
  }
  SourceLine CallSite(uint32_t node) const {
    const Node& n = nodes[node];
    if (n.call_file == kNoFile) return {};
    return {files[n.call_file], n.call_line, n.call_column};
  }
};

namespace {

// Reads one CU into a DwarfIndex::Cu. Runs under the index's mutex.
class CuReader {
 public:
  using Cu = DwarfIndex::Cu;
  CuReader(Cu& cu, Dwarf_Die* cu_die, const DwarfIndex::Options& options, const DwarfIndex::SymbolAt& symbol_at,
           std::function<std::string_view(std::string_view)> intern_string,
           std::function<const Symbol*(const Symbol*, std::string_view)> intern_symbol,
           std::function<void(std::string)> note_problem, uint64_t* ranges_left)
      : cu_(cu),
        cu_die_(cu_die),
        options_(options),
        symbol_at_(symbol_at),
        intern_string_(std::move(intern_string)),
        intern_symbol_(std::move(intern_symbol)),
        note_problem_(std::move(note_problem)),
        ranges_left_(ranges_left),
        names_are_linkage_(NamesAreLinkageNames(dwarf_srclang(cu_die))) {}

  void Read() {
    ReadLines();
    if (dwarf_getsrcfiles(cu_die_, &files_, &nfiles_) != 0) {
      files_ = nullptr;
      nfiles_ = 0;
    }
    Walk(cu_die_, kNoNode, 0);
    // Flatten each node's children, sorted by address.
    for (size_t i = 0; i < cu_.nodes.size(); ++i) {
      std::vector<Cu::Piece>& kids = node_children_[i];
      std::sort(kids.begin(), kids.end(), [](const Cu::Piece& a, const Cu::Piece& b) { return a.lo < b.lo; });
      cu_.nodes[i].children_begin = static_cast<uint32_t>(cu_.children.size());
      cu_.children.insert(cu_.children.end(), kids.begin(), kids.end());
      cu_.nodes[i].children_end = static_cast<uint32_t>(cu_.children.size());
    }
    std::sort(cu_.roots.begin(), cu_.roots.end(), [](const Cu::Piece& a, const Cu::Piece& b) { return a.lo < b.lo; });
  }

 private:
  uint32_t FileIndex(const char* path) {
    if (!path || !*path) return kNoFile;
    auto [it, added] = file_ids_.try_emplace(path, static_cast<uint32_t>(cu_.files.size()));
    if (added) cu_.files.push_back(intern_string_(path));
    return it->second;
  }

  void ReadLines() {
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (dwarf_getsrclines(cu_die_, &lines, &n) != 0) {
      // Without DW_AT_stmt_list the CU simply has no lines.
      if (dwarf_hasattr(cu_die_, DW_AT_stmt_list))
        note_problem_(fmt::format("compile unit at {:#x}: line table unreadable ({})", dwarf_dieoffset(cu_die_),
                                  dwarf_errmsg(-1)));
      return;
    }
    cu_.rows.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Dwarf_Line* l = dwarf_onesrcline(lines, i);
      Dwarf_Addr addr;
      if (!l || dwarf_lineaddr(l, &addr) != 0) continue;
      int line = 0, col = 0;
      bool end = false;
      dwarf_lineno(l, &line);
      dwarf_linecol(l, &col);
      dwarf_lineendsequence(l, &end);
      uint32_t file = end ? 0 : FileIndex(dwarf_linesrc(l, nullptr, nullptr));
      if (file == kNoFile) continue;  // a row without a file name tells nothing
      cu_.rows.push_back({addr, file, static_cast<uint32_t>(std::max(line, 0)), static_cast<uint32_t>(std::max(col, 0)),
                          end ? 1u : 0u});
    }
    // Where one sequence ends at the address another starts, the start wins (end
    // markers first); among rows at one address the last one holds (binutils keeps the
    // last row it read for an address).
    std::stable_sort(cu_.rows.begin(), cu_.rows.end(), [](const Cu::Row& a, const Cu::Row& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.end > b.end;
    });
  }

  // The name perf prints for a function DIE: linkage name demangled, else DW_AT_name.
  std::string_view FunctionName(Dwarf_Die* die, bool* is_linkage) {
    Dwarf_Attribute attr;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!linkage) linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (linkage) {
      *is_linkage = true;
      if (options_.demangle) {
        std::string demangled = DemangleLikePerf(linkage, options_.demangle_params);
        if (!demangled.empty()) return intern_string_(demangled);
      }
      return intern_string_(linkage);
    }
    *is_linkage = names_are_linkage_;
    const char* name = dwarf_diename(die);
    return intern_string_(name ? name : "??");  // perf's new_inline_sym for a nameless one
  }

  // A function instance's ranges as pieces, each showing the function under `name`
  // (the ELF symbol itself when the names agree).
  template <typename Out>
  void AddPieces(Dwarf_Die* die, uint32_t node, std::string_view name, Out* out) {
    ptrdiff_t offset = 0;
    Dwarf_Addr base, start, end;
    bool first = true;
    while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
      if (!TakeRange()) break;
      if (start >= end) continue;
      const Symbol* sym = nullptr;
      const Symbol* elf = symbol_at_(start);
      if (elf) sym = elf->name == name ? elf : intern_symbol_(elf, name);
      if (first) cu_.nodes[node].starts_at_symbol = elf && (start == 0 || symbol_at_(start - 1) != elf);
      first = false;
      out->push_back({start, end, node, sym});
    }
  }

  // Counts one range entry read against the index's budget; false (noted once per CU)
  // when it is spent: DIEs sharing one long range list would cost DIEs x entries.
  bool TakeRange() {
    if (*ranges_left_ > 0) {
      --*ranges_left_;
      return true;
    }
    if (!out_of_ranges_) note_problem_(TooManyRanges(dwarf_dieoffset(cu_die_)));
    out_of_ranges_ = true;
    return false;
  }

  uint32_t NewNode() {
    cu_.nodes.emplace_back();
    node_children_.emplace_back();
    return static_cast<uint32_t>(cu_.nodes.size() - 1);
  }

  // Visits the children of `parent`: subprograms with code start trees of their own
  // (also when nested, as GCC nests some), inlined subroutines hang off the nearest
  // function instance, anything else (lexical blocks, namespaces, classes) is looked
  // through.
  void Walk(Dwarf_Die* parent, uint32_t function, int depth) {
    if (depth > kMaxDieDepth) {
      if (!too_deep_)
        note_problem_(fmt::format("compile unit at {:#x}: DIEs nested deeper than {} skipped",
                                  dwarf_dieoffset(cu_die_), kMaxDieDepth));
      too_deep_ = true;
      return;
    }
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    int next;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_subprogram && !dwarf_hasattr(&child, DW_AT_declaration) &&
          (dwarf_hasattr(&child, DW_AT_low_pc) || dwarf_hasattr(&child, DW_AT_ranges))) {
        uint32_t node = NewNode();
        bool is_linkage = true;
        std::string_view name = FunctionName(&child, &is_linkage);
        cu_.nodes[node].name_is_linkage = is_linkage;
        AddPieces(&child, node, name, &cu_.roots);
        Walk(&child, node, depth + 1);
      } else if (tag == DW_TAG_inlined_subroutine && function != kNoNode) {
        uint32_t node = NewNode();
        bool is_linkage = true;
        std::string_view name = FunctionName(&child, &is_linkage);
        Cu::Node& n = cu_.nodes[node];
        n.name_is_linkage = is_linkage;
        Dwarf_Attribute attr;
        Dwarf_Word value;
        if (dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &attr), &value) == 0 && files_ && value < nfiles_)
          n.call_file = FileIndex(dwarf_filesrc(files_, value, nullptr, nullptr));
        if (dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &attr), &value) == 0)
          n.call_line = static_cast<uint32_t>(value);
        if (dwarf_formudata(dwarf_attr(&child, DW_AT_call_column, &attr), &value) == 0)
          n.call_column = static_cast<uint32_t>(value);
        std::vector<Cu::Piece>* kids = &node_children_[function];
        AddPieces(&child, node, name, kids);
        Walk(&child, node, depth + 1);
      } else {
        Walk(&child, function, depth + 1);
      }
      // libdw refuses a DW_AT_sibling that does not point forwards (it would loop).
      const Dwarf_Off at = dwarf_dieoffset(&child);
      if ((next = dwarf_siblingof(&child, &child)) < 0)
        note_problem_(fmt::format("DIE at {:#x}: next sibling unreadable ({})", at, dwarf_errmsg(-1)));
    } while (next == 0);
  }

  Cu& cu_;
  Dwarf_Die* cu_die_;
  const DwarfIndex::Options& options_;
  const DwarfIndex::SymbolAt& symbol_at_;
  std::function<std::string_view(std::string_view)> intern_string_;
  std::function<const Symbol*(const Symbol*, std::string_view)> intern_symbol_;
  std::function<void(std::string)> note_problem_;
  uint64_t* ranges_left_;
  bool names_are_linkage_;
  bool too_deep_ = false;
  bool out_of_ranges_ = false;
  Dwarf_Files* files_ = nullptr;
  size_t nfiles_ = 0;
  std::unordered_map<const char*, uint32_t> file_ids_;  // libdw's strings live as long as the Dwarf
  std::vector<std::vector<Cu::Piece>> node_children_;
};

// The bytes of the debug sections libdw reads (inflated where they were inflated): a
// bound on the address ranges well-formed DWARF can list (each range-list entry, each
// low_pc/high_pc pair takes at least a byte).
uint64_t DebugBytes(Elf* elf) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  uint64_t total = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (name && std::string_view(name).starts_with(".debug_")) total += shdr.sh_size;
  }
  return total;
}

// The compressed debug sections the index never reads (variable locations, macros,
// name and address tables, CFI): hidden from libdw, which would inflate them.
bool UnreadByTheIndex(std::string_view name) {
  static constexpr std::string_view kUnread[] = {
      ".debug_loclists", ".debug_loc",      ".debug_macro",        ".debug_macinfo",       ".debug_pubnames",
      ".debug_pubtypes", ".debug_names",    ".debug_gnu_pubnames", ".debug_gnu_pubtypes", ".debug_aranges",
      ".debug_frame",    ".debug_cu_index", ".debug_tu_index"};
  return std::find(std::begin(kUnread), std::end(kUnread), name) != std::end(kUnread);
}

// The name of a string section (.debug_str, .debug_line_str) whose last byte is not
// NUL, or "": libdw (0.188) reads a DW_FORM_strp / DW_FORM_line_strp string with
// strlen from its offset, past the section's end when its last string is cut. Checks
// the bytes libdw will read (elf_getdata); still-compressed sections are libdw's to
// inflate and are not checked.
std::string UnterminatedStringSection(Elf* elf) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return {};
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS || (shdr.sh_flags & SHF_COMPRESSED)) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name || (std::string_view(name) != ".debug_str" && std::string_view(name) != ".debug_line_str")) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data && data->d_buf && data->d_size && static_cast<const char*>(data->d_buf)[data->d_size - 1] != '\0')
      return name;
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<DwarfIndex>> DwarfIndex::Open(const std::string& path, SymbolAt symbol_at, Options options) {
  // libelf refuses every file until its version is set; Open may be the first libelf
  // user in the process (a DwarfIndex without a Symbolizer).
  static const bool kLibelfReady = elf_version(EV_CURRENT) != EV_NONE;
  if (!kLibelfReady) return Err("{}: libelf has no usable version", path);
  auto opened = OpenRegularFile(path);
  if (!opened.ok()) return opened.error();
  int fd = *opened;
  // A private writable mapping, so that the debug sections the index never reads can be
  // hidden from libdw (symbolize/elf_sections.h): .debug_loclists alone is a seventh of
  // libc6-dbg's inflated bytes.
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, nullptr);
  if (!elf) {
    close(fd);
    return Err("{}: not ELF ({})", path, elf_errmsg(-1));
  }
  // The sections the index reads, inflated into an image of their own (libdeflate,
  // libzstd); a file the image cannot stand for is read as it is, through libelf.
  std::unique_ptr<char[]> image;
  if (auto inflated = InflatedDebugImage(elf, [](std::string_view name) { return !UnreadByTheIndex(name); });
      inflated.ok()) {
    if (Elf* in_memory = elf_memory(inflated->bytes.get(), inflated->size)) {
      elf_end(elf);
      close(fd);
      fd = -1;
      elf = in_memory;
      image = std::move(inflated->bytes);
    }
  }
  if (!image) {
    HideCompressedSections(elf, UnreadByTheIndex);
    InflateDebugSections(elf);
  }
  if (std::string bad = UnterminatedStringSection(elf); !bad.empty()) {
    elf_end(elf);
    if (fd >= 0) close(fd);
    return Err("{}: {} does not end in a NUL byte (its last string is cut)", path, bad);
  }
  Dwarf* dw = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (!dw) {
    elf_end(elf);
    if (fd >= 0) close(fd);
    return Err("{}: no DWARF ({})", path, dwarf_errmsg(-1));
  }
  std::unique_ptr<DwarfIndex> index(new DwarfIndex());
  index->path_ = path;
  index->fd_ = fd;
  index->elf_ = elf;
  index->image_ = std::move(image);
  index->dwarf_ = dw;
  index->options_ = options;
  index->symbol_at_ = std::move(symbol_at);
  index->ranges_left_ = DebugBytes(elf) + 4096;

  Dwarf_CU* cu = nullptr;
  Dwarf_Half version;
  uint8_t unit_type;
  Dwarf_Die cu_die, split_die;
  int more;
  while ((more = dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cu_die, &split_die)) == 0) {
    // Type units have no code. A skeleton unit (split DWARF, -gsplit-dwarf) lists the
    // code ranges and holds the line table; its DIEs (inline scopes) are in the .dwo,
    // which libdw opens beside the file or in DW_AT_comp_dir and checks by DWO id.
    if (unit_type != DW_UT_compile && unit_type != DW_UT_skeleton) continue;
    const bool split = unit_type == DW_UT_skeleton && split_die.addr != nullptr && dwarf_tag(&split_die) > 0;
    auto n = static_cast<uint32_t>(index->cus_.size());
    ptrdiff_t offset = 0;
    Dwarf_Addr base, start, end;
    bool any = false;
    while ((offset = dwarf_ranges(&cu_die, offset, &base, &start, &end)) > 0) {
      if (index->ranges_left_ == 0) {
        index->NoteProblem(TooManyRanges(dwarf_dieoffset(&cu_die)));
        break;
      }
      --index->ranges_left_;
      if (start >= end) continue;
      index->ranges_.push_back({start, end, n});
      any = true;
    }
    if (offset < 0)
      index->NoteProblem(fmt::format("compile unit at {:#x}: address ranges unreadable ({})", dwarf_dieoffset(&cu_die),
                                     dwarf_errmsg(-1)));
    if (!any) continue;
    auto c = std::make_unique<Cu>();
    c->die_offset = dwarf_dieoffset(&cu_die);
    c->die = split ? split_die : cu_die;
    index->cus_.push_back(std::move(c));
  }
  if (more < 0) index->NoteProblem(fmt::format("compile units unreadable ({})", dwarf_errmsg(-1)));
  if (index->ranges_.empty()) {
    if (!index->first_problem_.empty()) return Err("{}: {}", path, index->first_problem_);
    return Err("{}: no DWARF compile unit with code addresses", path);
  }
  std::sort(index->ranges_.begin(), index->ranges_.end(),
            [](const CuRange& a, const CuRange& b) { return a.lo < b.lo; });
  return index;
}

DwarfIndex::~DwarfIndex() {
  if (dwarf_) dwarf_end(dwarf_);
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

const DwarfIndex::Cu* DwarfIndex::FindCu(uint64_t dso_vaddr) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), dso_vaddr,
                             [](uint64_t a, const CuRange& r) { return a < r.lo; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (dso_vaddr >= it->hi) return nullptr;
  Cu& cu = *cus_[it->cu];
  std::call_once(cu.once, [&] {
    std::lock_guard<std::mutex> lock(mu_);
    ReadCu(cu);
  });
  return &cu;
}

void DwarfIndex::NoteProblem(std::string what) const {
  if (problems_++ == 0) first_problem_ = std::move(what);
}

std::string DwarfIndex::problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (problems_ == 0) return {};
  if (problems_ == 1) return fmt::format("{}: {}", path_, first_problem_);
  return fmt::format("{}: {} (and {} more)", path_, first_problem_, problems_ - 1);
}

void DwarfIndex::ReadCu(Cu& cu) const {
  Dwarf_Die die = cu.die;
  auto intern_string = [this](std::string_view s) -> std::string_view { return *strings_.emplace(s).first; };
  auto intern_symbol = [this](const Symbol* base, std::string_view name) -> const Symbol* {
    auto [it, added] = interned_.try_emplace({base, name}, nullptr);
    if (added) {
      Symbol& s = inline_symbols_.emplace_back(*base);
      s.name = name;
      s.inlined = 1;
      s.index = options_.first_symbol_index + static_cast<uint32_t>(inline_symbols_.size() - 1);
      it->second = &s;
      inline_symbol_count_.store(inline_symbols_.size(), std::memory_order_relaxed);
    }
    return it->second;
  };
  CuReader(cu, &die, options_, symbol_at_, intern_string, intern_symbol,
           [this](std::string what) { NoteProblem(std::move(what)); }, &ranges_left_)
      .Read();
}

SourceLine DwarfIndex::FindLine(uint64_t dso_vaddr) const {
  const Cu* cu = FindCu(dso_vaddr);
  return cu ? cu->Line(dso_vaddr) : SourceLine{};
}

void DwarfIndex::AppendFrames(uint64_t dso_vaddr, const Symbol* base, SymbolFrames* out) const {
  const Cu* cu = FindCu(dso_vaddr);
  SourceLine row = cu ? cu->Line(dso_vaddr) : SourceLine{};
  const Cu::Piece* piece = cu ? Cu::FindPiece(cu->roots, dso_vaddr) : nullptr;
  if (!piece) {
    out->push_back({base, 0, row});
    return;
  }
  // The chain from the subprogram (chain[0]) inwards.
  std::array<const Cu::Piece*, kMaxInlineDepth> chain;
  size_t n = 0;
  chain[n++] = piece;
  while (n < kMaxInlineDepth) {
    const Cu::Node& node = cu->nodes[chain[n - 1]->node];
    std::span<const Cu::Piece> kids(cu->children.data() + node.children_begin, node.children_end - node.children_begin);
    const Cu::Piece* inner = Cu::FindPiece(kids, dso_vaddr);
    if (!inner) break;
    chain[n++] = inner;
  }
  for (size_t k = n; k-- > 0;) {
    SourceLine line = k == n - 1 ? row : cu->CallSite(chain[k + 1]->node);
    const Symbol* sym = chain[k]->sym ? chain[k]->sym : base;
    // The innermost function without a linkage name binutils names by the ELF symbol
    // where that symbol starts at the function's first address (see the header).
    const Cu::Node& node = cu->nodes[chain[k]->node];
    if (k == n - 1 && !node.name_is_linkage && (n == 1 || node.starts_at_symbol)) sym = base;
    out->push_back({sym, static_cast<uint32_t>(k), line});
  }
}

size_t DwarfIndex::inline_symbol_count() const { return inline_symbol_count_.load(std::memory_order_relaxed); }

}  // namespace perflens
