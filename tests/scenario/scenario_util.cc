#include "scenario_util.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
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
  static int counter = 0;
  std::string base = scratch_dir + "/.cmd" + std::to_string(counter++);
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

ParsedReport WithoutDso(const ParsedReport& report) {
  ParsedReport out;
  out.header_samples = report.header_samples;
  for (const auto& [key, n] : report.samples) {
    const auto& [ev, comm, dso, sym] = key;
    out.samples[{ev, comm, "", sym}] += n;
  }
  return out;
}

Agreement Compare(const ParsedReport& perf, const ParsedReport& perflens) {
  Agreement a;
  a.perf_samples = perf.TotalSamples();
  a.perflens_samples = perflens.TotalSamples();
  std::map<RowKey, std::pair<long, long>> both;
  for (const auto& [k, n] : perf.samples) both[k].first = n;
  for (const auto& [k, n] : perflens.samples) both[k].second = n;
  std::vector<std::pair<long, std::string>> diffs;
  for (const auto& [k, pn] : both) {
    a.agreeing += std::min(pn.first, pn.second);
    if (pn.first != pn.second) {
      const auto& [ev, comm, dso, sym] = k;
      diffs.push_back({std::labs(pn.first - pn.second),
                       "  perf " + std::to_string(pn.first) + "  perflens " +
                           std::to_string(pn.second) + "  " + ev + " | " + comm + " | " +
                           dso + " | " + sym + "\n"});
    }
  }
  std::stable_sort(diffs.begin(), diffs.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (size_t i = 0; i < diffs.size() && i < 10; i++) a.worst += diffs[i].second;
  a.percent = a.perf_samples ? 100.0 * a.agreeing / a.perf_samples : 0;
  return a;
}

}  // namespace perflens::scenario
