// `cuvk parity`: runs the selected tests on both APIs (the `run` options) or reads a saved run
// (--from FILE), and gives every point a Vulkan/CUDA ratio with its 95% interval and a verdict.
// Exit codes: 0 all SAME and outputs identical; 1 any difference, UNCERTAIN, failed verification
// or output mismatch; 2 could not compare (an API unavailable) or a usage error; 3 environment.
#include "parity_command.h"

#include <iostream>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "backends.h"
#include "baseline.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "devices.h"
#include "error.h"
#include "parity.h"
#include "parity_printer.h"
#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {
namespace {

// Options that still mean something when --from replaces the run.
const std::set<std::string> kFromOptions = {"--from",      "--format",   "--output",  "--quiet",
                                            "--tolerance", "--baseline", "--columns", "--help"};

void check_from_alone(const std::vector<std::string>& given) {
  for (const std::string& o : given)
    if (kFromOptions.count(o) == 0)
      throw UsageError(o + " runs tests, but --from reads a saved run; drop one of them");
}

// Before a long run: both APIs must have a device, else there is nothing to compare.
std::string missing_api(const RunArgs& a, InventoryOnce& devices) {
  for (const std::string& api : a.apis)
    if (api != "all" && a.apis.size() < 2)
      throw UsageError("parity compares CUDA with Vulkan: drop --api " + api);
  if (is_device_list(a.device))
    throw UsageError(
        "parity runs one GPU: give --device an index or UUID (or run `cuvk run --device " +
        a.device + " --format json --output r.json` and `cuvk parity --from r.json`)");
  const DeviceChoice c = choose_devices(devices.get(), a.device);
  std::string why;
  if (!c.cuda)
    why = "CUDA unavailable: " + (c.cuda_reason.empty() ? "no CUDA device" : c.cuda_reason);
  if (!c.vulkan)
    why += (why.empty() ? "" : "; ") + std::string("Vulkan unavailable: ") +
           (c.vulkan_reason.empty() ? "no Vulkan device" : c.vulkan_reason);
  return why;
}

// One run's parity (and baseline) in `format` and as the console's table; `code`: its exit code.
struct ParityText {
  std::string text, table, error;  // error: a line for stderr ("" none)
  int code = kExitOk;
};

ParityText parity_text(const RunFile& run, const std::optional<RunFile>& base, const JudgedRun& j,
                       const std::string& where) {
  const RunArgs& a = j.args;
  const Format format = j.format;
  const double tolerance = j.tolerance;
  const ParityResult parity = compare_apis(run.rows, tolerance);
  std::optional<BaselineResult> baseline;
  if (base) baseline = compare_baseline(run, *base, tolerance);
  ParityText out;
  const bool nothing_compared =
      parity.same + parity.faster + parity.slower + parity.uncertain + parity.failed == 0;
  if (nothing_compared && !baseline) {  // nothing to show: the reason alone
    out.error = one_line(where + parity.not_compared_reason, kMaxErrorLine);
    out.code = kExitNotCompared;
    return out;
  }
  const BaselineResult* b = baseline ? &*baseline : nullptr;
  out.text = format_parity(run, parity, b, format, a.columns);
  out.table =
      a.output.empty() || a.quiet ? "" : format_parity(run, parity, b, Format::table, a.columns);
  if (parity.exit_code == kExitNotCompared)
    out.error = one_line(where + parity.not_compared_reason, kMaxErrorLine);
  out.code = worse_exit(parity.exit_code, baseline ? baseline->exit_code : kExitOk);
  return out;
}

// Every run's parity in turn (a node file: one per GPU, each under a header naming it).
int show_parity(const std::vector<RunFile>& runs, const std::vector<RunFile>& bases,
                const JudgedRun& j, bool from) {
  const RunArgs& a = j.args;
  const Format format = j.format;
  const bool several = runs.size() > 1;
  if (several && (format == Format::json || format == Format::csv))
    throw UsageError(
        fmt::format("--from {} is a node file of {} GPUs: --format {} holds one GPU's parity; use "
                    "table or md (every GPU in turn)",
                    runs.front().name.substr(0, runs.front().name.rfind('#')), runs.size(),
                    format == Format::json ? "json" : "csv"));
  std::string text, table;
  int code = kExitOk;
  bool shown = false;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::optional<RunFile> base;
    std::string note;
    if (!bases.empty()) base = baseline_for(bases, runs[k], k, runs.size(), note);
    if (!note.empty()) std::cerr << "note: " << printable(runs[k].name + ": " + note) << '\n';
    const ParityText p = parity_text(runs[k], base, j, from ? runs[k].name + ": " : "");
    const std::string head = several ? "== " + printable(runs[k].name) + " ==\n\n" : "";
    if (!p.text.empty()) {
      text += head + p.text + (several ? "\n" : "");
      table += head + p.table + (several ? "\n" : "");
      shown = true;
    }
    if (!p.error.empty()) std::cerr << "error: " << p.error << '\n';
    code = worse_exit(code, p.code);
  }
  if (!shown) return code;
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_output_file(a.output, text);
    if (!a.quiet) std::cout << table << "\nwrote " << printable(a.output) << '\n';
  }
  return code;
}

}  // namespace

JudgedParity judge_parity(const ParityArgs& p) {
  JudgedParity judged{judge_run(p.run), p.from, p.save_run, p.given};
  // An unknown column before anything runs.
  column_indices(parity_table_headers(), judged.run.args.columns);
  return judged;
}

int parity_command(const JudgedParity& p, const std::string& cmdline) {
  const RunArgs& a = p.run.args;
  if (!a.output.empty()) check_writable(a.output);
  check_distinct_files({{"--output", a.output}, {"--save-run", p.save_run}},
                       {{"--from", p.from}, {"--baseline", a.baseline}});

  // Every input is read and checked before anything runs or prints.
  std::vector<RunFile> runs, bases;
  int validation = kExitOk;  // under --validation, 1 for any message of the layer (issue 49)
  if (!p.from.empty()) {
    check_from_alone(p.given);
    runs = read_results_all(p.from);  // a node file: every GPU's run
    if (!a.baseline.empty()) bases = read_results_all(a.baseline);
  } else {
    if (!p.save_run.empty()) check_writable(p.save_run, "--save-run");
    InventoryOnce devices;
    if (std::optional<RunFile> base = load_baseline(p.run, devices))
      bases.push_back(std::move(*base));
    const std::string missing = missing_api(a, devices);
    if (!missing.empty()) {
      std::cerr << "error: "
                << one_line("cannot compare CUDA with Vulkan: " + missing, kMaxErrorLine) << '\n';
      return kExitNotCompared;
    }
    JudgedRun run = p.run;
    run.args.columns.clear();  // --columns names the parity table's columns, not the run's
    const RunDocument doc = execute_run(run, cmdline, devices);
    if (doc.outcome.interrupted) {
      emit(doc, Format::table, "", true);
      return run_exit_code(doc);
    }
    if (!p.save_run.empty())
      write_output_file(p.save_run, format_run(doc, Format::json), "--save-run");
    runs.push_back(run_file_of(doc, "this run"));
    print_validation_messages(doc);
    if (!doc.validation_messages.empty()) validation = kExitFailed;
  }
  const int code = worse_exit(show_parity(runs, bases, p.run, !p.from.empty()), validation);
  if (!p.save_run.empty() && !a.quiet)
    std::cout << "wrote " << printable(p.save_run) << " (the run)\n";
  return code;
}

}  // namespace cuvk
