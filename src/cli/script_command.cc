#include "cli/commands.h"

namespace perflens {

CommandRunner RegisterScriptCommand(CLI::App* app) {
  CLI::App* cmd = app->add_subcommand("script", "Per-sample listing, as perf script (not yet implemented)");
  return [cmd]() {
    (void)cmd;
    fprintf(stderr, "perflens: script is not implemented yet\n");
    return 2;
  };
}

}  // namespace perflens
