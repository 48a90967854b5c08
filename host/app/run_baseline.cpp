// `cuvk run --baseline FILE`: the saved run read and checked before anything runs, then every row
// of this run compared with it; and what `cuvk parity` shares with it (a live run as the reader
// sees it, the exit code that says more).
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "backends.h"
#include "baseline.h"
#include "baseline_printer.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "devices.h"
#include "error.h"
#include "run_reader.h"
#include "run_writer.h"

namespace cuvk {
namespace {

std::optional<RunDevice> run_device(const std::optional<DeviceInfo>& d) {
  if (!d) return std::nullopt;
  RunDevice r;
  r.name = d->name;
  r.uuid = format_uuid(d->uuid);
  r.driver = d->driver;
  r.is_cpu = d->is_cpu;
  return r;
}

std::string board_uuid(const RunFile& r) {
  if (r.cuda) return r.cuda->uuid;
  return r.vulkan ? r.vulkan->uuid : std::string();
}

}  // namespace

RunFile chosen_devices_run(const DeviceChoice& choice) {
  RunFile now;
  now.name = "this run";
  now.cuda = run_device(choice.cuda);
  now.vulkan = run_device(choice.vulkan);
  return now;
}

const RunFile& baseline_for(const std::vector<RunFile>& bases, const RunFile& now,
                            std::size_t position, std::size_t count, std::string& note) {
  note.clear();
  if (bases.size() == 1) return bases.front();
  const std::string uuid = board_uuid(now);
  for (const RunFile& b : bases)
    if (!uuid.empty() && board_uuid(b) == uuid) return b;
  const RunFile& b = bases.size() == count && position < count ? bases[position] : bases.front();
  note = "no GPU of the baseline has UUID " + (uuid.empty() ? "-" : uuid) + ": compared with " +
         b.name + (bases.size() == count ? " (the same position in the list)" : " (its first)");
  return b;
}

std::optional<RunFile> load_baseline(const JudgedRun& run, InventoryOnce& devices) {
  const RunArgs& a = run.args;  // the tolerance: judged with the run (judge_run)
  if (a.baseline.empty()) return std::nullopt;
  const std::vector<RunFile> bases = read_results_all(a.baseline);  // a node file: its GPUs
  // Same GPU model as the device this run is about to use: a usage error now, not after the run.
  const RunFile now = chosen_devices_run(choose_devices(devices.get(), a.device));
  std::string note;
  RunFile base = baseline_for(bases, now, 0, 1, note);
  if (!note.empty()) std::cerr << "note: " << printable(note) << '\n';
  check_same_gpu(now, base);
  return base;
}

int emit_baseline(const RunDocument& doc, const RunFile& base, const JudgedRun& j) {
  const RunArgs& a = j.args;
  const BaselineResult b = compare_baseline(run_file_of(doc, "this run"), base, j.tolerance);
  const Format f = j.format;
  const Format text = f == Format::md ? Format::md : Format::table;
  if (a.output.empty() && (f == Format::json || f == Format::csv))
    std::cerr << '\n' << format_baseline(b, Format::table);  // stdout carries the run's data
  else if (!a.quiet || b.exit_code != kExitOk)
    std::cout << '\n' << format_baseline(b, text) << std::flush;
  else
    for (const std::string& n : b.notes)
      std::cerr << "note: " << printable(n) << '\n';  // --quiet: notes only
  if (b.exit_code == kExitNotCompared)  // the table says which rows; this line says why
    std::cerr << "error: "
              << one_line(
                     fmt::format("no row of this run could be compared with a row of the baseline "
                                 "{} ({} rows not comparable: other points or APIs, or not ok)",
                                 a.baseline, b.not_compared),
                     kMaxErrorLine)
              << '\n';
  else if (b.exit_code == kExitDiffers)
    std::cerr << "error: against the baseline " << one_line(a.baseline, kMaxErrorLine) << ": "
              << b.slower << " rows SLOWER, " << b.uncertain << " UNCERTAIN\n";
  return b.exit_code;
}

RunFile run_file_of(const RunDocument& doc, const std::string& name) {
  return parse_results(run_json(doc).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       name);
}

int worse_exit(int a, int b) {
  auto rank = [](int c) {
    if (c == kExitOk) return 0;
    if (c == kExitNotCompared) return 1;
    if (c == kExitDiffers) return 2;
    return 3;  // usage/environment/interrupted as such
  };
  if (rank(a) == 3 || rank(b) == 3) return std::max(a, b);
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace cuvk
