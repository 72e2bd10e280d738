// Shared fixture of the call-graph scenario tests (issue #4, callchain_*_test.cc): the
// four programs below are built and recorded with `perf record -g -F 2000` once per
// test process (a recording is shared by every test of that process), and each test
// runs perf 6.1 and perflens on the same perf.data and compares the text.
//
// Each recording lives in its own temp dir with HOME pointed there, so perf's build-id
// cache (~/.debug) is private to it. These are the `live` tests (ctest label): each
// prints its differences from perf and gates only on a perflens crash and on < 95%
// agreement (LiveDifferences); the gating replay of the same programs is
// replay_fixture_test.cc. The dirs are deleted after the last test unless a
// test failed (then their paths are printed). Tests skip when `perf record` cannot run.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {

struct CallchainProgram {
  const char* name;    // test parameter name
  const char* build;   // shell command run in the dir ("" for scripts); $P = programs dir
  const char* run;     // the recorded command
};

// -O2 for the threaded C++ program, -O1 for the C ones; all keep frame pointers.
inline const std::vector<CallchainProgram>& CallchainPrograms() {
  static const std::vector<CallchainProgram> programs = {
      {"threads",
       "c++ -O2 -g -fno-omit-frame-pointer -pthread -o callchain_threads $P/callchain_threads.cc",
       "./callchain_threads 0.4"},
      {"vdso", "cc -O1 -g -fno-omit-frame-pointer -o callchain_vdso $P/callchain_vdso.c",
       "./callchain_vdso 0.4"},
      {"syscalls", "cc -O1 -g -fno-omit-frame-pointer -o callchain_syscalls $P/callchain_syscalls.c",
       "./callchain_syscalls 0.4"},
      {"forkexec", "", "$P/callchain_forkexec.sh 25"},
  };
  return programs;
}

inline void PrintTo(const CallchainProgram& p, std::ostream* os) { *os << p.name; }

inline std::string CallchainProgramName(const ::testing::TestParamInfo<CallchainProgram>& info) {
  return info.param.name;
}

struct CallchainRecording {
  std::string dir;    // temp dir holding x.data, the binaries and home/
  std::string error;  // non-empty when building or recording failed
};

// Deletes the recordings after the last test (kept when a test failed).
class CallchainRecordings : public ::testing::Environment {
 public:
  static std::map<std::string, CallchainRecording>& All() {
    static std::map<std::string, CallchainRecording> all;
    return all;
  }
  void TearDown() override {
    bool failed = ::testing::UnitTest::GetInstance()->failed_test_count() > 0;
    for (const auto& [name, rec] : All()) {
      if (failed)
        std::printf("[ callchain ] kept %s (%s)\n", rec.dir.c_str(), name.c_str());
      else
        RunShell("rm -rf " + ShellQuote(rec.dir), "/tmp");
    }
  }
};
inline ::testing::Environment* const kCallchainRecordingsEnv =
    ::testing::AddGlobalTestEnvironment(new CallchainRecordings);

class CallchainTest : public ::testing::TestWithParam<CallchainProgram> {
 protected:
  void SetUp() override {
    std::string why = PerfUnavailableReason();
    if (!why.empty()) GTEST_SKIP() << why;
    const CallchainProgram& p = GetParam();
    auto& all = CallchainRecordings::All();
    auto it = all.find(p.name);
    if (it == all.end()) it = all.emplace(p.name, Record(p)).first;
    rec_ = &it->second;
    ASSERT_TRUE(rec_->error.empty()) << rec_->error;
    live_.Start();  // from here on, differences from perf are printed (label `live`)
  }
  void TearDown() override { live_.Finish(); }

  static CallchainRecording Record(const CallchainProgram& p) {
    CallchainRecording rec;
    char tmpl[] = "/tmp/perflens-callchain-XXXXXX";
    if (!mkdtemp(tmpl)) return {"", "cannot create a temp dir"};
    rec.dir = tmpl;
    mkdir((rec.dir + "/home").c_str(), 0700);
    std::string pre = "cd " + ShellQuote(rec.dir) + " && P=" +
                      ShellQuote(ScenarioSourceDir() + "/programs") + " && ";
    if (*p.build) {
      CommandResult b = RunShell(pre + p.build, rec.dir);
      if (b.exit_code != 0) rec.error = std::string(p.build) + "\n" + b.err;
    }
    if (rec.error.empty()) {
      std::string cmd = pre + "HOME=" + ShellQuote(rec.dir + "/home") +
                        " perf record -q -g -F 2000 -o x.data -- " + p.run + " >/dev/null";
      CommandResult r = RunShell(cmd, rec.dir);
      if (r.exit_code != 0) rec.error = cmd + "\n" + r.err;
    }
    return rec;
  }

  // `perf <args>` / `perflens <args>` on the recording (args without -i).
  CommandResult Perf(const std::string& args) { return Tool("perf", args); }
  // perflens exiting non-zero or on a signal gates (a crash); the rest is printed.
  // report and script run with perf's return-address lookup: these tests compare the
  // chain machinery with perf's; where perflens's default (return address - 1) names
  // another caller — ld.so's `_start` ending with `call _dl_start`, whose return lands
  // on `_dl_start_user`, in every short process of forkexec — is the noreturn_call
  // fixture's subject (README "differs on purpose").
  CommandResult Perflens(const std::string& args) {
    const bool chains = args.rfind("report", 0) == 0 || args.rfind("script", 0) == 0;
    CommandResult r = Tool(ShellQuote(PerflensBinary()), chains ? args + " --no-return-address-adjust" : args);
    live_.Gate(r.exit_code == 0, "perflens " + args + " exited with " +
                                     std::to_string(r.exit_code) + ": " + r.err.substr(0, 2000));
    return r;
  }
  CommandResult Tool(const std::string& tool, const std::string& args) {
    return RunShell("cd " + ShellQuote(rec_->dir) + " && HOME=" + ShellQuote(rec_->dir + "/home") +
                        " " + tool + " " + args,
                    rec_->dir);
  }

  // Writes both outputs beside the recording (for a failure message).
  std::string KeepOutputs(const std::string& tag, const std::string& perf,
                          const std::string& perflens) {
    std::string base = rec_->dir + "/" + tag;
    WriteFile(base + ".perf.txt", perf);
    WriteFile(base + ".actual.txt", perflens);
    return "diff -u " + base + ".perf.txt " + base + ".actual.txt";
  }

  std::string Name() const { return GetParam().name; }

  const CallchainRecording* rec_ = nullptr;
  LiveDifferences live_;
};

}  // namespace perflens::scenario
