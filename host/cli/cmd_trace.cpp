// `cuvk trace`'s options (CLI11); its work is host/app/trace_command.cpp.
#include <memory>

#include "cli.h"
#include "cmd_run.h"  // add_run_options
#include "commands.h"
#include "trace_command.h"

namespace cuvk {

Command add_trace_command(CLI::App& app, const std::string& command_line) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = app.add_subcommand(
      "trace", "dispatch traces: per block, its SM and start/end times, on both APIs");
  sub->add_option("test", args->test, "a test of `cuvk list`")->required();
  add_run_options(*sub, args->run, RunOptionSet::trace);
  sub->add_option("--output", args->output, "write the trace as JSON (schema cuvk.trace/1)");
  sub->add_option("--plot", args->plot,
                  "draw the trace (.png, .svg or .pdf) with matplotlib: blocks on their SMs over "
                  "time, then blocks resident per SM; skipped (exit 3) without python3-matplotlib");
  return {sub, [args, command_line] { return run_trace(*args, command_line); },
          [args] { checked_run_args(*args); }};
}

}  // namespace cuvk
