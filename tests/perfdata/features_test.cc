// Feature-section decoding (spec A5): payloads are built in memory in both byte orders,
// every decoded field is checked, and malformed variants (truncated, hostile counts)
// must fail cleanly.
#include <bit>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "perfdata/features.h"
#include "perfdata/perf_event.h"

namespace perflens {
namespace {

// Writes integers in the chosen byte order; strings the way perf's do_write_string does.
class Writer {
 public:
  explicit Writer(bool big_endian) : big_(big_endian) {}

  Writer& Int(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      int shift = big_ ? 8 * (n - 1 - i) : 8 * i;
      buf_.push_back(static_cast<uint8_t>(v >> shift));
    }
    return *this;
  }
  Writer& U8(uint8_t v) { return Int(v, 1); }
  Writer& U16(uint16_t v) { return Int(v, 2); }
  Writer& U32(uint32_t v) { return Int(v, 4); }
  Writer& U64(uint64_t v) { return Int(v, 8); }
  // u32 len + NUL-padded bytes; len = strlen+1 rounded up to `align` (NAME_ALIGN = 64).
  Writer& Str(std::string_view s, size_t align = 64) {
    size_t len = (s.size() + 1 + align - 1) / align * align;
    U32(static_cast<uint32_t>(len));
    buf_.insert(buf_.end(), s.begin(), s.end());
    buf_.resize(buf_.size() + len - s.size(), 0);
    return *this;
  }
  Writer& Raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
    return *this;
  }
  Writer& Zeros(size_t n) {
    buf_.resize(buf_.size() + n, 0);
    return *this;
  }
  size_t size() const { return buf_.size(); }
  std::vector<uint8_t>& bytes() { return buf_; }

 private:
  bool big_;
  std::vector<uint8_t> buf_;
};

uint64_t ReverseBitsInBytes(uint64_t v) {
  // A big-endian writer's bitfield: flag n lands at bit 63-n of the big-endian u64.
  uint64_t out = 0;
  for (int i = 0; i < 64; ++i)
    if ((v >> i) & 1) out |= 1ULL << (63 - i);
  return out;
}

class FeaturesTest : public ::testing::TestWithParam<bool> {
 protected:
  bool big() const { return GetParam(); }
  Writer W() const { return Writer(big()); }
  Loader ld() const { return Loader{big() != (std::endian::native == std::endian::big)}; }
  Status Parse(int feat, Writer& w) { return ParseFeature(feat, {w.bytes().data(), w.size()}, ld(), &env_); }
  Status Parse(int feat, const std::vector<uint8_t>& b) { return ParseFeature(feat, {b.data(), b.size()}, ld(), &env_); }

  // A 128-byte perf_event_attr with a few fields set.
  void WriteAttr(Writer& w, uint32_t type, uint64_t config, uint64_t flags) const {
    size_t start = w.size();
    w.U32(type).U32(128).U64(config).U64(4000).U64(kSampleIp | kSampleTid | kSamplePeriod).U64(kReadId);
    w.U64(big() ? ReverseBitsInBytes(flags) : flags);
    w.Zeros(128 - (w.size() - start));
  }

  HeaderEnv env_;
};

TEST_P(FeaturesTest, Strings) {
  const std::pair<int, std::optional<std::string> HeaderEnv::*> cases[] = {
      {kFeatHostname, &HeaderEnv::hostname}, {kFeatOsRelease, &HeaderEnv::osrelease},
      {kFeatVersion, &HeaderEnv::version},   {kFeatArch, &HeaderEnv::arch},
      {kFeatCpuDesc, &HeaderEnv::cpudesc},   {kFeatCpuId, &HeaderEnv::cpuid}};
  for (const auto& [feat, field] : cases) {
    Writer w = W();
    w.Str("value-" + std::to_string(feat));
    ASSERT_TRUE(Parse(feat, w).ok()) << feat;
    EXPECT_EQ(env_.*field, "value-" + std::to_string(feat));
  }
  Writer empty = W();
  empty.Str("");
  ASSERT_TRUE(Parse(kFeatVersion, empty).ok());
  EXPECT_EQ(env_.version, "");
}

TEST_P(FeaturesTest, NrCpusIsAvailThenOnline) {
  Writer w = W();
  w.U32(8).U32(4);
  ASSERT_TRUE(Parse(kFeatNrCpus, w).ok());
  EXPECT_EQ(env_.nr_cpus_avail, 8u);
  EXPECT_EQ(env_.nr_cpus_online, 4u);
}

TEST_P(FeaturesTest, TotalMemAndCmdline) {
  Writer m = W();
  m.U64(16299868);
  ASSERT_TRUE(Parse(kFeatTotalMem, m).ok());
  EXPECT_EQ(env_.total_mem_kb, 16299868u);

  Writer c = W();
  c.U32(3).Str("/usr/bin/perf").Str("record").Str("-g");
  ASSERT_TRUE(Parse(kFeatCmdline, c).ok());
  EXPECT_EQ(env_.cmdline, (std::vector<std::string>{"/usr/bin/perf", "record", "-g"}));
}

TEST_P(FeaturesTest, EventDesc) {
  Writer w = W();
  w.U32(2).U32(128);
  WriteAttr(w, 0, 0, (1 << 0) | (1 << 10) | (1ULL << 18));  // disabled, freq, sample_id_all
  w.U32(2).Str("cycles:u").U64(11).U64(12);
  WriteAttr(w, 1, 9, 1 << 5);  // dummy, exclude_kernel
  w.U32(0).Str("dummy:u");
  ASSERT_TRUE(Parse(kFeatEventDesc, w).ok());
  ASSERT_EQ(env_.event_desc.size(), 2u);
  const EventDesc& a = env_.event_desc[0];
  EXPECT_EQ(a.name, "cycles:u");
  EXPECT_EQ(a.ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(a.attr.type, 0u);
  EXPECT_EQ(a.attr.size, 128u);
  EXPECT_EQ(a.attr.sample_period, 4000u);
  EXPECT_EQ(a.attr.sample_type, kSampleIp | kSampleTid | kSamplePeriod);
  EXPECT_EQ(a.attr.read_format, kReadId);
  EXPECT_TRUE(a.attr.disabled());
  EXPECT_TRUE(a.attr.freq());
  EXPECT_TRUE(a.attr.sample_id_all());
  EXPECT_FALSE(a.attr.exclude_kernel());
  const EventDesc& b = env_.event_desc[1];
  EXPECT_EQ(b.name, "dummy:u");
  EXPECT_TRUE(b.ids.empty());
  EXPECT_EQ(b.attr.type, 1u);
  EXPECT_EQ(b.attr.config, 9u);
  EXPECT_TRUE(b.attr.exclude_kernel());
  EXPECT_FALSE(b.attr.disabled());
}

TEST_P(FeaturesTest, CpuTopologyWithAndWithoutTails) {
  env_.nr_cpus_avail = 2;
  Writer bare = W();
  bare.U32(1).Str("0-1").U32(2).Str("0").Str("1");
  ASSERT_TRUE(Parse(kFeatCpuTopology, bare).ok());
  ASSERT_TRUE(env_.cpu_topology);
  EXPECT_EQ(env_.cpu_topology->core_siblings, (std::vector<std::string>{"0-1"}));
  EXPECT_EQ(env_.cpu_topology->thread_siblings, (std::vector<std::string>{"0", "1"}));
  EXPECT_TRUE(env_.cpu_topology->cpus.empty());

  Writer full = W();
  full.U32(1).Str("0-1").U32(2).Str("0").Str("1");
  full.U32(3).U32(0).U32(5).U32(1);  // {core_id, socket_id} per cpu
  full.U32(1).Str("0-1").U32(7).U32(8);  // die siblings, die ids
  ASSERT_TRUE(Parse(kFeatCpuTopology, full).ok());
  const CpuTopology& t = *env_.cpu_topology;
  ASSERT_EQ(t.cpus.size(), 2u);
  EXPECT_EQ(t.cpus[0].core_id, 3u);
  EXPECT_EQ(t.cpus[0].socket_id, 0u);
  EXPECT_EQ(t.cpus[0].die_id, 7u);
  EXPECT_EQ(t.cpus[1].core_id, 5u);
  EXPECT_EQ(t.cpus[1].socket_id, 1u);
  EXPECT_EQ(t.cpus[1].die_id, 8u);
  EXPECT_EQ(t.die_siblings, (std::vector<std::string>{"0-1"}));

  // A hostile NRCPUS must not size the tail.
  env_.nr_cpus_avail = 0x40000000;
  EXPECT_FALSE(Parse(kFeatCpuTopology, full).ok());
}

TEST_P(FeaturesTest, NumaPmuGroupAuxtrace) {
  Writer n = W();
  n.U32(2).U32(0).U64(1000).U64(500).Str("0-3").U32(1).U64(2000).U64(700).Str("4-7");
  ASSERT_TRUE(Parse(kFeatNumaTopology, n).ok());
  ASSERT_EQ(env_.numa_nodes.size(), 2u);
  EXPECT_EQ(env_.numa_nodes[1].node, 1u);
  EXPECT_EQ(env_.numa_nodes[1].mem_total_kb, 2000u);
  EXPECT_EQ(env_.numa_nodes[1].mem_free_kb, 700u);
  EXPECT_EQ(env_.numa_nodes[1].cpus, "4-7");

  Writer p = W();
  p.U32(2).U32(4).Str("cpu").U32(0xfffffffe).Str("tool");
  ASSERT_TRUE(Parse(kFeatPmuMappings, p).ok());
  ASSERT_EQ(env_.pmu_mappings.size(), 2u);
  EXPECT_EQ(env_.pmu_mappings[0].type, 4u);
  EXPECT_EQ(env_.pmu_mappings[0].name, "cpu");
  EXPECT_EQ(env_.pmu_mappings[1].type, 0xfffffffeu);

  Writer g = W();
  g.U32(1).Str("{anon_group}").U32(0).U32(2);
  ASSERT_TRUE(Parse(kFeatGroupDesc, g).ok());
  ASSERT_EQ(env_.group_desc.size(), 1u);
  EXPECT_EQ(env_.group_desc[0].name, "{anon_group}");
  EXPECT_EQ(env_.group_desc[0].leader_idx, 0u);
  EXPECT_EQ(env_.group_desc[0].nr_members, 2u);

  Writer a = W();
  a.U64(2).U64(0x1000).U64(0x200).U64(0x3000).U64(0x400);
  ASSERT_TRUE(Parse(kFeatAuxtrace, a).ok());
  EXPECT_EQ(env_.auxtrace_index,
            (std::vector<std::pair<uint64_t, uint64_t>>{{0x1000, 0x200}, {0x3000, 0x400}}));

  Writer empty = W();
  ASSERT_TRUE(Parse(kFeatBranchStack, empty).ok());
  ASSERT_TRUE(Parse(kFeatStat, empty).ok());
  EXPECT_TRUE(env_.branch_stack);
  EXPECT_TRUE(env_.stat);
}

TEST_P(FeaturesTest, CacheSampleTimeMemTopology) {
  Writer c = W();
  c.U32(1).U32(2);
  c.U32(1).U32(64).U32(64).U32(8).Str("Data").Str("32K").Str("0,4");
  c.U32(3).U32(64).U32(8192).U32(16).Str("Unified").Str("8192K").Str("0-7");
  ASSERT_TRUE(Parse(kFeatCache, c).ok());
  ASSERT_EQ(env_.caches.size(), 2u);
  EXPECT_EQ(env_.caches[1].level, 3u);
  EXPECT_EQ(env_.caches[1].line_size, 64u);
  EXPECT_EQ(env_.caches[1].sets, 8192u);
  EXPECT_EQ(env_.caches[1].ways, 16u);
  EXPECT_EQ(env_.caches[1].type, "Unified");
  EXPECT_EQ(env_.caches[1].size, "8192K");
  EXPECT_EQ(env_.caches[1].map, "0-7");
  Writer bad_version = W();
  bad_version.U32(2).U32(0);
  EXPECT_FALSE(Parse(kFeatCache, bad_version).ok());

  Writer t = W();
  t.U64(101132490000).U64(101132592000);
  ASSERT_TRUE(Parse(kFeatSampleTime, t).ok());
  EXPECT_EQ(env_.first_sample_time, 101132490000u);
  EXPECT_EQ(env_.last_sample_time, 101132592000u);

  Writer m = W();
  m.U64(1).U64(0x8000000).U64(1);
  m.U64(0).U64(70).U64(70).U64(0xffffffffffffffff).U64(0x3f);
  ASSERT_TRUE(Parse(kFeatMemTopology, m).ok());
  EXPECT_EQ(env_.mem_block_size, 0x8000000u);
  ASSERT_EQ(env_.mem_topology.size(), 1u);
  EXPECT_EQ(env_.mem_topology[0].size, 70u);
  EXPECT_EQ(env_.mem_topology[0].nbits, 70u);
  EXPECT_EQ(env_.mem_topology[0].bitmap, (std::vector<uint64_t>{0xffffffffffffffff, 0x3f}));
}

TEST_P(FeaturesTest, ScalarsBpfCompressedClock) {
  Writer ck = W();
  ck.U64(1);
  ASSERT_TRUE(Parse(kFeatClockId, ck).ok());
  EXPECT_EQ(env_.clockid_res_ns, 1u);
  Writer dir = W();
  dir.U64(1);
  ASSERT_TRUE(Parse(kFeatDirFormat, dir).ok());
  EXPECT_EQ(env_.dir_format_version, 1u);

  Writer bpf = W();
  bpf.U32(2).U32(4).U32(8).U64(0).Zeros(12).U32(0).U32(0).U64(0);
  ASSERT_TRUE(Parse(kFeatBpfProgInfo, bpf).ok());
  EXPECT_EQ(env_.bpf_prog_info_count, 2u);
  Writer btf = W();
  btf.U32(2).U32(7).U32(3).Zeros(3).U32(9).U32(0);
  ASSERT_TRUE(Parse(kFeatBpfBtf, btf).ok());
  EXPECT_EQ(env_.bpf_btf_count, 2u);
  EXPECT_EQ(env_.bpf_btf_ids, (std::vector<uint32_t>{7, 9}));

  Writer z = W();
  z.U32(1).U32(1).U32(3).U32(5).U32(0x82000);
  ASSERT_TRUE(Parse(kFeatCompressed, z).ok());
  ASSERT_TRUE(env_.compressed);
  EXPECT_EQ(env_.compressed->version, 1u);
  EXPECT_EQ(env_.compressed->type, 1u);
  EXPECT_EQ(env_.compressed->level, 3u);
  EXPECT_EQ(env_.compressed->ratio, 5u);
  EXPECT_EQ(env_.compressed->mmap_len, 0x82000u);

  Writer cd = W();
  cd.U32(1).U32(1).U64(1767545218014657000).U64(405068949598);
  ASSERT_TRUE(Parse(kFeatClockData, cd).ok());
  ASSERT_TRUE(env_.clock_data);
  EXPECT_EQ(env_.clock_data->clockid, 1u);
  EXPECT_EQ(env_.clock_data->wall_clock_ns, 1767545218014657000u);
  EXPECT_EQ(env_.clock_data->clockid_time_ns, 405068949598u);
  Writer cd2 = W();
  cd2.U32(2).U32(1).U64(0).U64(0);
  EXPECT_FALSE(Parse(kFeatClockData, cd2).ok());
}

TEST_P(FeaturesTest, PmuCapsAndHybrid) {
  Writer c = W();
  c.U32(2).Str("branches").Str("32").Str("pmu_name").Str("skylake");
  ASSERT_TRUE(Parse(kFeatCpuPmuCaps, c).ok());
  EXPECT_EQ(env_.cpu_pmu_caps, (std::vector<std::pair<std::string, std::string>>{
                                   {"branches", "32"}, {"pmu_name", "skylake"}}));

  Writer p = W();
  p.U32(2);
  p.U32(1).Str("max_precise").Str("3").Str("cpu_core");
  p.U32(0).Str("cpu_atom");
  ASSERT_TRUE(Parse(kFeatPmuCaps, p).ok());
  ASSERT_EQ(env_.pmu_caps.size(), 2u);
  EXPECT_EQ(env_.pmu_caps[0].pmu_name, "cpu_core");
  EXPECT_EQ(env_.pmu_caps[0].caps, (std::vector<std::pair<std::string, std::string>>{{"max_precise", "3"}}));
  EXPECT_EQ(env_.pmu_caps[1].pmu_name, "cpu_atom");
  EXPECT_TRUE(env_.pmu_caps[1].caps.empty());

  Writer h = W();
  h.U32(2).Str("cpu_core").Str("0-3").Str("cpu_atom").Str("4-11");
  ASSERT_TRUE(Parse(kFeatHybridTopology, h).ok());
  ASSERT_EQ(env_.hybrid_topology.size(), 2u);
  EXPECT_EQ(env_.hybrid_topology[1].pmu_name, "cpu_atom");
  EXPECT_EQ(env_.hybrid_topology[1].cpus, "4-11");
}

// One build-id entry in the current layout; `id_size` < 20 sets the size byte.
void WriteBuildId(Writer& w, uint16_t misc, int32_t pid, uint8_t fill, size_t id_size, std::string_view name) {
  size_t name_len = (name.size() + 1 + 63) / 64 * 64;
  if (id_size != 20) misc |= kMiscBuildIdSize;
  w.U32(0).U16(misc).U16(static_cast<uint16_t>(36 + name_len)).U32(static_cast<uint32_t>(pid));
  for (size_t i = 0; i < 20; ++i) w.U8(i < id_size ? static_cast<uint8_t>(fill + i) : 0);
  w.U8(id_size != 20 ? static_cast<uint8_t>(id_size) : 0).Zeros(3);
  w.Raw(name.data(), name.size()).Zeros(name_len - name.size());
}

TEST_P(FeaturesTest, BuildIds) {
  Writer w = W();
  WriteBuildId(w, kMiscKernel, -1, 0x10, 20, "[kernel.kallsyms]");
  WriteBuildId(w, kMiscUser, -1, 0xa0, 16, "/usr/lib/libc.so.6");
  WriteBuildId(w, kMiscGuestUser, 42, 0x01, 20, "[vdso]");
  ASSERT_TRUE(Parse(kFeatBuildId, w).ok());
  ASSERT_EQ(env_.build_ids.size(), 3u);
  EXPECT_EQ(env_.build_ids[0].filename, "[kernel.kallsyms]");
  EXPECT_EQ(env_.build_ids[0].pid, -1);
  EXPECT_EQ(env_.build_ids[0].build_id.size, 20);
  EXPECT_EQ(env_.build_ids[0].build_id.ToHex(), "101112131415161718191a1b1c1d1e1f20212223");
  EXPECT_EQ(env_.build_ids[1].build_id.size, 16);
  EXPECT_EQ(env_.build_ids[1].build_id.ToHex(), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
  EXPECT_EQ(env_.build_ids[1].misc & kMiscCpumodeMask, kMiscUser);
  EXPECT_EQ(env_.build_ids[2].pid, 42);
  EXPECT_EQ(env_.build_ids[2].filename, "[vdso]");
}

TEST_P(FeaturesTest, BuildIdsOldLayoutWithoutPid) {
  // Pre-a1645ce1: {header; u8 build_id[24]; filename}. Read with the new layout, the
  // first name shows as "nel.kallsyms]", which is how perf detects it.
  auto old_entry = [&](Writer& w, uint16_t misc, uint8_t fill, std::string_view name) {
    w.U32(0).U16(misc).U16(static_cast<uint16_t>(32 + 64));
    for (int i = 0; i < 24; ++i) w.U8(static_cast<uint8_t>(i < 20 ? fill + i : 0));
    w.Raw(name.data(), name.size()).Zeros(64 - name.size());
  };
  Writer w = W();
  old_entry(w, kMiscKernel, 0x30, "[kernel.kallsyms]");
  old_entry(w, kMiscGuestKernel, 0x50, "[guest.kernel.kallsyms]");
  ASSERT_TRUE(Parse(kFeatBuildId, w).ok());
  ASSERT_EQ(env_.build_ids.size(), 2u);
  EXPECT_EQ(env_.build_ids[0].filename, "[kernel.kallsyms]");
  EXPECT_EQ(env_.build_ids[0].pid, -1);
  EXPECT_EQ(env_.build_ids[0].build_id.ToHex(), "303132333435363738393a3b3c3d3e3f40414243");
  EXPECT_EQ(env_.build_ids[1].pid, 0);  // guest cpumode → default guest
}

TEST_P(FeaturesTest, BuildIdBadEntryKeepsEarlierOnes) {
  Writer w = W();
  WriteBuildId(w, kMiscUser, -1, 0x10, 20, "/bin/true");
  w.U32(0).U16(0).U16(0);  // size 0: must not loop
  EXPECT_FALSE(Parse(kFeatBuildId, w).ok());
  ASSERT_EQ(env_.build_ids.size(), 1u);
  EXPECT_EQ(env_.build_ids[0].filename, "/bin/true");
}

// Valid payloads of the features where any truncation is an error.
std::vector<std::pair<int, std::vector<uint8_t>>> StrictPayloads(bool big) {
  std::vector<std::pair<int, std::vector<uint8_t>>> out;
  auto add = [&](int feat, const std::function<void(Writer&)>& fill) {
    Writer w(big);
    fill(w);
    out.emplace_back(feat, w.bytes());
  };
  add(kFeatHostname, [](Writer& w) { w.Str("host"); });
  add(kFeatNrCpus, [](Writer& w) { w.U32(4).U32(4); });
  add(kFeatTotalMem, [](Writer& w) { w.U64(1); });
  add(kFeatCmdline, [](Writer& w) { w.U32(2).Str("perf").Str("record"); });
  add(kFeatEventDesc, [](Writer& w) { w.U32(1).U32(64).Zeros(4).U32(64).Zeros(56).U32(1).Str("x").U64(5); });
  add(kFeatNumaTopology, [](Writer& w) { w.U32(1).U32(0).U64(1).U64(1).Str("0"); });
  add(kFeatPmuMappings, [](Writer& w) { w.U32(1).U32(4).Str("cpu"); });
  add(kFeatGroupDesc, [](Writer& w) { w.U32(1).Str("g").U32(0).U32(2); });
  add(kFeatAuxtrace, [](Writer& w) { w.U64(1).U64(1).U64(2); });
  add(kFeatCache, [](Writer& w) { w.U32(1).U32(1).U32(1).U32(64).U32(64).U32(8).Str("Data").Str("32K").Str("0"); });
  add(kFeatSampleTime, [](Writer& w) { w.U64(1).U64(2); });
  add(kFeatMemTopology, [](Writer& w) { w.U64(1).U64(4096).U64(1).U64(0).U64(3).U64(3).U64(7); });
  add(kFeatClockId, [](Writer& w) { w.U64(1); });
  add(kFeatDirFormat, [](Writer& w) { w.U64(1); });
  add(kFeatBpfProgInfo, [](Writer& w) { w.U32(1).U32(2).U32(2).U64(0).Zeros(4); });
  add(kFeatBpfBtf, [](Writer& w) { w.U32(1).U32(1).U32(2).Zeros(2); });
  add(kFeatCompressed, [](Writer& w) { w.U32(1).U32(1).U32(1).U32(1).U32(1); });
  add(kFeatCpuPmuCaps, [](Writer& w) { w.U32(1).Str("a").Str("b"); });
  add(kFeatClockData, [](Writer& w) { w.U32(1).U32(1).U64(1).U64(1); });
  add(kFeatHybridTopology, [](Writer& w) { w.U32(1).Str("cpu_core").Str("0-3"); });
  add(kFeatPmuCaps, [](Writer& w) { w.U32(1).U32(1).Str("a").Str("b").Str("cpu"); });
  return out;
}

TEST_P(FeaturesTest, EveryTruncationFails) {
  for (const auto& [feat, bytes] : StrictPayloads(big())) {
    HeaderEnv env;
    ASSERT_TRUE(ParseFeature(feat, {bytes.data(), bytes.size()}, ld(), &env).ok()) << FeatureName(feat);
    for (size_t n = 0; n < bytes.size(); ++n) {
      Status s = ParseFeature(feat, {bytes.data(), n}, ld(), &env);
      EXPECT_FALSE(s.ok()) << FeatureName(feat) << " truncated to " << n << " bytes";
    }
  }
}

TEST_P(FeaturesTest, HostileCountsFailWithoutAllocating) {
  // Each count claims far more entries than the payload holds.
  const std::pair<int, std::function<void(Writer&)>> cases[] = {
      {kFeatCmdline, [](Writer& w) { w.U32(0xffffffff).Str("x"); }},
      {kFeatEventDesc, [](Writer& w) { w.U32(0xffffffff).U32(0xffffff00).Zeros(64); }},
      {kFeatNumaTopology, [](Writer& w) { w.U32(0xffffffff).Zeros(32); }},
      {kFeatPmuMappings, [](Writer& w) { w.U32(0xffffffff).Zeros(16); }},
      {kFeatGroupDesc, [](Writer& w) { w.U32(0xffffffff).Zeros(16); }},
      {kFeatAuxtrace, [](Writer& w) { w.U64(1ULL << 62).Zeros(16); }},
      {kFeatCache, [](Writer& w) { w.U32(1).U32(0xffffffff).Zeros(32); }},
      {kFeatMemTopology, [](Writer& w) { w.U64(1).U64(4096).U64(~0ULL).Zeros(32); }},
      {kFeatMemTopology, [](Writer& w) { w.U64(1).U64(4096).U64(1).U64(0).U64(0).U64(~0ULL).Zeros(8); }},
      {kFeatBpfProgInfo, [](Writer& w) { w.U32(0xffffffff).Zeros(16); }},
      {kFeatBpfProgInfo, [](Writer& w) { w.U32(1).U32(0xffffffff).U32(0xffffffff).U64(0); }},
      {kFeatBpfBtf, [](Writer& w) { w.U32(1).U32(1).U32(0xffffffff); }},
      {kFeatCpuPmuCaps, [](Writer& w) { w.U32(0xffffffff).Zeros(8); }},
      {kFeatHybridTopology, [](Writer& w) { w.U32(0xffffffff).Zeros(8); }},
      {kFeatPmuCaps, [](Writer& w) { w.U32(1).U32(0xffffffff).Zeros(8); }},
      {kFeatHostname, [](Writer& w) { w.U32(0xffffffff).Zeros(8); }},
  };
  for (const auto& [feat, fill] : cases) {
    Writer w = W();
    fill(w);
    HeaderEnv env;
    Status s = ParseFeature(feat, {w.bytes().data(), w.size()}, ld(), &env);
    ASSERT_FALSE(s.ok()) << FeatureName(feat);
    EXPECT_NE(s.error().message.find(':'), std::string::npos) << s.error().message;
  }
}

TEST_P(FeaturesTest, UnknownFeatureIsIgnored) {
  Writer w = W();
  w.U64(123);
  EXPECT_TRUE(Parse(200, w).ok());
  EXPECT_TRUE(Parse(kFeatTracingData, w).ok());
}

INSTANTIATE_TEST_SUITE_P(Endianness, FeaturesTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "BigEndian" : "LittleEndian"; });

}  // namespace
}  // namespace perflens
