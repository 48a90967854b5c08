// `cuvk trace`'s document: the run's one point and, per lane (API and binding), the traced
// kernel's verification, its records and their summary (host/core/runner/trace_lane.h), and the tracing
// cost (traced vs untraced GPU time). Made from the run the runner did with RunConfig::trace;
// written as JSON (schema "cuvk.trace/1", results/SCHEMA.md) and as text; `--plot` draws the JSON
// with the plotter (host/app/plotter.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "axes.h"
#include "run_writer.h"
#include "trace_lane.h"

namespace cuvk {

inline constexpr const char* kTraceSchema = "cuvk.trace/1";

struct TraceDocument {
  std::string test, layout, variant, kernel;
  std::string point;  // the point's sweep-axis values as run labels them ("offset=7"), or ""
  AxisValues axes;    // every axis's value at the point (the run's params)
  std::uint32_t n = 0, block_size = 0;
  std::uint64_t flush_bytes = 0;  // the L2 flush's scratch before every timed repetition; 0: warm
  int reps = 0, warmup = 0;       // the run's batch (and minimum sample count) and warm-up
  double target_ci = 0.0, max_time_s = 0.0;  // the run's stopping rule (fraction, seconds)
  std::string command_line, date_utc, host, device_note;
  double wall_s = 0.0;
  std::vector<TraceLane> lanes;
};

// The trace of a run made with RunConfig::trace: its point (the first row's), and a lane per row,
// the row's trace where the runner recorded one, else why there is none (the row's reason).
TraceDocument trace_document(const RunDocument& run);

// A lane that traced: verified output and sound records.
bool lane_ok(const TraceLane& lane);

nlohmann::json trace_json(const TraceDocument& doc);
std::string trace_text(const TraceDocument& doc);  // the console summary

}  // namespace cuvk
