// `cuvk parity`'s options (CLI11); its work is host/app/parity_command.cpp.
#include <memory>
#include <optional>

#include "cli.h"
#include "cmd_run.h"  // add_run_options
#include "commands.h"
#include "parity_command.h"

namespace cuvk {

Command add_parity_command(CLI::App& app, const std::string& cmdline) {
  auto p = std::make_shared<ParityArgs>();
  CLI::App* sub = app.add_subcommand(
      "parity",
      "CUDA vs Vulkan verdict per point (Vulkan/CUDA time ratio, 95% CI) and outputs compared; "
      "exit 0 all SAME, 1 a difference, 2 could not compare");
  add_run_options(*sub, p->run);
  sub->add_option("--from", p->from,
                  "compare a saved `cuvk run --format json` file instead of running");
  sub->add_option("--save-run", p->save_run,
                  "also write the run itself as JSON here (for report/--from)");
  auto judged = std::make_shared<std::optional<JudgedParity>>();  // by the check, once
  const auto judge = [p, sub, judged] {
    p->given.clear();
    for (const CLI::Option* o : sub->get_options())
      if (o->count() > 0) p->given.push_back(o->get_name());
    *judged = judge_parity(*p);
  };
  return {sub,
          [judged, judge, cmdline] {
            if (!*judged) judge();  // the CLI checks first; a caller that did not, here
            return parity_command(**judged, cmdline);
          },
          judge};
}

}  // namespace cuvk
