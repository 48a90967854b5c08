// CUDA vs Vulkan on the same run: the one pairing of a point's CUDA row with its Vulkan rows, and
// each pair's verdict (ratio, 95% interval, tolerance) and output comparison. `cuvk parity`, the
// results index and `cuvk report` use it. Pure computation; parity_printer.h formats it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lanes.h"
#include "row.h"
#include "verdicts.h"

namespace cuvk {

// A point's CUDA row and Vulkan row. A run with several Vulkan lanes gives one pair per lane, each
// with the point's CUDA row: per binding mode (descriptor, bda), and at copy-engine points per
// Vulkan queue family that can copy (cudaMemcpyAsync against vkCmdCopyBuffer on each family).
struct ApiPair {
  ResultRow point;  // the point's fields (either API's row)
  // The Vulkan row's lane (lanes.h: binding, queue family...); Vulkan's native one without a row.
  Lane vulkan_lane = Lane::native(Api::vulkan);
  std::optional<ResultRow> cuda, vulkan;
};
std::vector<ApiPair> pair_apis(const std::vector<ResultRow>& rows);  // in order of first appearance

// Whether two APIs' output buffers are the same bits (by their hashes: XXH3-64, or FNV-1a 64 in
// files written before it).
enum class OutputCheck { identical, mismatch, unknown };
const char* output_check_name(OutputCheck c);  // identical, MISMATCH, not hashed

enum class PairState {
  compared,     // both rows ok: ratio and verdict are set
  failed,       // a row failed verification: a difference in itself
  unavailable,  // an API has no row or did not run it: nothing to compare
};

struct ParityLine {
  ResultRow point;  // the point's fields (either API's row)
  Lane vulkan_lane = Lane::native(Api::vulkan);
  std::optional<ResultRow> cuda, vulkan;
  PairState state = PairState::unavailable;
  std::string reason;  // why not compared / what failed
  RatioCi ratio;       // Vulkan / CUDA, when compared
  Verdict verdict = Verdict::uncertain;
  OutputCheck outputs = OutputCheck::unknown;
  bool differs() const;  // counts against exit code 0
};

struct ParityResult : VerdictCounts {
  double tolerance = kDefaultTolerance;
  std::vector<ParityLine> lines;
  std::size_t failed = 0, unavailable = 0;
  std::size_t outputs_identical = 0, outputs_mismatch = 0;
  // Compared points where a side's output was not verified (unchecked, consistent, timing only):
  // its time is real, its correctness unknown (issue 31). Not a difference: exit 0 stays.
  std::size_t not_verified = 0;
  std::string not_compared_reason;  // one line: why some points could not be compared
  // 0 every point SAME with identical outputs; 1 any difference, UNCERTAIN verdict, failed row or
  // output mismatch; 2 (nothing differs but) some point could not be compared.
  int exit_code = 0;
};

ParityResult compare_apis(const std::vector<ResultRow>& rows, double tolerance);

}  // namespace cuvk
