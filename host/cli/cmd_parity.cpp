// `cuvk parity`: runs the selected tests on both APIs (the `run` options) or reads a saved run
// (--from FILE), and gives every point a Vulkan/CUDA ratio with its 95% interval and a verdict.
// Exit codes: 0 all SAME and outputs identical; 1 any difference, UNCERTAIN, failed verification
// or output mismatch; 2 could not compare (an API unavailable) or a usage error; 3 environment.
#include <iostream>
#include <set>

#include "backends.h"
#include "baseline.h"
#include "cli.h"
#include "cmd_run.h"
#include "devices.h"
#include "error.h"
#include "parity.h"
#include "parity_printer.h"
#include "verdicts.h"

namespace cuvk {
namespace {

struct ParityArgs {
  RunArgs run;
  std::string from, save_run;
};

// Options that still mean something when --from replaces the run.
const std::set<std::string> kFromOptions = {"--from",      "--format",   "--output",  "--quiet",
                                            "--tolerance", "--baseline", "--columns", "--help"};

void check_from_alone(const CLI::App& sub) {
  for (const CLI::Option* o : sub.get_options())
    if (o->count() > 0 && kFromOptions.count(o->get_name()) == 0)
      throw UsageError(o->get_name() +
                       " runs tests, but --from reads a saved run; drop one of them");
}

// Before a long run: both APIs must have a device, else there is nothing to compare.
std::string missing_api(const RunArgs& a, InventoryOnce& devices) {
  for (const std::string& api : a.apis)
    if (api != "all" && a.apis.size() < 2)
      throw UsageError("parity compares CUDA with Vulkan: drop --api " + api);
  if (is_device_list(a.device))
    throw UsageError(
        "parity runs one GPU: give --device an index or UUID (or run `cuvk run --device " +
        a.device + " --format json --output r.json` and `cuvk parity --from` each file)");
  const DeviceChoice c = choose_devices(devices.get(), a.device);
  std::string why;
  if (!c.cuda)
    why = "CUDA unavailable: " + (c.cuda_reason.empty() ? "no CUDA device" : c.cuda_reason);
  if (!c.vulkan)
    why += (why.empty() ? "" : "; ") + std::string("Vulkan unavailable: ") +
           (c.vulkan_reason.empty() ? "no Vulkan device" : c.vulkan_reason);
  return why;
}

int parity_command(const ParityArgs& p, const CLI::App& sub, const std::string& cmdline) {
  const RunArgs& a = p.run;
  const double tolerance = parse_tolerance(a.tolerance);
  const Format format = parse_format(a.format);
  column_indices(parity_table_headers(), a.columns);  // an unknown column before anything runs
  if (!a.output.empty()) check_writable(a.output);
  check_distinct_files({{"--output", a.output}, {"--save-run", p.save_run}},
                       {{"--from", p.from}, {"--baseline", a.baseline}});

  // Every input is read and checked before anything runs or prints.
  RunFile run;
  std::optional<RunFile> base;
  if (!p.from.empty()) {
    check_from_alone(sub);
    run = read_results(p.from);
    if (!a.baseline.empty()) base = read_results(a.baseline);
  } else {
    if (!p.save_run.empty()) check_writable(p.save_run, "--save-run");
    InventoryOnce devices;
    base = load_baseline(a, devices);
    const std::string missing = missing_api(a, devices);
    if (!missing.empty()) {
      std::cerr << "error: "
                << one_line("cannot compare CUDA with Vulkan: " + missing, kMaxErrorLine) << '\n';
      return kExitNotCompared;
    }
    RunArgs run_args = a;
    run_args.columns.clear();  // --columns names the parity table's columns, not the run's
    const RunDocument doc = execute_run(run_args, cmdline, devices);
    if (doc.outcome.interrupted) {
      emit(doc, "table", "", true);
      return run_exit_code(doc);
    }
    if (!p.save_run.empty())
      write_output_file(p.save_run, format_run(doc, Format::json), "--save-run");
    run = run_file_of(doc, "this run");
  }

  const ParityResult parity = compare_apis(run.rows, tolerance);
  std::optional<BaselineResult> baseline;
  if (base) baseline = compare_baseline(run, *base, tolerance);
  const bool nothing_compared =
      parity.same + parity.faster + parity.slower + parity.uncertain + parity.failed == 0;
  const std::string where = p.from.empty() ? "" : p.from + ": ";
  if (nothing_compared && !baseline) {  // nothing to show: the reason alone
    std::cerr << "error: " << one_line(where + parity.not_compared_reason, kMaxErrorLine) << '\n';
    return kExitNotCompared;
  }

  const std::string text =
      format_parity(run, parity, baseline ? &*baseline : nullptr, format, a.columns);
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_output_file(a.output, text);
    if (!a.quiet)
      std::cout << format_parity(run, parity, baseline ? &*baseline : nullptr, Format::table,
                                 a.columns)
                << "\nwrote " << printable(a.output) << '\n';
  }
  if (!p.save_run.empty() && !a.quiet)
    std::cout << "wrote " << printable(p.save_run) << " (the run)\n";
  if (parity.exit_code == kExitNotCompared)
    std::cerr << "error: " << one_line(where + parity.not_compared_reason, kMaxErrorLine) << '\n';
  return worse_exit(parity.exit_code, baseline ? baseline->exit_code : kExitOk);
}

}  // namespace

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
  return {sub, [p, sub, cmdline] { return parity_command(*p, *sub, cmdline); },
          [p] {
            check_run_args(p->run);
            column_indices(parity_table_headers(), p->run.columns);
          }};
}

}  // namespace cuvk
