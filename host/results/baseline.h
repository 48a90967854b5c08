// A new run vs a saved one (`--baseline`): rows matched by identity, each with its now/baseline
// ratio, 95% interval and verdict; a SLOWER row fails the run. Pure computation;
// baseline_printer.h formats it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {

struct BaselineLine {
  ResultRow now;
  std::optional<ResultRow> base;  // nullopt: the row is new (not in the baseline)
  bool compared = false;          // both ok
  std::string reason;             // why not compared
  RatioCi ratio;                  // now / baseline
  Verdict verdict = Verdict::uncertain;
};

struct BaselineResult : VerdictCounts {
  std::string baseline_name, now_name;
  double tolerance = kDefaultTolerance;
  std::vector<std::string> notes;   // e.g. same model, different board
  std::vector<BaselineLine> lines;  // every row of the new run measured on either side
  std::vector<ResultRow> only_in_baseline;
  std::size_t not_compared = 0;
  std::size_t unavailable_both = 0;  // rows neither run measured (e.g. CUDA on a CPU-only machine)
  // 1 when any row is SLOWER or UNCERTAIN; else 2 when no row could be compared; else 0 (FASTER
  // rows alone pass).
  int exit_code = 0;
};

// Throws UsageError naming both GPUs when a device common to both runs has a different name;
// returns a note when the names match but the UUIDs do not (another board of the same model).
std::vector<std::string> check_same_gpu(const RunFile& now, const RunFile& base);

BaselineResult compare_baseline(const RunFile& now, const RunFile& base, double tolerance);

}  // namespace cuvk
