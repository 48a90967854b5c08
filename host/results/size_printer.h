// The run's tables of issue 33 (problem size as an axis), under its rows: the size curves
// (plateau and the size reaching 90% of it) and each API's empty dispatch (the calibration).
#pragma once

#include <string>
#include <vector>

#include "row.h"
#include "runner.h"

namespace cuvk {

// "" where no point ran at two sizes or more.
std::string size_curve_table(const std::vector<ResultRow>& rows, bool markdown);
// "" where nothing was calibrated.
std::string calibration_table(const std::vector<Calibration>& calibration, bool markdown);

}  // namespace cuvk
