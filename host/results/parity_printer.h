// Printers of CUDA vs Vulkan parity (parity.h): table, Markdown, CSV, JSON. They only format.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "baseline.h"
#include "parity.h"
#include "printing.h"

namespace cuvk {

nlohmann::json parity_json(const RunFile& run, const ParityResult& p);

// The text formats (table, md); `heading_level` is the Markdown heading depth (0: no heading).
// `columns` (--columns) names the table's columns to print, in order; empty: all of them.
std::string parity_text(const RunFile& run, const ParityResult& p, bool markdown,
                        int heading_level = 2, const std::vector<std::string>& columns = {});

// The parity table's column headers (what --columns names).
std::vector<std::string> parity_table_headers();

// The CSV rows (after comparison_csv_header(), printing.h).
std::string parity_csv_rows(const ParityResult& p);

// The whole `cuvk parity` output in `format`: the parity comparison, then the baseline one if any.
std::string format_parity(const RunFile& run, const ParityResult& p, const BaselineResult* baseline,
                          Format format, const std::vector<std::string>& columns = {});

}  // namespace cuvk
