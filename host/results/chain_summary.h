// The chain test's summary (issue 33): every submission mode of each chain point side by side,
// CUDA's and Vulkan's corresponding modes on one line (lanes.h submission_group), with the GPU
// time per step, its interval and the host's wall time per step. Pure formatting over the rows.
#pragma once

#include <string>
#include <vector>

#include "row.h"

namespace cuvk {

// "" where the run has no chain rows.
std::string chain_summary_table(const std::vector<ResultRow>& rows, bool markdown);

}  // namespace cuvk
