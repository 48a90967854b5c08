// `cuvk report --fleet`: many boards measured one run file each (contrib/slurm/), judged together.
// Per GPU model and driver, the parity verdict counts; per GPU model, each board's medians against
// its siblings' (a slow board or a bad driver install is what a fleet run catches); and the tasks
// that produced no run file. Pure computation over parsed runs; the verdicts are parity.h's and verdicts.h's.
#pragma once

#include <string>
#include <vector>

#include "parity.h"
#include "printing.h"
#include "run_file.h"
#include "verdicts.h"

namespace cuvk {

inline constexpr const char* kFleetSchema = "cuvk.fleet/1";

// A fleet task that left no run file: its `<host>-<uuid>.failed` marker, `key: value` lines
// (contrib/slurm/task.sh writes host, uuid, exit_code, error; unknown keys are ignored).
struct FailedTask {
  std::string file, host, uuid, exit_code, error;
};
FailedTask parse_failed_marker(const std::string& text, const std::string& file);

struct FleetInputs {
  std::vector<RunFile> runs;
  std::vector<FailedTask> failed;
  std::vector<std::string> not_runs;  // cuvk's own derived documents in a folder, left out
};

// Files and folders. A folder contributes its *.json and *.failed files (not recursive, sorted);
// a file ending in .failed is a marker, any other a run file. Every run file is checked before
// this returns (read_all_results), so a bad one stops the command before anything is printed.
FleetInputs read_fleet_inputs(const std::vector<std::string>& paths);

// The parity verdicts (compare_apis) of every run of one GPU model with one pair of drivers.
struct FleetGroup {
  std::string gpu, cuda_driver, vulkan_driver;
  std::size_t boards = 0, flagged = 0;  // flagged: boards that differ from their siblings
  std::size_t same = 0, faster = 0, slower = 0, uncertain = 0, failed = 0, not_compared = 0;
  std::size_t outputs_mismatch = 0;
};

// One board (one run file) against the other boards of its GPU model. Per point (test, layout,
// variant, parameters, API, binding) its median over the siblings' median (for an even count of
// siblings the midpoint of the middle two, its interval spanning both), with the ratio's 95%
// interval (ratio_ci) and a verdict (judge) at the tolerance.
struct FleetBoard {
  std::string run, host, uuid, gpu, cuda_driver, vulkan_driver;
  std::size_t siblings = 0;  // other boards of the same GPU model
  std::size_t compared = 0, same = 0, faster = 0, slower = 0, uncertain = 0;
  double typical_ratio = 1.0;  // geometric mean of the compared points' ratios
  std::string worst_point;     // the point furthest from its siblings ("" when none compared)
  RatioCi worst;
  bool flagged() const { return faster + slower > 0; }
};

struct FleetView {
  double tolerance = kDefaultTolerance;
  std::vector<FleetGroup> groups;  // in order of first appearance
  std::vector<FleetBoard> boards;  // one per run, in input order
  std::vector<FailedTask> failed;
};

FleetView fleet_view(const std::vector<RunFile>& runs, const std::vector<FailedTask>& failed,
                     double tolerance);

// table/md: the fleet tables, then the merged tables of every run (format_merged); json:
// cuvk.fleet/1 with the merged report under "report". csv is a UsageError.
std::string format_fleet(const FleetView& view, const std::vector<RunFile>& runs, Format format);

}  // namespace cuvk
