// perf's dso__symtab_origin letters (util/dso.c) for perflens's symbol sources, and the
// letter each Symbolizer load records; perf -v's demangling with parameters.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "elf_test_util.h"
#include "symbolize/debug_file_finder.h"
#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(SymtabOriginTest, PerfsLettersForEachSource) {
  // perf's binary_type_symtab[] sources, as dso__symtab_origin names them.
  EXPECT_EQ(SymtabOrigin(CandidateKind::kDebuglink, false), 'l');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kBuildIdCache, false), 'B');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kBuildIdCacheDebug, false), 'D');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kFedoraDebuginfo, false), 'f');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kUbuntuDebuginfo, false), 'u');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kMixedupUbuntuDebuginfo, false), 'x');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kOpenEmbeddedDebuginfo, false), 'o');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kBuildIdDebuginfo, false), 'b');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kSystemPath, false), 'd');
  // Every kallsyms source is perf's DSO_BINARY_TYPE__KALLSYMS.
  for (CandidateKind k : {CandidateKind::kKallsymsCacheEntry, CandidateKind::kKallsymsBuildIdLink,
                          CandidateKind::kKallsymsCacheOld, CandidateKind::kUserFile, CandidateKind::kLocalImage})
    EXPECT_EQ(SymtabOrigin(k, true), 'k') << CandidateKindName(k);
  // perflens's own: what perf would have read (README "differs on purpose").
  EXPECT_EQ(SymtabOrigin(CandidateKind::kDebuginfodExecutable, false), 'B');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kDebuginfodDebuginfo, false), 'D');
  EXPECT_EQ(SymtabOrigin(CandidateKind::kUserFile, false), 'd');    // --vdso FILE
  EXPECT_EQ(SymtabOrigin(CandidateKind::kLocalImage, false), 'd');  // this machine's vdso
}

TEST(SymtabOriginTest, EachLoadRecordsWhereItsSymbolsCameFrom) {
  TempDir dir;
  const std::string bin = dir / "prog", stripped = dir / "prog.stripped", debug = dir / "prog.debug";
  ASSERT_TRUE(testing::Compile(dir, testing::kCProgram, "c", "-fPIE -pie", bin));
  ASSERT_TRUE(testing::Run("objcopy --only-keep-debug " + bin + " " + debug));
  ASSERT_TRUE(testing::Run("objcopy --strip-all --add-gnu-debuglink=" + debug + " " + bin + " " + stripped));
  const BuildId bid = *BuildId::FromHex(testing::ReadelfBuildId(bin));
  const std::string cache = dir / "cache";
  // <cache>/<path>/<bid>/elf and its .build-id link, as perf's build-id cache.
  const std::string hex = bid.ToHex();
  const fs::path entry = fs::path(cache) / "opt/prog" / hex;
  fs::create_directories(entry);
  fs::copy_file(bin, entry / "elf");
  fs::create_directories(fs::path(cache) / ".build-id" / hex.substr(0, 2));
  fs::create_symlink(fs::path("../../opt/prog") / hex, fs::path(cache) / ".build-id" / hex.substr(0, 2) / hex.substr(2));

  Symbolizer s({.buildid_dir = cache}, nullptr);
  Dso cached(1, "/opt/prog", DsoKind::kUser);  // only in the cache
  cached.set_build_id(bid);
  EXPECT_EQ(s.Info(cached).status, LoadStatus::kLoaded) << s.Info(cached).message;
  EXPECT_EQ(s.Info(cached).symtab_origin, 'B');
  // No build-id recorded: the one read from the file finds the cache entry first (perf's
  // order), and without a cache the file at its path.
  Dso at_path(2, bin, DsoKind::kUser);
  EXPECT_EQ(s.Info(at_path).symtab_origin, 'B') << s.Info(at_path).message;
  Symbolizer no_cache({.buildid_dir = dir / "empty-cache"}, nullptr);
  EXPECT_EQ(no_cache.Info(at_path).symtab_origin, 'd') << no_cache.Info(at_path).message;
  Dso by_debuglink(3, stripped, DsoKind::kUser);  // .symtab only in the debuglink file
  EXPECT_EQ(s.Info(by_debuglink).path, debug);
  EXPECT_EQ(s.Info(by_debuglink).symtab_origin, 'l');
  Dso missing(4, "/no/such/lib.so", DsoKind::kUser);
  EXPECT_NE(s.Info(missing).status, LoadStatus::kLoaded);
  EXPECT_EQ(s.Info(missing).symtab_origin, '!');
  Dso anon(5, "//anon", DsoKind::kAnon);
  EXPECT_EQ(s.Info(anon).symtab_origin, '!');
  Dso bpf(6, "bpf_prog_1_f", DsoKind::kKsymbol);  // perf leaves BPF dsos NOT_FOUND
  bpf.ksymbol_symbols.push_back({0xffffffffc0001000, 0xffffffffc0001080, "bpf_prog_1_f"});
  EXPECT_EQ(s.Info(bpf).status, LoadStatus::kLoaded);
  EXPECT_EQ(s.Info(bpf).symtab_origin, '!');

  testing::WriteFile(dir / "kallsyms", "ffffffff81000000 T _text\nffffffff81000100 T start_kernel\n");
  Symbolizer k({.kallsyms = dir / "kallsyms"}, nullptr);
  Dso kernel(7, "[kernel.kallsyms]", DsoKind::kKernel);
  EXPECT_EQ(k.Info(kernel).status, LoadStatus::kLoaded) << k.Info(kernel).message;
  EXPECT_EQ(k.Info(kernel).symtab_origin, 'k');

  testing::WriteFile(dir / "perf-77.map", "1000 10 jitted_fn\n");
  Dso jit(8, dir / "perf-77.map", DsoKind::kJitMap);
  EXPECT_EQ(s.Info(jit).status, LoadStatus::kLoaded) << s.Info(jit).message;
  EXPECT_EQ(s.Info(jit).symtab_origin, 'j');  // perf's DSO_BINARY_TYPE__JAVA_JIT
}

TEST(SymtabOriginTest, DemanglesWithParametersAsPerfVerbose) {
  // cplus_demangle(DMGL_PARAMS | DMGL_ANSI): the whole signature, clone suffixes named.
  EXPECT_EQ(DemangleWithParamsLikePerf("_ZN4algo6detail9MixRoundsImLm100000EEET_S2_"),
            "unsigned long algo::detail::MixRounds<unsigned long, 100000ul>(unsigned long)");
  EXPECT_EQ(DemangleWithParamsLikePerf("_ZN12_GLOBAL__N_14PolyEdi.constprop.0"),
            "(anonymous namespace)::Poly(double, int) [clone .constprop.0]");
  EXPECT_EQ(DemangleLikePerf("_ZN12_GLOBAL__N_14PolyEdi.constprop.0"), "(anonymous namespace)::Poly");
  // Other trailing text fails the demangling (perf keeps the raw name).
  EXPECT_EQ(DemangleWithParamsLikePerf("_Z1fv@@V1"), "");
  EXPECT_EQ(DemangleLikePerf("_Z1fv@@V1", false), "f");
  // Rust is unchanged.
  EXPECT_EQ(DemangleWithParamsLikePerf("_ZN4prog4spin17h1a25dcd4f893588bE"), "prog::spin");
  EXPECT_EQ(DemangleWithParamsLikePerf("not_mangled"), "");

  SymbolTable t;
  t.set_demangle_params(true);
  t.AddMangled(0x10, 0x10, "_Z3addii");
  t.Finish();
  ASSERT_NE(t.Find(0x14), nullptr);
  EXPECT_EQ(t.Find(0x14)->name, "add(int, int)");
}

}  // namespace
}  // namespace perflens
