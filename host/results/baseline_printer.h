// Printers of a new run vs a saved one (baseline.h): table, Markdown, CSV, JSON. They only format.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "baseline.h"
#include "printing.h"

namespace cuvk {

nlohmann::json baseline_json(const BaselineResult& b);

// The text formats (table, md); `heading_level` is the Markdown heading depth.
std::string baseline_text(const BaselineResult& b, bool markdown, int heading_level = 2);

// The CSV rows (after comparison_csv_header(), printing.h).
std::string baseline_csv_rows(const BaselineResult& b);

// The baseline comparison alone (what `cuvk run --baseline` prints), in `format`.
std::string format_baseline(const BaselineResult& b, Format format);

}  // namespace cuvk
