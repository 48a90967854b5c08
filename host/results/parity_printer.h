// Printers for the comparisons of compare.h (parity and baseline): table, Markdown, CSV, JSON.
// They only format; every number and verdict comes from compare.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "verdicts.h"
#include "run_printer.h"

namespace cuvk {

inline constexpr const char* kParitySchema = "cuvk.parity/1";

// One line about a run for report headers: file, date, cuvk revision, GPU and drivers.
std::string describe_run(const RunFile& run);

nlohmann::json run_identity_json(const RunFile& run);
nlohmann::json parity_json(const RunFile& run, const ParityResult& p);
nlohmann::json baseline_json(const BaselineResult& b);

// Text formats (table, md) of each comparison; `heading_level` is the Markdown heading depth.
std::string parity_text(const RunFile& run, const ParityResult& p, bool markdown,
                        int heading_level = 2);
std::string baseline_text(const BaselineResult& b, bool markdown, int heading_level = 2);

// CSV shared by both comparisons: one header, then parity rows and/or baseline rows, told apart
// by the `comparison` column ("vulkan/cuda" or "new/baseline").
std::string comparison_csv_header();
std::string parity_csv_rows(const ParityResult& p);
std::string baseline_csv_rows(const BaselineResult& b);

// The whole `cuvk parity` output in `format`: the parity comparison, then the baseline one if any.
std::string format_parity(const RunFile& run, const ParityResult& p, const BaselineResult* baseline,
                          Format format);

// The baseline comparison alone (what `cuvk run --baseline` prints), in `format`.
std::string format_baseline(const BaselineResult& b, Format format);

}  // namespace cuvk
