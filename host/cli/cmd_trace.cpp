// `cuvk trace`'s options (CLI11); its work is host/app/trace_command.cpp.
#include <memory>
#include <optional>

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
  auto judged = std::make_shared<std::optional<JudgedTrace>>();  // by the check, once
  const auto judge = [args, judged] { *judged = judge_trace(*args); };
  return {sub,
          [judged, judge, command_line] {
            if (!*judged) judge();  // the CLI checks first; a caller that did not, here
            return run_trace(**judged, command_line);
          },
          judge};
}

}  // namespace cuvk
