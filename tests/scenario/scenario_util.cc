#include "scenario_util.h"

#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>
#include <vector>

namespace perflens::scenario {

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

CommandResult RunShell(const std::string& command, const std::string& scratch_dir) {
  // The pid too: ctest runs tests as parallel processes, each counting from 0, and
  // several share a scratch dir (/tmp): one's .cmd1.err was another's.
  static int counter = 0;
  std::string base = scratch_dir + "/.cmd" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  std::string full = "( " + command + " ) >" + base + ".out 2>" + base + ".err";
  int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  r.out = ReadFileOrEmpty(base + ".out");
  r.err = ReadFileOrEmpty(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

std::string PerfUnavailableReason() {
  static const std::string reason = [] {
    char tmpl[] = "/tmp/perflens-scn-probe-XXXXXX";
    if (!mkdtemp(tmpl)) return std::string("cannot create a temp dir");
    std::string dir = tmpl;
    CommandResult r = RunShell("HOME=" + dir + " perf record -q -o " + dir +
                                   "/probe.data -- true", dir);
    RunShell("rm -rf " + ShellQuote(dir), "/tmp");
    if (r.exit_code != 0)
      return "perf record does not work here (perf_event_paranoid, container, or no perf): " +
             r.err.substr(0, 300);
    return std::string();
  }();
  return reason;
}

std::string PerflensBinary() { return PERFLENS_BINARY_DIR "/src/cli/perflens"; }
std::string ScenarioSourceDir() { return PERFLENS_SOURCE_DIR "/tests/scenario"; }

static std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

ParsedReport ParseReport(std::string_view text) {
  ParsedReport report;
  std::string event;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# Samples:", 0) == 0) {
      // "# Samples: 166  of event 'cpu-clock:ppp'"
      size_t q = line.find('\'');
      event = q == std::string::npos ? "" : line.substr(q + 1, line.rfind('\'') - q - 1);
      report.header_samples[event] = std::atol(line.c_str() + 10);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts;
    size_t start = 0;
    for (int i = 0; i < 5; i++) {  // the symbol (last column) may itself contain '|'
      size_t bar = line.find('|', start);
      if (bar == std::string::npos) break;
      parts.push_back(Trim(std::string_view(line).substr(start, bar - start)));
      start = bar + 1;
    }
    if (parts.size() != 5) continue;
    parts.push_back(Trim(std::string_view(line).substr(start)));
    char* end = nullptr;
    long n = std::strtol(parts[1].c_str(), &end, 10);
    if (end == parts[1].c_str()) continue;
    report.samples[{event, parts[3], parts[4], parts[5]}] += n;
  }
  return report;
}

long ParsedReport::TotalSamples() const {
  long total = 0;
  for (const auto& [key, n] : samples) total += n;
  return total;
}

long ParsedReport::Count(std::string_view comm, std::string_view dso,
                         std::string_view sym_prefix) const {
  long total = 0;
  for (const auto& [key, n] : samples) {
    const auto& [ev, c, d, s] = key;
    if ((comm.empty() || c == comm) && (dso.empty() || d == dso) &&
        std::string_view(s).substr(0, sym_prefix.size()) == sym_prefix)
      total += n;
  }
  return total;
}

}  // namespace perflens::scenario

// ---- Call-graph comparisons (issue #4) ----
namespace perflens::scenario {

static std::string_view StripSymPrefix(std::string_view sym) {
  if (sym.size() > 4 && sym[0] == '[' && sym[2] == ']' && sym[3] == ' ') sym.remove_prefix(4);
  return sym;
}

bool IsPltName(std::string_view sym) {
  sym = StripSymPrefix(sym);
  return sym == ".plt" || (sym.size() >= 4 && sym.substr(sym.size() - 4) == "@plt");
}

bool IsUnresolvedName(std::string_view sym) {
  sym = StripSymPrefix(sym);
  if (sym == "[unknown]") return true;
  // perf prints a frame without symbol as "%#.16llx" of its ip: "0x..." or, for ip 0,
  // sixteen zeros (the # adds no 0x to zero).
  if (sym == "0000000000000000") return true;
  return sym.size() > 2 && sym.substr(0, 2) == "0x" &&
         sym.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<ChildrenRow> ParseChildrenTable(std::string_view text) {
  std::vector<ChildrenRow> rows;
  for (const std::string& line : SplitLines(text)) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('|');
    size_t b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos) continue;
    ChildrenRow r{Trim(std::string_view(line).substr(0, a)),
                  Trim(std::string_view(line).substr(a + 1, b - a - 1)),
                  Trim(std::string_view(line).substr(b + 1))};
    if (r.children.empty() || r.children.back() != '%') continue;
    rows.push_back(std::move(r));
  }
  return rows;
}

static bool IsEntryLine(const std::string& line) {
  size_t b = line.find_first_not_of(' ');
  if (b == 0 || b == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[b]))) return false;
  size_t pct = line.find('%', b);
  return pct != std::string::npos &&
         line.find_first_not_of("0123456789.", b) == pct;
}

std::vector<GraphEntry> ParseGraph(std::string_view text) {
  std::vector<GraphEntry> entries;
  for (const std::string& line : SplitLines(text)) {
    if (!line.empty() && line[0] == '#') continue;
    if (IsEntryLine(line)) {
      entries.push_back({line, std::atof(line.c_str()), {}});
    } else if (!entries.empty()) {
      entries.back().body.push_back(line);
    }
  }
  for (auto& e : entries)
    while (!e.body.empty() && Trim(e.body.back()).empty()) e.body.pop_back();
  return entries;
}

std::map<std::string, std::vector<std::string>> ParseFoldedReport(std::string_view text) {
  std::map<std::string, std::vector<std::string>> out;
  std::string key;
  for (const std::string& line : SplitLines(text)) {
    if (line.empty() || line[0] == '#') continue;
    if (IsEntryLine(line)) {
      key = line;
      out[key];
    } else if (!key.empty()) {
      out[key].push_back(line);
    }
  }
  return out;
}

}  // namespace perflens::scenario

// ---- The documented differences (scenario_util.h) ----
namespace perflens::scenario {

const char* DifferenceName(Difference d) {
  switch (d) {
    case Difference::kEqual: return "equal";
    case Difference::kCommTruncation: return "comm truncation";
    case Difference::kPltNaming: return "PLT naming";
    case Difference::kUnresolvedLevel: return "unresolved level";
    case Difference::kSplitRows: return "split rows";
    case Difference::kDiffers: return "differs";
  }
  return "?";
}

static bool LevelPrefixed(std::string_view sym) {
  return sym.size() > 4 && sym[0] == '[' && sym[2] == ']' && sym[3] == ' ';
}

// perf's names for a location in .plt: "_init" stretched over it, "x@plt" / "@plt" slot
// names, an address without symbol or "[unknown]".
static bool PerfPltCandidate(std::string_view sym) {
  std::string_view bare = StripSymPrefix(sym);
  return bare == "_init" || IsPltName(bare) || IsUnresolvedName(bare);
}

static Difference SameSym(std::string_view perf, std::string_view lens) {
  if (perf == lens) return Difference::kEqual;
  // The level letter is part of the name, except for an unresolved address.
  if (LevelPrefixed(perf) != LevelPrefixed(lens)) return Difference::kDiffers;
  std::string_view p = StripSymPrefix(perf), l = StripSymPrefix(lens);
  if (p == l && IsUnresolvedName(p) && p != "[unknown]") return Difference::kUnresolvedLevel;
  if (LevelPrefixed(perf) && perf.substr(0, 4) != lens.substr(0, 4)) return Difference::kDiffers;
  // perf script prints "sym+0xOFF": a PLT name keeps its own offset.
  auto no_offset = [](std::string_view s) {
    size_t plus = s.rfind("+0x");
    return plus != std::string_view::npos && plus > 0 &&
                   s.find_first_not_of("0123456789abcdef", plus + 3) == std::string_view::npos
               ? s.substr(0, plus)
               : s;
  };
  if (IsPltName(no_offset(l)) && PerfPltCandidate(no_offset(p))) return Difference::kPltNaming;
  return Difference::kDiffers;
}

static Difference SameStack(std::string_view perf, std::string_view lens) {
  if (perf == lens) return Difference::kEqual;
  std::vector<std::string> pf, lf;
  for (auto* v : {&pf, &lf}) {
    std::string_view s = v == &pf ? perf : lens;
    for (size_t start = 0;;) {
      size_t semi = s.find(';', start);
      v->emplace_back(s.substr(start, semi == std::string_view::npos ? semi : semi - start));
      if (semi == std::string_view::npos) break;
      start = semi + 1;
    }
  }
  if (pf.size() != lf.size() || pf[0] != lf[0]) return Difference::kDiffers;
  Difference worst = Difference::kEqual;
  for (size_t i = 1; i < pf.size(); ++i) {
    std::string p = pf[i];
    // stackcollapse-perf.pl names an unknown symbol "[dso basename]".
    if (p.size() > 2 && p.front() == '[' && p.back() == ']' && p.find(' ') == std::string::npos)
      p = "[unknown]";
    Difference d = p == lf[i] ? Difference::kEqual : SameSym(p, lf[i]);
    if (d == Difference::kDiffers) return d;
    if (d != Difference::kEqual) worst = d;
  }
  return worst;
}

Difference SameField(FieldKind kind, std::string_view perf, std::string_view lens) {
  if (perf == lens) return Difference::kEqual;
  switch (kind) {
    case FieldKind::kExact: return Difference::kDiffers;
    case FieldKind::kComm:
      return !perf.empty() && perf.size() < lens.size() && lens.substr(0, perf.size()) == perf
                 ? Difference::kCommTruncation
                 : Difference::kDiffers;
    case FieldKind::kSym: return SameSym(perf, lens);
    case FieldKind::kStack: return SameStack(perf, lens);
  }
  return Difference::kDiffers;
}

static std::string RowText(const Row& r) {
  std::string s;
  for (size_t i = 0; i < r.key.size(); ++i) s += (i ? " | " : "") + r.key[i];
  s += " [";
  for (size_t i = 0; i < r.values.size(); ++i) s += (i ? " " : "") + r.values[i];
  return s + "]";
}

static double Weight(const Row& r) { return r.values.empty() ? 1 : std::atof(r.values[0].c_str()); }

std::string RowsAgreement::Report(size_t max_lines) const {
  std::string out;
  size_t n = 0;
  for (const auto& l : failures)
    if (n++ < max_lines) out += "  differs: " + l + "\n";
  for (const auto& l : allowed)
    if (n++ < max_lines) out += "  allowed: " + l + "\n";
  if (n > max_lines) out += "  ... (" + std::to_string(n - max_lines) + " more)\n";
  return out;
}

long RowsAgreement::AllowedWith(Difference d) const {
  long n = 0;
  const std::string name = DifferenceName(d);
  for (const std::string& l : allowed) {
    std::string_view kinds = std::string_view(l).substr(0, l.find(": perf "));
    for (size_t start = 0;;) {
      size_t comma = kinds.find(", ", start);
      if (kinds.substr(start, comma == std::string_view::npos ? comma : comma - start) == name) {
        ++n;
        break;
      }
      if (comma == std::string_view::npos) break;
      start = comma + 2;
    }
  }
  return n;
}

std::string RowsAgreement::Summary() const {
  std::string kinds;
  for (Difference d : {Difference::kCommTruncation, Difference::kPltNaming, Difference::kUnresolvedLevel,
                       Difference::kSplitRows})
    if (long n = AllowedWith(d)) kinds += std::string(kinds.empty() ? "" : ", ") + DifferenceName(d) + " " + std::to_string(n);
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.2f", RowPercent());
  return std::to_string(perf_rows) + " perf rows (perflens " + std::to_string(lens_rows) + "), " +
         std::to_string(agreeing_rows) + " agree (" + pct + "%), " + std::to_string(allowed.size()) +
         " documented differences" + (kinds.empty() ? "" : " (" + kinds + ")") + ", " +
         std::to_string(failures.size()) + " real differences";
}

// The lines below a row agree: exactly, or, when the rows differ by PLT naming, once
// perflens's name of the row's own PLT symbol is perf's in its lines (a folded
// --no-children entry's stacks end in the entry's own symbol).
static bool BodiesAgree(const Row& perf, const Row& lens, Difference kind, const std::vector<FieldKind>& kinds) {
  if (perf.body == lens.body) return true;
  if (kind != Difference::kPltNaming) return false;
  for (size_t f = 0; f < kinds.size() && f < perf.key.size() && f < lens.key.size(); ++f) {
    if (kinds[f] != FieldKind::kSym) continue;
    const std::string want(StripSymPrefix(perf.key[f])), mine(StripSymPrefix(lens.key[f]));
    if (mine.empty() || want == mine) continue;
    std::vector<std::string> lines = SplitLines(lens.body);
    for (std::string& l : lines)
      for (size_t at = l.find(mine); at != std::string::npos; at = l.find(mine, at + want.size()))
        l.replace(at, mine.size(), want);
    std::sort(lines.begin(), lines.end());
    std::string body;
    for (const std::string& l : lines) body += l + "\n";
    return body == perf.body;
  }
  return false;
}

RowsAgreement CompareRows(const std::vector<Row>& perf, const std::vector<Row>& lens,
                          const std::vector<FieldKind>& kinds) {
  RowsAgreement a;
  a.perf_rows = static_cast<long>(perf.size());
  a.lens_rows = static_cast<long>(lens.size());
  for (const Row& r : perf) a.perf_weight += Weight(r);
  // Pass 1: identical rows (key, values and body), in any order.
  std::map<std::tuple<std::vector<std::string>, std::vector<std::string>, std::string>, std::vector<size_t>>
      identical;
  for (size_t j = lens.size(); j-- > 0;) identical[{lens[j].key, lens[j].values, lens[j].body}].push_back(j);
  std::vector<bool> lens_used(lens.size()), perf_done(perf.size());
  for (size_t i = 0; i < perf.size(); ++i) {
    auto it = identical.find({perf[i].key, perf[i].values, perf[i].body});
    if (it == identical.end() || it->second.empty()) continue;
    lens_used[it->second.back()] = true;
    it->second.pop_back();
    perf_done[i] = true;
    a.agreeing_rows++;
    a.agreeing_weight += Weight(perf[i]);
  }
  // Pass 2: the other perf rows, each to the unmatched perflens row its key agrees with
  // (fewest differing fields first, then equal values, then print order).
  auto key_difference = [&](const Row& p, const Row& l, int* n_diff) {
    Difference worst = Difference::kEqual;
    *n_diff = 0;
    if (p.key.size() != l.key.size()) return Difference::kDiffers;
    for (size_t f = 0; f < p.key.size(); ++f) {
      FieldKind kind = f < kinds.size() ? kinds[f] : FieldKind::kExact;
      Difference d = SameField(kind, p.key[f], l.key[f]);
      if (d == Difference::kDiffers) return d;
      if (d != Difference::kEqual) worst = d, ++*n_diff;
    }
    return worst;
  };
  std::map<size_t, std::vector<std::pair<size_t, Difference>>> groups;  // lens row -> perf rows
  std::vector<std::pair<size_t, size_t>> plt_joins;  // (perf row, its first perflens row)
  for (size_t i = 0; i < perf.size(); ++i) {
    if (perf_done[i]) continue;
    long best = -1;
    int best_diff = 0;
    bool best_values = false;
    Difference best_kind = Difference::kDiffers;
    for (size_t j = 0; j < lens.size(); ++j) {
      if (lens_used[j]) continue;
      int n_diff = 0;
      Difference d = key_difference(perf[i], lens[j], &n_diff);
      if (d == Difference::kDiffers) continue;
      bool values = perf[i].values == lens[j].values;
      if (best < 0 || n_diff < best_diff || (n_diff == best_diff && values && !best_values)) {
        best = static_cast<long>(j), best_diff = n_diff, best_values = values, best_kind = d;
      }
    }
    if (best < 0) {
      a.failures.push_back("perf only: " + RowText(perf[i]));
      continue;
    }
    groups[static_cast<size_t>(best)].push_back({i, best_kind});
  }
  for (const auto& [j, members] : groups) {
    const Row& mine = lens[j];
    lens_used[j] = true;
    bool ok = true;
    size_t k = members.size();
    for (size_t v = 0; v < mine.values.size(); ++v) {
      double sum = 0;
      bool fractional = mine.values[v].find('.') != std::string::npos;
      for (const auto& [i, kind] : members)
        sum += v < perf[i].values.size() ? std::atof(perf[i].values[v].c_str()) : 0;
      double tol = k > 1 && fractional ? 0.005 * static_cast<double>(k + 1) + 1e-9 : 1e-9;
      if (std::abs(sum - std::atof(mine.values[v].c_str())) > tol) ok = false;
    }
    const bool bodies_agree = k != 1 || BodiesAgree(perf[members[0].first], mine, members[0].second, kinds);
    if (!bodies_agree) ok = false;
    std::string kinds_text, perf_text;
    for (const auto& [i, kind] : members) {
      if (kind != Difference::kEqual && kinds_text.find(DifferenceName(kind)) == std::string::npos)
        kinds_text += std::string(kinds_text.empty() ? "" : ", ") + DifferenceName(kind);
      perf_text += (perf_text.empty() ? "" : " + ") + RowText(perf[i]);
    }
    if (k > 1) kinds_text += std::string(kinds_text.empty() ? "" : ", ") + DifferenceName(Difference::kSplitRows);
    std::string line = "perf " + perf_text + " = perflens " + RowText(mine);
    if (!ok) {
      bool body = !bodies_agree;
      // perf's `_init` over .plt may be several perflens `name@plt` rows (a program
      // calling two PLT entries): joined below, when the values add up.
      if (k == 1 && !body && members[0].second == Difference::kPltNaming && mine.body.empty()) {
        plt_joins.push_back({members[0].first, j});
        continue;
      }
      a.failures.push_back(line + (body ? " (the lines below differ)" : " (values differ)"));
      continue;
    }
    if (kinds_text.empty()) kinds_text = "equal";  // unreachable: pass 1 took those
    a.allowed.push_back(kinds_text + ": " + line);
    for (const auto& [i, kind] : members) a.agreeing_rows++, a.agreeing_weight += Weight(perf[i]);
  }
  // PLT naming, one perf row to several perflens rows: perf's row and every unmatched
  // perflens row whose key agrees with it by PLT naming, when their values add up.
  for (const auto& [i, first] : plt_joins) {
    std::vector<size_t> mine = {first};
    for (size_t j = 0; j < lens.size(); ++j) {
      int n_diff = 0;
      if (!lens_used[j] && lens[j].body.empty() && key_difference(perf[i], lens[j], &n_diff) == Difference::kPltNaming)
        mine.push_back(j);
    }
    bool ok = mine.size() > 1;
    for (size_t v = 0; ok && v < perf[i].values.size(); ++v) {
      double sum = 0;
      for (size_t j : mine) sum += v < lens[j].values.size() ? std::atof(lens[j].values[v].c_str()) : 0;
      const bool fractional = perf[i].values[v].find('.') != std::string::npos;
      double tol = fractional ? 0.005 * static_cast<double>(mine.size() + 1) + 1e-9 : 1e-9;
      if (std::abs(sum - std::atof(perf[i].values[v].c_str())) > tol) ok = false;
    }
    std::string lens_text;
    for (size_t j : mine) lens_text += (lens_text.empty() ? "" : " + ") + RowText(lens[j]);
    const std::string line = "perf " + RowText(perf[i]) + " = perflens " + lens_text;
    if (!ok) {
      a.failures.push_back(line + " (values differ)");
      continue;
    }
    for (size_t j : mine) lens_used[j] = true;
    a.allowed.push_back(std::string(DifferenceName(Difference::kPltNaming)) + ", " +
                        DifferenceName(Difference::kSplitRows) + ": " + line);
    a.agreeing_rows++, a.agreeing_weight += Weight(perf[i]);
  }
  for (size_t j = 0; j < lens.size(); ++j)
    if (!lens_used[j]) a.failures.push_back("perflens only: " + RowText(lens[j]));
  return a;
}

std::vector<Row> SelfRows(std::string_view report_text) {
  std::vector<Row> rows;
  std::string event;
  for (const std::string& line : SplitLines(report_text)) {
    if (line.rfind("# Samples:", 0) == 0) {
      size_t q = line.find('\'');
      event = q == std::string::npos ? "" : line.substr(q + 1, line.rfind('\'') - q - 1);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts;
    size_t start = 0;
    for (int i = 0; i < 5; i++) {
      size_t bar = line.find('|', start);
      if (bar == std::string::npos) break;
      parts.push_back(Trim(std::string_view(line).substr(start, bar - start)));
      start = bar + 1;
    }
    if (parts.size() != 5) continue;
    parts.push_back(Trim(std::string_view(line).substr(start)));
    rows.push_back({{event, parts[3], parts[4], parts[5]}, {parts[1], parts[2]}, ""});
  }
  return rows;
}

std::vector<Row> ChildrenRows(std::string_view text) {
  std::vector<Row> rows;
  for (const ChildrenRow& r : ParseChildrenTable(text)) rows.push_back({{r.sym}, {r.children, r.self}, ""});
  return rows;
}

std::vector<Row> SrclineRows(std::string_view text) {
  std::vector<Row> rows;
  for (const std::string& line : SplitLines(text)) {
    if (line.empty() || line[0] == '#') continue;
    // " 16.43% |[.] LeafMix.constprop.0 |dwarf_levels.c:27"
    const size_t a = line.find('|'), b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos) continue;
    rows.push_back({{Trim(line.substr(a + 1, b - a - 1)), Trim(line.substr(b + 1))}, {Trim(line.substr(0, a))}, ""});
  }
  return rows;
}

std::vector<Row> GraphRows(std::string_view text) {
  std::vector<Row> rows;
  for (const GraphEntry& e : ParseGraph(text)) {
    // "   100.00%     0.00%  comm  dso  [.] sym": columns are separated by 2+ spaces.
    std::vector<std::string> cols;
    std::string_view line = e.line;
    size_t pos = line.find_first_not_of(' ');
    while (pos != std::string_view::npos && pos < line.size()) {
      size_t sep = line.find("  ", pos);
      cols.push_back(Trim(line.substr(pos, sep == std::string_view::npos ? sep : sep - pos)));
      if (sep == std::string_view::npos) break;
      pos = line.find_first_not_of(' ', sep);
    }
    Row r;
    size_t c = 0;
    for (; c < cols.size() && !cols[c].empty() &&
           cols[c].find_first_not_of("0123456789.%") == std::string::npos;
         ++c)
      r.values.push_back(cols[c]);
    std::vector<std::string> rest(cols.begin() + static_cast<long>(c), cols.end());
    while (rest.size() > 3) rest[rest.size() - 2] += "  " + rest.back(), rest.pop_back();
    while (rest.size() < 3) rest.insert(rest.begin(), "");
    r.key = rest;
    std::vector<std::string> body = e.body;
    std::sort(body.begin(), body.end());  // ties: branches of equal value in any order
    for (const auto& l : body) r.body += l + "\n";
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<Row> ScriptRows(std::string_view text) {
  std::vector<Row> rows;
  std::vector<std::string> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    Row r;
    // "\t    26006 sym+0x6 (/usr/lib/x86_64-linux-gnu/libc.so.6)": address, symbol, DSO.
    size_t addr = line.find_first_not_of(" \t");
    size_t space = addr == std::string::npos ? addr : line.find(' ', addr);
    size_t paren = line.rfind(" (");
    if (!line.empty() && line[0] == '\t' && space != std::string::npos && paren != std::string::npos &&
        paren > space) {
      r.key = {std::to_string(n), line.substr(0, space + 1) + line.substr(paren),
               line.substr(space + 1, paren - space - 1)};
    } else {
      r.key = {std::to_string(n), line, ""};
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<FlatEventRows> ParseFlatSymReport(std::string_view text) {
  std::vector<FlatEventRows> events;
  static const std::regex kSamples(R"(^# Samples: (\d+)\s+of event '([^']*)'.*$)");
  static const std::regex kCount(R"(^# Event count \(approx\.\): (\d+)$)");
  static const std::regex kRow(R"(^\s*(\d+)\s*\|\s*(\d+)\s*\|\[.\] (.*?)\s*$)");
  for (const std::string& line : SplitLines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kSamples)) {
      events.push_back({m[2], std::stoull(m[1])});
    } else if (!events.empty() && std::regex_match(line, m, kCount)) {
      events.back().total_period = std::stoull(m[1]);
    } else if (!events.empty() && std::regex_match(line, m, kRow)) {
      auto& r = events.back().rows[m[3]];
      r.first += std::stoull(m[1]);
      r.second += std::stoull(m[2]);
    }
  }
  return events;
}

std::string MissingBrowserTool() {
  for (const char* needed : {"/usr/bin/python3", "/usr/bin/chromium", "/usr/bin/chromedriver"})
    if (access(needed, X_OK) != 0) return std::string("no ") + needed;
  return "";
}

bool MaySkipBrowserTests() {
  const char* skip = std::getenv("PERFLENS_SKIP_BROWSER");
  return skip && std::string(skip) == "1";
}

CommandResult RunBrowserCheck(const std::string& script, const std::string& html, const std::string& expect_path,
                              const std::string& screenshot, const std::string& scratch_dir) {
  CommandResult check = RunShell("/usr/bin/python3 " + ShellQuote(ScenarioSourceDir() + "/testdata/" + script) +
                                     " --html " + ShellQuote(html) + " --expect " + ShellQuote(expect_path) +
                                     " --screenshot " + ShellQuote(screenshot),
                                 scratch_dir);
  std::printf("%s", check.out.c_str());
  return check;
}

}  // namespace perflens::scenario
