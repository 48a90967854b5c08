// Hardware counters (`cuvk run --counters`) in the reports: the row's counter cells next to its
// modeled figures, and the JSON of a row's counters and of the run's counter settings
// (results/SCHEMA.md, "counters").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "row.h"
#include "runner.h"

namespace cuvk {

// The counter columns of the table (after the row's own), one cell each per row.
std::vector<std::string> counter_header_cells();
std::vector<std::string> counter_cells(const ResultRow& row);
// Typical widths of those columns for the streamed table.
std::vector<std::size_t> counter_widths();

// A row's counters: {"kernel": {...} | {"unavailable": reason}, "sampled": {...} | {...}}.
nlohmann::json counters_json(const RowCounters& c);
// The reader's side, lenient (an informative field): the sampled counters' figures (not their
// series) where written, else why not; the per-kernel counters are not read back. nullopt where
// `j` is not an object.
std::optional<RowCounters> read_counters(const nlohmann::json& j);
// The run's counter settings: enabled, source, metrics, sampling interval, and what they cost.
nlohmann::json counters_settings_json(const RunConfig& cfg, const RunOutcome& out);
// The host seconds of the phase "counters" (0 where none ran).
double counters_seconds(const RunOutcome& out);
// "counters cost 3.10 s, 31.0% of the wall time: switch to PM sampling 1.20 s; ..." for the
// report's footer; "" where no counters ran.
std::string counters_cost_line(const RunOutcome& out, double wall_s);

}  // namespace cuvk
