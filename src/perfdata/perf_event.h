// Constants of the perf.data format.
// Sources: include/uapi/linux/perf_event.h (kernel record types, PERF_SAMPLE_*,
// misc bits, callchain contexts) and tools/lib/perf/include/perf/event.h plus
// tools/perf/util/header.h (user record types >= 64, HEADER_* feature bits).
#pragma once

#include <cstdint>
#include <string_view>

namespace perflens {

// perf_event_header.type
enum RecordType : uint32_t {
  kRecordMmap = 1,
  kRecordLost = 2,
  kRecordComm = 3,
  kRecordExit = 4,
  kRecordThrottle = 5,
  kRecordUnthrottle = 6,
  kRecordFork = 7,
  kRecordRead = 8,
  kRecordSample = 9,
  kRecordMmap2 = 10,
  kRecordAux = 11,
  kRecordItraceStart = 12,
  kRecordLostSamples = 13,
  kRecordSwitch = 14,
  kRecordSwitchCpuWide = 15,
  kRecordNamespaces = 16,
  kRecordKsymbol = 17,
  kRecordBpfEvent = 18,
  kRecordCgroup = 19,
  kRecordTextPoke = 20,
  kRecordAuxOutputHwId = 21,
  kRecordCallchainDeferred = 22,
  kRecordKernelMax = 23,
  // tools/lib/perf/include/perf/event.h: enum perf_user_event_type
  kRecordHeaderAttr = 64,
  kRecordHeaderEventType = 65,
  kRecordHeaderTracingData = 66,
  kRecordHeaderBuildId = 67,
  kRecordFinishedRound = 68,
  kRecordIdIndex = 69,
  kRecordAuxtraceInfo = 70,
  kRecordAuxtrace = 71,
  kRecordAuxtraceError = 72,
  kRecordThreadMap = 73,
  kRecordCpuMap = 74,
  kRecordStatConfig = 75,
  kRecordStat = 76,
  kRecordStatRound = 77,
  kRecordEventUpdate = 78,
  kRecordTimeConv = 79,
  kRecordHeaderFeature = 80,
  kRecordCompressed = 81,
  kRecordFinishedInit = 82,
  kRecordCompressed2 = 83,
  kRecordBpfMetadata = 84,
  kRecordSchedstatCpu = 85,
  kRecordSchedstatDomain = 86,
  kRecordUserMax = 87,
};

// Name as `perf report -D` / `--stats` prints it ("MMAP2", "FINISHED_ROUND"), or
// "UNKNOWN" for types perflens does not know.
std::string_view RecordTypeName(uint32_t type);

// perf_event_attr.sample_type bits (enum perf_event_sample_format).
enum SampleFormat : uint64_t {
  kSampleIp = 1ULL << 0,
  kSampleTid = 1ULL << 1,
  kSampleTime = 1ULL << 2,
  kSampleAddr = 1ULL << 3,
  kSampleRead = 1ULL << 4,
  kSampleCallchain = 1ULL << 5,
  kSampleId = 1ULL << 6,
  kSampleCpu = 1ULL << 7,
  kSamplePeriod = 1ULL << 8,
  kSampleStreamId = 1ULL << 9,
  kSampleRaw = 1ULL << 10,
  kSampleBranchStack = 1ULL << 11,
  kSampleRegsUser = 1ULL << 12,
  kSampleStackUser = 1ULL << 13,
  kSampleWeight = 1ULL << 14,
  kSampleDataSrc = 1ULL << 15,
  kSampleIdentifier = 1ULL << 16,
  kSampleTransaction = 1ULL << 17,
  kSampleRegsIntr = 1ULL << 18,
  kSamplePhysAddr = 1ULL << 19,
  kSampleAux = 1ULL << 20,
  kSampleCgroup = 1ULL << 21,
  kSampleDataPageSize = 1ULL << 22,
  kSampleCodePageSize = 1ULL << 23,
  kSampleWeightStruct = 1ULL << 24,
};

// perf_event_attr.read_format bits.
enum ReadFormat : uint64_t {
  kReadTotalTimeEnabled = 1 << 0,
  kReadTotalTimeRunning = 1 << 1,
  kReadId = 1 << 2,
  kReadGroup = 1 << 3,
  kReadLost = 1 << 4,
};

// branch_sample_type bits that change the sample layout.
inline constexpr uint64_t kBranchSampleHwIndex = 1ULL << 17;
// LBR call-stack mode (--call-graph lbr): the entries are the call stack, newest first.
inline constexpr uint64_t kBranchSampleCallStack = 1ULL << 11;
inline constexpr uint64_t kBranchSampleCounters = 1ULL << 19;

// perf_event_header.misc
inline constexpr uint16_t kMiscCpumodeMask = 7;
inline constexpr uint16_t kMiscCpumodeUnknown = 0;
inline constexpr uint16_t kMiscKernel = 1;
inline constexpr uint16_t kMiscUser = 2;
inline constexpr uint16_t kMiscHypervisor = 3;
inline constexpr uint16_t kMiscGuestKernel = 4;
inline constexpr uint16_t kMiscGuestUser = 5;
inline constexpr uint16_t kMiscProcMapParseTimeout = 1 << 12;
inline constexpr uint16_t kMiscMmapData = 1 << 13;
inline constexpr uint16_t kMiscCommExec = 1 << 13;
inline constexpr uint16_t kMiscForkExec = 1 << 13;
inline constexpr uint16_t kMiscSwitchOut = 1 << 13;
inline constexpr uint16_t kMiscExactIp = 1 << 14;
inline constexpr uint16_t kMiscSwitchOutPreempt = 1 << 14;
inline constexpr uint16_t kMiscMmapBuildId = 1 << 14;
inline constexpr uint16_t kMiscBuildIdSize = 1 << 15;  // perf's reuse of EXT_RESERVED

// Callchain context markers (enum perf_callchain_context); any ip >= kContextMax is one.
inline constexpr uint64_t kContextHv = static_cast<uint64_t>(-32);
inline constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
inline constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);
inline constexpr uint64_t kContextUserDeferred = static_cast<uint64_t>(-640);
inline constexpr uint64_t kContextGuest = static_cast<uint64_t>(-2048);
inline constexpr uint64_t kContextGuestKernel = static_cast<uint64_t>(-2176);
inline constexpr uint64_t kContextGuestUser = static_cast<uint64_t>(-2560);
inline constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);

// perf_event_attr.type of tracepoint events (enum perf_type_id PERF_TYPE_TRACEPOINT):
// attr.config is the ID line of the event's format file.
inline constexpr uint32_t kPerfTypeTracepoint = 2;
// PERF_TYPE_SOFTWARE and its PERF_COUNT_SW_DUMMY config (an event that only carries
// side-band records; perf adds one for system-wide and --switch-events recordings).
inline constexpr uint32_t kPerfTypeSoftware = 1;
inline constexpr uint64_t kPerfCountSwDummy = 9;

// Header feature bits (tools/perf/util/header.h enum HEADER_*).
enum Feature : int {
  kFeatTracingData = 1,
  kFeatBuildId = 2,
  kFeatHostname = 3,
  kFeatOsRelease = 4,
  kFeatVersion = 5,
  kFeatArch = 6,
  kFeatNrCpus = 7,
  kFeatCpuDesc = 8,
  kFeatCpuId = 9,
  kFeatTotalMem = 10,
  kFeatCmdline = 11,
  kFeatEventDesc = 12,
  kFeatCpuTopology = 13,
  kFeatNumaTopology = 14,
  kFeatBranchStack = 15,
  kFeatPmuMappings = 16,
  kFeatGroupDesc = 17,
  kFeatAuxtrace = 18,
  kFeatStat = 19,
  kFeatCache = 20,
  kFeatSampleTime = 21,
  kFeatMemTopology = 22,
  kFeatClockId = 23,
  kFeatDirFormat = 24,
  kFeatBpfProgInfo = 25,
  kFeatBpfBtf = 26,
  kFeatCompressed = 27,
  kFeatCpuPmuCaps = 28,
  kFeatClockData = 29,
  kFeatHybridTopology = 30,
  kFeatPmuCaps = 31,
  kFeatLastKnown = 32,
  kFeatMaxBits = 256,
};

std::string_view FeatureName(int feature);

}  // namespace perflens
