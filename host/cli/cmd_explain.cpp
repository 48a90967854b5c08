// `cuvk explain`'s options (CLI11); its work is host/app/explain_command.cpp.
#include <memory>
#include <optional>

#include "cli.h"
#include "cmd_run.h"  // add_run_options
#include "commands.h"
#include "explain_command.h"

namespace cuvk {

Command add_explain_command(CLI::App& app, const std::string& cmdline) {
  auto e = std::make_shared<ExplainArgs>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "why a point is not SAME: runs it (both Vulkan bindings, counters where CUPTI is present), "
      "then experiments (the other binding, the grid-stride variant, block sizes 64-1024) and "
      "both machine codes, and ranks what accounts for the gap (docs/EXPLAIN.md)");
  add_run_options(*sub, e->run);
  sub->add_flag("--no-experiments", e->no_experiments,
                "only what the first run measured: no experiment runs, counters or machine code");
  sub->add_option("--experiment-time", e->experiment_time_s,
                  "seconds per point and API of each experiment run (default 0.3)")
      ->check(CLI::PositiveNumber);
  auto judged = std::make_shared<std::optional<JudgedExplain>>();  // by the check, once
  const auto judge = [e, judged] { *judged = judge_explain(*e); };
  return {sub,
          [judged, judge, cmdline] {
            if (!*judged) judge();  // the CLI checks first; a caller that did not, here
            return explain_command(**judged, cmdline);
          },
          judge};
}

}  // namespace cuvk
