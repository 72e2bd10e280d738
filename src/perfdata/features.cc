// Feature-section decoders (tools/perf/util/header.c process_*; spec A5).
//
// Every read goes through ByteCursor. Counts read from the file are checked against the
// bytes left (times the smallest possible entry) before anything is reserved, so a
// hostile `nr` costs nothing. A feature is committed to HeaderEnv only when it decoded
// completely; the BUILD_ID table is the exception and keeps the entries read before a
// bad one (they are still useful for symbolization).
#include "perfdata/features.h"

#include "base/text_escape.h"

#include <cstring>
#include <string_view>
#include <utility>

namespace perflens {
namespace {

// u32 len + `len` NUL-padded bytes (perf_header's do_read_string).
Status ReadString(ByteCursor& c, std::string_view field, std::string* out) {
  uint32_t len = c.U32();
  if (c.failed()) return Err("{}: truncated before the string length", field);
  if (!c.Has(len)) return Err("{}: string length {} exceeds the {} bytes left", field, len, c.remaining());
  // Header strings are only printed (hostname, cmdline, ...): control bytes escaped.
  std::string_view v = c.FixedString(len);
  *out = HasControlChars(v) ? EscapeControl(v) : std::string(v);
  return Status::Ok();
}

Status ReadU32(ByteCursor& c, std::string_view field, uint32_t* out) {
  *out = c.U32();
  if (c.failed()) return Err("{}: truncated", field);
  return Status::Ok();
}

Status ReadU64(ByteCursor& c, std::string_view field, uint64_t* out) {
  *out = c.U64();
  if (c.failed()) return Err("{}: truncated", field);
  return Status::Ok();
}

// Entries the lists of one feature section may hold together. A count that fits the
// bytes can still cost 8-16x in memory (a 256 MB CMDLINE of empty strings was 64M
// std::strings, 2.5 GB); real sections hold a few thousand at most.
constexpr uint64_t kMaxFeatureEntries = 1 << 16;
// What is left of that for the section ParseFeature is decoding (one per thread).
thread_local uint64_t t_entries_left = kMaxFeatureEntries;

// Rejects `nr` entries of at least `min_entry` bytes each when they cannot fit, or when
// the section's lists would hold more than kMaxFeatureEntries in all.
Status CheckCount(const ByteCursor& c, std::string_view field, uint64_t nr, size_t min_entry) {
  if (min_entry != 0 && nr > c.remaining() / min_entry)
    return Err("{}: count {} (entries of at least {} bytes) does not fit the {} bytes left", field,
               nr, min_entry, c.remaining());
  if (nr > t_entries_left)
    return Err("{}: count {} takes the section past {} entries, more than any perf writes", field, nr,
               kMaxFeatureEntries);
  t_entries_left -= nr;
  return Status::Ok();
}

Status ReadStringList(ByteCursor& c, std::string_view field, std::vector<std::string>* out) {
  uint32_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, field, &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, field, nr, 4));
  out->clear();
  out->reserve(nr);
  for (uint32_t i = 0; i < nr; ++i) {
    std::string s;
    PERFLENS_RETURN_IF_ERROR(ReadString(c, field, &s));
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

Status ParseOptionalString(ByteCursor& c, std::string_view field, std::optional<std::string>* out) {
  std::string s;
  PERFLENS_RETURN_IF_ERROR(ReadString(c, field, &s));
  *out = std::move(s);
  return Status::Ok();
}

// Old (pre-2.6.35, commit a1645ce1) table: {header; u8 build_id[24]; filename}, no pid.
Status ParseBuildIdsOldLayout(ByteCursor c, HeaderEnv* env) {
  const Loader& ld = c.loader();
  while (c.remaining() > 0) {
    size_t start = c.pos();
    const uint8_t* h = c.Bytes(8);
    if (!h) return Err("build_id: truncated entry header at +{:#x}", start);
    uint16_t misc = ld.U16(h + 4), size = ld.U16(h + 6);
    if (size < 32 || size - 8u > c.remaining())
      return Err("build_id: bad entry size {} at +{:#x}", size, start);
    const uint8_t* id = c.Bytes(24);
    std::string_view name = c.FixedString(size - 32u);
    uint16_t cpumode = misc & kMiscCpumodeMask;
    bool guest = cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser;
    env->build_ids.push_back({misc, guest ? 0 : -1, BuildId::FromBytes(id, BuildId::kMaxSize), std::string(name)});
  }
  return Status::Ok();
}

Status ParseBuildIds(std::span<const uint8_t> p, const Loader& ld, HeaderEnv* env) {
  // perf re-reads the whole table with the old layout when an entry's filename reads as
  // "nel.kallsyms]": the missing pid shifted "[kernel.kallsyms]" by 4 bytes.
  std::vector<BuildIdEntry> entries;
  size_t pos = 0;
  while (pos < p.size()) {
    BuildIdEvent ev;
    size_t size = 0;
    if (p.size() - pos >= 36 + 13 && std::memcmp(p.data() + pos + 36, "nel.kallsyms]", 13) == 0)
      return ParseBuildIdsOldLayout(ByteCursor(p.data(), p.size(), ld), env);
    if (!DecodeBuildIdEntry(p.data() + pos, p.size() - pos, ld, &ev, &size)) {
      for (auto& e : entries) env->build_ids.push_back(std::move(e));
      return Err("build_id: malformed entry at +{:#x} ({} bytes left)", pos, p.size() - pos);
    }
    entries.push_back({ev.misc, ev.pid, ev.build_id, std::string(ev.filename)});
    pos += size;
  }
  for (auto& e : entries) env->build_ids.push_back(std::move(e));
  return Status::Ok();
}

Status ParseEventDesc(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr, attr_sz;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "event_desc nr", &nr));
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "event_desc attr_size", &attr_sz));
  if (attr_sz < 64) return Err("event_desc: attr size {} is below the 64-byte minimum", attr_sz);
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "event_desc nr", nr, size_t{attr_sz} + 8));
  std::vector<EventDesc> out;
  out.reserve(nr);
  for (uint32_t i = 0; i < nr; ++i) {
    EventDesc d;
    const uint8_t* a = c.Bytes(attr_sz);
    if (!a) return Err("event_desc[{}]: truncated attr", i);
    auto attr = ParseEventAttr({a, attr_sz}, c.loader());
    if (!attr) return Err("event_desc[{}]: {}", i, attr.error().message);
    d.attr = *attr;
    uint32_t nr_ids;
    PERFLENS_RETURN_IF_ERROR(ReadU32(c, "event_desc nr_ids", &nr_ids));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "event_desc name", &d.name));
    PERFLENS_RETURN_IF_ERROR(CheckCount(c, "event_desc nr_ids", nr_ids, 8));
    d.ids.reserve(nr_ids);
    for (uint32_t j = 0; j < nr_ids; ++j) d.ids.push_back(c.U64());
    out.push_back(std::move(d));
  }
  env->event_desc = std::move(out);
  return Status::Ok();
}

Status ParseCpuTopology(ByteCursor& c, HeaderEnv* env) {
  CpuTopology t;
  PERFLENS_RETURN_IF_ERROR(ReadStringList(c, "cpu_topology core siblings", &t.core_siblings));
  PERFLENS_RETURN_IF_ERROR(ReadStringList(c, "cpu_topology thread siblings", &t.thread_siblings));
  // Optional tails (perf >= 4.6 core/socket ids, >= 5.4 dies): present iff bytes remain.
  uint32_t ncpu = env->nr_cpus_avail.value_or(0);
  if (c.remaining() > 0 && ncpu > 0) {
    PERFLENS_RETURN_IF_ERROR(CheckCount(c, "cpu_topology core/socket ids", ncpu, 8));
    t.cpus.resize(ncpu);
    for (auto& cpu : t.cpus) {
      cpu.core_id = c.U32();
      cpu.socket_id = c.U32();
      cpu.die_id = 0;
    }
    if (c.remaining() > 0) {
      PERFLENS_RETURN_IF_ERROR(ReadStringList(c, "cpu_topology die siblings", &t.die_siblings));
      PERFLENS_RETURN_IF_ERROR(CheckCount(c, "cpu_topology die ids", ncpu, 4));
      for (auto& cpu : t.cpus) cpu.die_id = c.U32();
    }
  }
  env->cpu_topology = std::move(t);
  return Status::Ok();
}

Status ParseNumaTopology(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "numa_topology nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "numa_topology nr", nr, 24));
  std::vector<NumaNode> nodes(nr);
  for (auto& n : nodes) {
    n.node = c.U32();
    n.mem_total_kb = c.U64();
    n.mem_free_kb = c.U64();
    if (c.failed()) return Err("numa_topology: truncated node");
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "numa_topology cpus", &n.cpus));
  }
  env->numa_nodes = std::move(nodes);
  return Status::Ok();
}

Status ParsePmuMappings(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "pmu_mappings nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "pmu_mappings nr", nr, 8));
  std::vector<PmuMapping> maps(nr);
  for (auto& m : maps) {
    PERFLENS_RETURN_IF_ERROR(ReadU32(c, "pmu_mappings type", &m.type));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "pmu_mappings name", &m.name));
  }
  env->pmu_mappings = std::move(maps);
  return Status::Ok();
}

Status ParseGroupDesc(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "group_desc nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "group_desc nr", nr, 12));
  std::vector<GroupDesc> groups(nr);
  for (auto& g : groups) {
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "group_desc name", &g.name));
    PERFLENS_RETURN_IF_ERROR(ReadU32(c, "group_desc leader_idx", &g.leader_idx));
    PERFLENS_RETURN_IF_ERROR(ReadU32(c, "group_desc nr_members", &g.nr_members));
  }
  env->group_desc = std::move(groups);
  return Status::Ok();
}

Status ParseAuxtrace(ByteCursor& c, HeaderEnv* env) {
  uint64_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU64(c, "auxtrace nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "auxtrace nr", nr, 16));
  std::vector<std::pair<uint64_t, uint64_t>> index;
  index.reserve(nr);
  for (uint64_t i = 0; i < nr; ++i) {
    uint64_t off = c.U64(), size = c.U64();
    index.emplace_back(off, size);
  }
  env->auxtrace_index = std::move(index);
  return Status::Ok();
}

Status ParseCache(ByteCursor& c, HeaderEnv* env) {
  uint32_t version, nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "cache version", &version));
  if (version != 1) return Err("cache: unsupported version {}", version);
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "cache nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "cache nr", nr, 28));
  std::vector<CacheLevel> caches(nr);
  for (auto& l : caches) {
    l.level = c.U32();
    l.line_size = c.U32();
    l.sets = c.U32();
    l.ways = c.U32();
    if (c.failed()) return Err("cache: truncated level");
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "cache type", &l.type));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "cache size", &l.size));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "cache map", &l.map));
  }
  env->caches = std::move(caches);
  return Status::Ok();
}

Status ParseMemTopology(ByteCursor& c, HeaderEnv* env) {
  uint64_t version, bsize, nr;
  PERFLENS_RETURN_IF_ERROR(ReadU64(c, "mem_topology version", &version));
  if (version != 1) return Err("mem_topology: unsupported version {}", version);
  PERFLENS_RETURN_IF_ERROR(ReadU64(c, "mem_topology block_size", &bsize));
  PERFLENS_RETURN_IF_ERROR(ReadU64(c, "mem_topology nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "mem_topology nr", nr, 24));
  std::vector<MemTopologyNode> nodes(nr);
  for (auto& n : nodes) {
    n.node = c.U64();
    n.size = c.U64();
    n.nbits = c.U64();
    if (c.failed()) return Err("mem_topology: truncated node");
    uint64_t words = n.nbits / 64 + (n.nbits % 64 != 0);
    PERFLENS_RETURN_IF_ERROR(CheckCount(c, "mem_topology bitmap", words, 8));
    n.bitmap.reserve(words);
    for (uint64_t i = 0; i < words; ++i) n.bitmap.push_back(c.U64());
  }
  env->mem_block_size = bsize;
  env->mem_topology = std::move(nodes);
  return Status::Ok();
}

Status ParseBpfProgInfo(ByteCursor& c, HeaderEnv* env) {
  uint32_t count;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "bpf_prog_info count", &count));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "bpf_prog_info count", count, 16));
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t info_len = c.U32(), data_len = c.U32();
    c.U64();  // `arrays` bitmask
    if (c.failed() || !c.Skip(uint64_t{info_len} + data_len))
      return Err("bpf_prog_info[{}]: truncated (info {} + data {} bytes)", i, info_len, data_len);
  }
  env->bpf_prog_info_count = count;
  return Status::Ok();
}

Status ParseBpfBtf(ByteCursor& c, HeaderEnv* env) {
  uint32_t count;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "bpf_btf count", &count));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "bpf_btf count", count, 8));
  std::vector<uint32_t> ids;
  ids.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t id = c.U32(), size = c.U32();
    if (c.failed() || !c.Skip(size)) return Err("bpf_btf[{}]: truncated ({} data bytes)", i, size);
    ids.push_back(id);
  }
  env->bpf_btf_count = count;
  env->bpf_btf_ids = std::move(ids);
  return Status::Ok();
}

Status ReadCapList(ByteCursor& c, std::string_view field, uint32_t nr,
                   std::vector<std::pair<std::string, std::string>>* out) {
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, field, nr, 8));
  out->clear();
  out->reserve(nr);
  for (uint32_t i = 0; i < nr; ++i) {
    std::string name, value;
    PERFLENS_RETURN_IF_ERROR(ReadString(c, field, &name));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, field, &value));
    out->emplace_back(std::move(name), std::move(value));
  }
  return Status::Ok();
}

Status ParsePmuCaps(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr_pmu;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "pmu_caps nr_pmu", &nr_pmu));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "pmu_caps nr_pmu", nr_pmu, 8));
  std::vector<PmuCaps> pmus(nr_pmu);
  for (auto& pmu : pmus) {
    uint32_t nr_caps;
    PERFLENS_RETURN_IF_ERROR(ReadU32(c, "pmu_caps nr_caps", &nr_caps));
    PERFLENS_RETURN_IF_ERROR(ReadCapList(c, "pmu_caps cap", nr_caps, &pmu.caps));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "pmu_caps pmu_name", &pmu.pmu_name));
  }
  env->pmu_caps = std::move(pmus);
  return Status::Ok();
}

Status ParseHybridTopology(ByteCursor& c, HeaderEnv* env) {
  uint32_t nr;
  PERFLENS_RETURN_IF_ERROR(ReadU32(c, "hybrid_topology nr", &nr));
  PERFLENS_RETURN_IF_ERROR(CheckCount(c, "hybrid_topology nr", nr, 8));
  std::vector<HybridNode> nodes(nr);
  for (auto& n : nodes) {
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "hybrid_topology pmu_name", &n.pmu_name));
    PERFLENS_RETURN_IF_ERROR(ReadString(c, "hybrid_topology cpus", &n.cpus));
  }
  env->hybrid_topology = std::move(nodes);
  return Status::Ok();
}

}  // namespace

Status ParseFeature(int feature, std::span<const uint8_t> payload, const Loader& ld, HeaderEnv* env) {
  ByteCursor c(payload.data(), payload.size(), ld);
  t_entries_left = kMaxFeatureEntries;
  switch (feature) {
    case kFeatTracingData: return Status::Ok();  // PerfHeader parses it: its messages name the offset
    case kFeatBuildId: return ParseBuildIds(payload, ld, env);
    case kFeatHostname: return ParseOptionalString(c, "hostname", &env->hostname);
    case kFeatOsRelease: return ParseOptionalString(c, "osrelease", &env->osrelease);
    case kFeatVersion: return ParseOptionalString(c, "version", &env->version);
    case kFeatArch: return ParseOptionalString(c, "arch", &env->arch);
    case kFeatCpuDesc: return ParseOptionalString(c, "cpudesc", &env->cpudesc);
    case kFeatCpuId: return ParseOptionalString(c, "cpuid", &env->cpuid);
    case kFeatNrCpus: {
      // Avail first, then online (header.c process_nrcpus; the old doc had it reversed).
      uint32_t avail, online;
      PERFLENS_RETURN_IF_ERROR(ReadU32(c, "nrcpus avail", &avail));
      PERFLENS_RETURN_IF_ERROR(ReadU32(c, "nrcpus online", &online));
      env->nr_cpus_avail = avail;
      env->nr_cpus_online = online;
      return Status::Ok();
    }
    case kFeatTotalMem: {
      uint64_t kb;
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "total_mem", &kb));
      env->total_mem_kb = kb;
      return Status::Ok();
    }
    case kFeatCmdline: {
      std::vector<std::string> argv;
      PERFLENS_RETURN_IF_ERROR(ReadStringList(c, "cmdline", &argv));
      env->cmdline = std::move(argv);
      return Status::Ok();
    }
    case kFeatEventDesc: return ParseEventDesc(c, env);
    case kFeatCpuTopology: return ParseCpuTopology(c, env);
    case kFeatNumaTopology: return ParseNumaTopology(c, env);
    case kFeatBranchStack: env->branch_stack = true; return Status::Ok();
    case kFeatPmuMappings: return ParsePmuMappings(c, env);
    case kFeatGroupDesc: return ParseGroupDesc(c, env);
    case kFeatAuxtrace: return ParseAuxtrace(c, env);
    case kFeatStat: env->stat = true; return Status::Ok();
    case kFeatCache: return ParseCache(c, env);
    case kFeatSampleTime: {
      uint64_t first, last;
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "sample_time first", &first));
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "sample_time last", &last));
      env->first_sample_time = first;
      env->last_sample_time = last;
      return Status::Ok();
    }
    case kFeatMemTopology: return ParseMemTopology(c, env);
    case kFeatClockId: {
      uint64_t res;
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "clockid resolution", &res));
      env->clockid_res_ns = res;
      return Status::Ok();
    }
    case kFeatDirFormat: {
      uint64_t version;
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "dir_format version", &version));
      env->dir_format_version = version;
      return Status::Ok();
    }
    case kFeatBpfProgInfo: return ParseBpfProgInfo(c, env);
    case kFeatBpfBtf: return ParseBpfBtf(c, env);
    case kFeatCompressed: {
      HeaderEnv::Compressed z;
      z.version = c.U32();
      z.type = c.U32();
      z.level = c.U32();
      z.ratio = c.U32();
      z.mmap_len = c.U32();
      if (c.failed()) return Err("compressed: truncated ({} of 20 bytes)", payload.size());
      env->compressed = z;
      return Status::Ok();
    }
    case kFeatCpuPmuCaps: {
      uint32_t nr;
      std::vector<std::pair<std::string, std::string>> caps;
      PERFLENS_RETURN_IF_ERROR(ReadU32(c, "cpu_pmu_caps nr", &nr));
      PERFLENS_RETURN_IF_ERROR(ReadCapList(c, "cpu_pmu_caps cap", nr, &caps));
      env->cpu_pmu_caps = std::move(caps);
      return Status::Ok();
    }
    case kFeatClockData: {
      HeaderEnv::ClockData d;
      PERFLENS_RETURN_IF_ERROR(ReadU32(c, "clock_data version", &d.version));
      if (d.version != 1) return Err("clock_data: unsupported version {}", d.version);
      PERFLENS_RETURN_IF_ERROR(ReadU32(c, "clock_data clockid", &d.clockid));
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "clock_data wall_clock_ns", &d.wall_clock_ns));
      PERFLENS_RETURN_IF_ERROR(ReadU64(c, "clock_data clockid_time_ns", &d.clockid_time_ns));
      env->clock_data = d;
      return Status::Ok();
    }
    case kFeatHybridTopology: return ParseHybridTopology(c, env);
    case kFeatPmuCaps: return ParsePmuCaps(c, env);
    default: return Status::Ok();  // unknown feature: its index entry was still counted
  }
}

}  // namespace perflens
