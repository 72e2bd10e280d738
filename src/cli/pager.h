// perf's pager (tools/lib/subcmd/pager.c, as perf 6.1 uses it): when standard output is
// a terminal, the output of report, script, annotate, header, dump, stats and
// buildid-list goes through a pager, as perf pages those commands.
//
// The pager command is $PERF_PAGER, else $PAGER, else /usr/bin/pager, else
// /usr/bin/less (the first that is executable), else none; an empty command or "cat"
// means none (so PERF_PAGER= disables paging even with PAGER set). It runs as
// `sh -c COMMAND` with LESS=FRSX in its environment unless LESS is set, and is started
// only once the input has opened (an error before that prints on the terminal). Standard
// error goes to the pager too when it is a terminal. perflens waits for the pager before
// it exits, also when a signal ends it.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace perflens {

// `perflens --no-pager|-P` and `--paginate|-p` (perf's top-level options), and the
// subcommands' --no-pager (perflens's own: perf has it only before the command).
struct PagerChoice {
  bool no_pager = false;  // never page
  bool paginate = false;  // page every command, also those that perf does not page
};

// The pager command that `getenv` gives, as perf picks it; "" for none. `executable`
// says whether a path may be run (/usr/bin/pager, /usr/bin/less).
std::string ChoosePagerCommand(const std::function<const char*(const char*)>& getenv,
                               const std::function<bool(const char*)>& executable);

// Adds --no-pager/-P and --paginate/-p to the top-level app, --no-pager to `sub`.
void AddPagerFlags(CLI::App* app, PagerChoice* choice);
void AddNoPagerFlag(CLI::App* sub, PagerChoice* choice);

// Says that the running command pages its output (`pages`: perf's rule for it); the
// pager itself starts at StartPagerIfWanted. Call once, after the command line parsed.
void WantPager(bool pages, const PagerChoice& choice);

// Starts the pager if WantPager asked for one and standard output is a terminal: from
// then on stdout (and stderr, when a terminal) write into the pager. Only the first call
// does anything. Call it before the command starts threads (it forks).
void StartPagerIfWanted();

}  // namespace perflens
