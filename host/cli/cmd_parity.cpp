// `cuvk parity`'s options (CLI11); its work is host/app/parity_command.cpp.
#include <memory>

#include "cli.h"
#include "cmd_run.h"  // add_run_options
#include "commands.h"
#include "parity_command.h"
#include "parity_printer.h"  // parity_table_headers

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
  return {sub,
          [p, sub, cmdline] {
            for (const CLI::Option* o : sub->get_options())
              if (o->count() > 0) p->given.push_back(o->get_name());
            return parity_command(*p, cmdline);
          },
          [p] {
            check_run_args(p->run);
            column_indices(parity_table_headers(), p->run.columns);
          }};
}

}  // namespace cuvk
