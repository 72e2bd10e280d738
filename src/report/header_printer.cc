// perf report --header-only text (see header_printer.h for the sources and the known
// differences). Lines are built in feature-bit order, exactly as perf walks the
// feature bitmap; in pipe mode in the order the HEADER_FEATURE records arrived.
#include "report/header_printer.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <ctime>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace perflens {
namespace {

constexpr int kLastFeature = kFeatPmuCaps + 1;  // perf 6.1 HEADER_LAST_FEATURE

struct BitName {
  uint64_t bit;
  std::string_view name;
};

// perf's __p_bits: the names of set bits in table order, '|'-joined; unknown bits dropped.
std::string Bits(uint64_t value, std::initializer_list<BitName> names) {
  std::string out;
  for (const auto& b : names) {
    if (!(value & b.bit)) continue;
    if (!out.empty()) out += '|';
    out += b.name;
  }
  return out;
}

std::string SampleTypeNames(uint64_t v) {
  // perf's table order (IDENTIFIER before REGS_INTR; TRANSACTION is not listed).
  return Bits(v, {{kSampleIp, "IP"}, {kSampleTid, "TID"}, {kSampleTime, "TIME"},
                  {kSampleAddr, "ADDR"}, {kSampleRead, "READ"}, {kSampleCallchain, "CALLCHAIN"},
                  {kSampleId, "ID"}, {kSampleCpu, "CPU"}, {kSamplePeriod, "PERIOD"},
                  {kSampleStreamId, "STREAM_ID"}, {kSampleRaw, "RAW"},
                  {kSampleBranchStack, "BRANCH_STACK"}, {kSampleRegsUser, "REGS_USER"},
                  {kSampleStackUser, "STACK_USER"}, {kSampleIdentifier, "IDENTIFIER"},
                  {kSampleRegsIntr, "REGS_INTR"}, {kSampleDataSrc, "DATA_SRC"},
                  {kSampleWeight, "WEIGHT"}, {kSamplePhysAddr, "PHYS_ADDR"}, {kSampleAux, "AUX"},
                  {kSampleCgroup, "CGROUP"}, {kSampleDataPageSize, "DATA_PAGE_SIZE"},
                  {kSampleCodePageSize, "CODE_PAGE_SIZE"}, {kSampleWeightStruct, "WEIGHT_STRUCT"}});
}

std::string ReadFormatNames(uint64_t v) {
  return Bits(v, {{kReadTotalTimeEnabled, "TOTAL_TIME_ENABLED"},
                  {kReadTotalTimeRunning, "TOTAL_TIME_RUNNING"},
                  {kReadId, "ID"}, {kReadGroup, "GROUP"}, {kReadLost, "LOST"}});
}

std::string BranchSampleTypeNames(uint64_t v) {
  static constexpr std::string_view kNames[] = {
      "USER",   "KERNEL",   "HV",         "ANY",      "ANY_CALL", "ANY_RETURN", "IND_CALL",
      "ABORT_TX", "IN_TX",  "NO_TX",      "COND",     "CALL_STACK", "IND_JUMP", "CALL",
      "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE"};
  std::string out;
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (!((v >> i) & 1)) continue;
    if (!out.empty()) out += '|';
    out += kNames[i];
  }
  return out;
}

// The attr bitfield flags in perf_event_attr__fprintf order, by bit number.
constexpr std::pair<int, std::string_view> kFlagFields[] = {
    {0, "disabled"}, {1, "inherit"}, {2, "pinned"}, {3, "exclusive"}, {4, "exclude_user"},
    {5, "exclude_kernel"}, {6, "exclude_hv"}, {7, "exclude_idle"}, {8, "mmap"}, {9, "comm"},
    {10, "freq"}, {11, "inherit_stat"}, {12, "enable_on_exec"}, {13, "task"}, {14, "watermark"},
    {-1, "precise_ip"},  // two bits, printed as a number
    {17, "mmap_data"}, {18, "sample_id_all"}, {19, "exclude_host"}, {20, "exclude_guest"},
    {21, "exclude_callchain_kernel"}, {22, "exclude_callchain_user"}, {23, "mmap2"},
    {24, "comm_exec"}, {25, "use_clockid"}, {26, "context_switch"}, {27, "write_backward"},
    {28, "namespaces"}, {29, "ksymbol"}, {30, "bpf_event"}, {31, "aux_output"}, {32, "cgroup"},
    {33, "text_poke"}, {34, "build_id"}, {35, "inherit_thread"}, {36, "remove_on_exec"},
    {37, "sigtrap"}};

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

// timestamp__scnprintf_usec: seconds.microseconds, truncated.
std::string Usec(uint64_t ns) {
  uint64_t usecs = ns / 1000;
  return fmt::format("{}.{:06}", usecs / 1000000, usecs % 1000000);
}

std::string_view ClockidName(uint32_t id) {
  switch (id) {
    case 0: return "realtime";
    case 1: return "monotonic";
    case 4: return "monotonic_raw";
    case 7: return "boottime";
    case 11: return "tai";
    default: return "(not found)";
  }
}

// perf's bitmap_scnprintf: "0-3,8,10-11".
std::string BitmapRanges(const std::vector<uint64_t>& words, uint64_t nbits) {
  std::string out;
  uint64_t i = 0;
  auto test = [&](uint64_t b) { return b < nbits && b / 64 < words.size() && ((words[b / 64] >> (b % 64)) & 1); };
  while (i < nbits) {
    if (!test(i)) { ++i; continue; }
    uint64_t start = i;
    while (test(i + 1)) ++i;
    if (!out.empty()) out += ',';
    out += start == i ? fmt::format("{}", start) : fmt::format("{}-{}", start, i);
    ++i;
  }
  return out;
}

class Printer {
 public:
  Printer(const PerfFile& file, const HeaderFormatOptions& options)
      : file_(file), env_(file.env()), options_(options) {}

  std::string Run() {
    Line("# ========");
    if (file_.path() != "-") {
      struct stat st;
      if (stat(file_.path().c_str(), &st) == 0) {
        char buf[64];
        time_t t = st.st_mtime;
        if (ctime_r(&t, buf)) out_ += fmt::format("# captured on    : {}", buf);  // ends in \n
      }
    }
    bool pipe = file_.pipe_mode();
    Line(fmt::format("# header version : {}", file_.legacy_v1() ? 0 : 1));
    Line(fmt::format("# data offset    : {}", pipe ? 0 : file_.data_offset()));
    Line(fmt::format("# data size      : {}", pipe ? 0 : file_.data_size()));
    Line(fmt::format("# feat offset    : {}", pipe ? 0 : file_.data_offset() + file_.data_size()));
    // Pipe mode: perf prints the in-band features while it processes the stream, after
    // the header block is closed, and has no "missing features" line.
    if (pipe) Line("# ========\n#");
    for (int feat : env_.features_present) Feature(feat);
    if (!pipe) {
      std::string missing = "# missing features: ";
      for (int bit = 1; bit < kLastFeature; ++bit)
        if (!env_.Has(bit)) missing += Upper(FeatureName(bit)) + " ";
      Line(missing);
      Line("# ========\n#");
    }
    return std::move(out_);
  }

 private:
  void Line(std::string_view s) {
    out_ += s;
    out_ += '\n';
  }
  void Str(std::string_view label, const std::optional<std::string>& v) {
    Line(fmt::format("# {} : {}", label, v.value_or("")));
  }
  bool FullOnly(int feat) {
    if (options_.full) return false;
    Line(fmt::format("# {} info available, use -I to display", Upper(FeatureName(feat))));
    return true;
  }

  void Feature(int feat) {
    switch (feat) {
      case kFeatHostname: return Str("hostname", env_.hostname);
      case kFeatOsRelease: return Str("os release", env_.osrelease);
      case kFeatVersion: return Str("perf version", env_.version);
      case kFeatArch: return Str("arch", env_.arch);
      case kFeatNrCpus:
        Line(fmt::format("# nrcpus online : {}", env_.nr_cpus_online.value_or(0)));
        Line(fmt::format("# nrcpus avail : {}", env_.nr_cpus_avail.value_or(0)));
        return;
      case kFeatCpuDesc: return Str("cpudesc", env_.cpudesc);
      case kFeatCpuId: return Str("cpuid", env_.cpuid);
      case kFeatTotalMem: return Line(fmt::format("# total memory : {} kB", env_.total_mem_kb.value_or(0)));
      case kFeatCmdline: return Cmdline();
      case kFeatEventDesc: return EventDescs();
      case kFeatCpuTopology: if (!FullOnly(feat)) CpuTopo(); return;
      case kFeatNumaTopology: if (!FullOnly(feat)) Numa(); return;
      case kFeatBranchStack: return Line("# contains samples with branch stack");
      case kFeatPmuMappings: return PmuMappings();
      case kFeatGroupDesc: return Groups();
      case kFeatAuxtrace: return Line("# contains AUX area data (e.g. instruction trace)");
      case kFeatStat: return Line("# contains stat data");
      case kFeatCache: if (!FullOnly(feat)) Caches(); return;
      case kFeatSampleTime: return SampleTime();
      case kFeatMemTopology: if (!FullOnly(feat)) MemTopo(); return;
      case kFeatClockId:
        return Line(fmt::format("# clockid frequency: {} MHz", env_.clockid_res_ns.value_or(0) * 1000));
      case kFeatDirFormat:
        return Line(fmt::format("# directory data version : {}", env_.dir_format_version.value_or(0)));
      case kFeatBpfProgInfo:
        if (env_.bpf_prog_info_count > 0)
          Line(fmt::format("# bpf_prog_info: {} programs (not decoded)", env_.bpf_prog_info_count));
        return;
      case kFeatBpfBtf:
        for (uint32_t id : env_.bpf_btf_ids) Line(fmt::format("# btf info of id {}", id));
        return;
      case kFeatCompressed:
        if (env_.compressed)
          Line(fmt::format("# compressed : {}, level = {}, ratio = {}",
                           env_.compressed->type == 1 ? "Zstd" : "Unknown",
                           static_cast<int32_t>(env_.compressed->level),
                           static_cast<int32_t>(env_.compressed->ratio)));
        return;
      case kFeatCpuPmuCaps: return PmuCapsLine("cpu", env_.cpu_pmu_caps);
      case kFeatClockData: return ClockData();
      case kFeatHybridTopology:
        if (FullOnly(feat)) return;
        Line("# hybrid cpu system:");
        for (const auto& n : env_.hybrid_topology) Line(fmt::format("# {} cpu list : {}", n.pmu_name, n.cpus));
        return;
      case kFeatPmuCaps:
        for (const auto& p : env_.pmu_caps) PmuCapsLine(p.pmu_name, p.caps);
        return;
      default: return;  // TRACING_DATA and BUILD_ID print nothing; unknown bits neither
    }
  }

  void Cmdline() {
    // perf escapes single quotes as \' and ends every argument with a space.
    std::string line = "# cmdline : ";
    for (const auto& arg : env_.cmdline) {
      for (char ch : arg) {
        if (ch == '\'') line += "\\'";
        else line += ch;
      }
      line += ' ';
    }
    Line(line);
  }

  void EventDescs() {
    if (env_.event_desc.empty()) return Line("# event desc: not available or unable to read");
    for (const auto& d : env_.event_desc) {
      // The doubled ", , " is perf's: "name = %s, " followed by ", id = {".
      std::string line = fmt::format("# event : name = {}, ", d.name);
      if (!d.ids.empty()) {
        line += ", id = {";
        for (size_t i = 0; i < d.ids.size(); ++i) line += fmt::format("{} {}", i ? "," : "", d.ids[i]);
        line += " }";
      }
      line += FormatEventAttrFields(d.attr);
      Line(line);
    }
  }

  void CpuTopo() {
    if (!env_.cpu_topology) return;
    const CpuTopology& t = *env_.cpu_topology;
    for (const auto& s : t.core_siblings) Line(fmt::format("# sibling sockets : {}", s));
    bool dies = !t.die_siblings.empty();
    for (const auto& s : t.die_siblings) Line(fmt::format("# sibling dies    : {}", s));
    for (const auto& s : t.thread_siblings) Line(fmt::format("# sibling threads : {}", s));
    if (t.cpus.empty()) {
      Line(dies ? "# Core ID, Die ID and Socket ID information is not available"
                : "# Core ID and Socket ID information is not available");
      return;
    }
    for (size_t i = 0; i < t.cpus.size(); ++i) {
      const auto& c = t.cpus[i];
      if (dies)
        Line(fmt::format("# CPU {}: Core ID {}, Die ID {}, Socket ID {}", i, static_cast<int32_t>(c.core_id),
                         static_cast<int32_t>(c.die_id), static_cast<int32_t>(c.socket_id)));
      else
        Line(fmt::format("# CPU {}: Core ID {}, Socket ID {}", i, static_cast<int32_t>(c.core_id),
                         static_cast<int32_t>(c.socket_id)));
    }
  }

  void Numa() {
    for (const auto& n : env_.numa_nodes) {
      Line(fmt::format("# node{} meminfo  : total = {} kB, free = {} kB", n.node, n.mem_total_kb, n.mem_free_kb));
      Line(fmt::format("# node{} cpu list : {}", n.node, n.cpus));
    }
  }

  void PmuMappings() {
    if (env_.pmu_mappings.empty()) return Line("# pmu mappings: not available");
    std::string line = "# pmu mappings: ";
    for (size_t i = 0; i < env_.pmu_mappings.size(); ++i)
      line += fmt::format("{}{} = {}", i ? ", " : "", env_.pmu_mappings[i].name, env_.pmu_mappings[i].type);
    Line(line);
  }

  void Groups() {
    // perf walks the evsels: a leader with nr_members > 1 opens "{", members follow.
    const auto& evsels = file_.evsels();
    std::vector<GroupDesc> groups = env_.group_desc;
    std::stable_sort(groups.begin(), groups.end(),
                     [](const GroupDesc& a, const GroupDesc& b) { return a.leader_idx < b.leader_idx; });
    for (const auto& g : groups) {
      if (g.nr_members <= 1 || g.leader_idx >= evsels.size()) continue;
      std::string line = fmt::format("# group: {}{{", g.name == "{anon_group}" ? "" : g.name);
      for (uint64_t i = g.leader_idx; i < uint64_t{g.leader_idx} + g.nr_members && i < evsels.size(); ++i)
        line += (i == g.leader_idx ? "" : ",") + evsels[i].name;
      Line(line + "}");
    }
  }

  void Caches() {
    Line("# CPU cache info:");
    for (const auto& c : env_.caches)
      Line(fmt::format("#  L{} {:<15} {:>8} [{}]", c.level, c.type, c.size, c.map));
  }

  void SampleTime() {
    uint64_t first = env_.first_sample_time.value_or(0), last = env_.last_sample_time.value_or(0);
    Line("# time of first sample : " + Usec(first));
    Line("# time of last sample : " + Usec(last));
    // perf computes (double)(last - first) in u64, so last < first wraps the same way.
    Line(fmt::format("# sample duration : {:10.3f} ms", static_cast<double>(last - first) / 1e6));
  }

  void MemTopo() {
    uint64_t bsize = env_.mem_block_size.value_or(0);
    Line(fmt::format("# memory nodes (nr {}, block size {:#x}):", env_.mem_topology.size(), bsize));
    for (const auto& n : env_.mem_topology) {
      uint64_t blocks = 0;
      for (uint64_t w : n.bitmap) blocks += std::popcount(w);
      // unit_number__scnprintf: divide by 1024 while the quotient stays above 1, up to G.
      uint64_t size = bsize * blocks;
      static constexpr char kUnits[] = "BKMG";
      int u = 0;
      while (size / 1024 > 1 && u < 3) {
        size /= 1024;
        ++u;
      }
      Line(fmt::format("#  {:3} [{}{}]: {}", n.node, size, kUnits[u], BitmapRanges(n.bitmap, n.nbits)));
    }
  }

  void PmuCapsLine(std::string_view pmu, const std::vector<std::pair<std::string, std::string>>& caps) {
    if (caps.empty()) return Line(fmt::format("# {} pmu capabilities: not available", pmu));
    std::string line = fmt::format("# {} pmu capabilities: ", pmu);
    for (size_t i = 0; i < caps.size(); ++i)
      line += fmt::format("{}{}={}", i ? ", " : "", caps[i].first, caps[i].second);
    Line(line);
  }

  void ClockData() {
    if (!env_.clock_data) return Line("# reference time disabled");
    const auto& d = *env_.clock_data;
    time_t tod_sec = static_cast<time_t>(d.wall_clock_ns / 1000000000);
    uint64_t tod_usec = d.wall_clock_ns % 1000000000 / 1000;
    std::string tstr = "<error>";
    struct tm ltime;
    if (localtime_r(&tod_sec, &ltime)) {
      char date[64];
      strftime(date, sizeof(date), "%F %T", &ltime);
      tstr = fmt::format("{}.{:06}", date, tod_usec);
    }
    Line(fmt::format("# clockid: {} ({})", ClockidName(d.clockid), d.clockid));
    Line(fmt::format("# reference time: {} = {}.{:06} (TOD) = {}.{:09} ({})", tstr,
                     static_cast<int64_t>(tod_sec), tod_usec, d.clockid_time_ns / 1000000000,
                     d.clockid_time_ns % 1000000000, ClockidName(d.clockid)));
  }

  const PerfFile& file_;
  const HeaderEnv& env_;
  HeaderFormatOptions options_;
  std::string out_;
};

}  // namespace

std::string FormatEventAttrFields(const EventAttr& a) {
  // perf_event_attr__fprintf: only non-zero fields, each as ", name = value".
  std::string out;
  auto num = [&](std::string_view name, uint64_t v) {
    if (v) out += fmt::format(", {} = {}", name, v);
  };
  auto hex = [&](std::string_view name, uint64_t v) {
    if (v) out += fmt::format(", {} = {:#x}", name, v);
  };
  auto str = [&](std::string_view name, uint64_t v, const std::string& s) {
    if (v) out += fmt::format(", {} = {}", name, s);
  };
  num("type", a.type);
  num("size", a.size);
  hex("config", a.config);
  num("{ sample_period, sample_freq }", a.sample_period);
  str("sample_type", a.sample_type, SampleTypeNames(a.sample_type));
  str("read_format", a.read_format, ReadFormatNames(a.read_format));
  for (const auto& [bit, name] : kFlagFields) num(name, bit < 0 ? a.precise_ip() : a.Flag(bit));
  num("{ wakeup_events, wakeup_watermark }", a.wakeup_events);
  num("bp_type", a.bp_type);
  hex("{ bp_addr, config1 }", a.config1);
  hex("{ bp_len, config2 }", a.config2);
  str("branch_sample_type", a.branch_sample_type, BranchSampleTypeNames(a.branch_sample_type));
  hex("sample_regs_user", a.sample_regs_user);
  num("sample_stack_user", a.sample_stack_user);
  if (a.clockid) out += fmt::format(", clockid = {}", a.clockid);
  hex("sample_regs_intr", a.sample_regs_intr);
  num("aux_watermark", a.aux_watermark);
  num("sample_max_stack", a.sample_max_stack);
  num("aux_sample_size", a.aux_sample_size);
  num("sig_data", a.sig_data);
  return out;
}

std::string FormatHeader(const PerfFile& file, const HeaderFormatOptions& options) {
  return Printer(file, options).Run();
}

}  // namespace perflens
