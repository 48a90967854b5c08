// `cuvk report`'s options (CLI11); its work is host/app/report_command.cpp.
#include <memory>

#include "cli.h"
#include "commands.h"
#include "report_command.h"
#include "verdicts.h"  // parse_tolerance

namespace cuvk {

Command add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "merge saved runs (GPUs, drivers, dates) into comparison tables, or write a results folder's "
      "README.md with --index");
  sub->add_option("files", a->files,
                  "run files written by `cuvk run --format json --output FILE`, or `cuvk explain` "
                  "JSON files (printed as explain prints them)");
  sub->add_option(
      "--index", a->index_dir,
      "write DIR/README.md and draw every figure in DIR/plots (matplotlib): an index of every run "
      "file in DIR, the figures with their sources, its parity table and the merged tables");
  sub->add_flag(
      "--no-plots", a->no_plots,
      "--index: write README.md only; its figures are those DIR/plots/figures.json lists");
  sub->add_flag(
      "--fleet", a->fleet,
      "a fleet: FILES may be folders (their *.json runs and *.failed task markers); "
      "prints parity verdicts per GPU model and driver, boards that differ from the other "
      "boards of their model, failed tasks, then the merged tables (table, md or json)");
  sub->add_option("--format", a->format, "md (default), table, csv or json");
  sub->add_option("--output", a->output,
                  "write here instead of stdout (a regular file atomically: temporary + rename; "
                  "--index: DIR/README.md)");
  sub->add_option("--tolerance", a->tolerance,
                  "percent: the SAME band of the index's parity tables and of --fleet (default 3)");
  return {sub, [a] { return report_command(*a); },
          [a] {
            parse_format(a->format);
            parse_tolerance(a->tolerance);
          }};
}

}  // namespace cuvk
