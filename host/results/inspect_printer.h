// `cuvk inspect`'s report of one kernel (host/inspect/kernel_inspection.h): the side-by-side
// summary, the SASS table, occupancy per block size and (with listings) the PTX, SASS, pipeline
// statistics and SPIR-V. Formatting only: every figure comes from the KernelInspection.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "kernel_inspection.h"

namespace cuvk {

// Left-aligned columns, two spaces apart; rows[0] is the header, underlined.
std::string inspect_columns(const std::vector<std::vector<std::string>>& rows);

void print_kernel_inspection(std::ostream& out, const inspect::KernelInspection& k, bool listings);

}  // namespace cuvk
