// `cuvk trace`'s document: per API, the traced kernel's verification, its records and their
// summary (host/core/trace_summary.h), and the tracing cost (traced vs untraced GPU time). Written
// as JSON (schema "cuvk.trace/1", results/SCHEMA.md) and as text; `--plot` draws the JSON with the
// plotter (host/cli/plotter.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "stats.h"
#include "trace_summary.h"

namespace cuvk {

inline constexpr const char* kTraceSchema = "cuvk.trace/1";

// One API's trace of the kernel.
struct TraceLane {
  Api api = Api::cuda;
  Binding binding = Binding::pointer;
  std::optional<DeviceInfo> device;
  TraceSupport support;
  std::string unavailable;  // why this API produced no trace ("" when it did)
  Geometry geometry;
  // The traced run's output against the CPU reference, every element.
  bool verified = false;
  std::uint64_t checked = 0, mismatches = 0;
  std::optional<std::uint64_t> first_bad_index;
  std::string trace_error;  // what is wrong with the records ("" when sound)
  // GPU times of the same launch with the API's usual timers: the kernel alone and its traced twin.
  Summary untraced_ms, traced_ms;
  double recorded_ms = 0.0;  // the timer interval of the repetition whose records are kept
  std::vector<TraceBlock> blocks;
  TraceSummary summary;
};

struct TraceDocument {
  std::string test, layout, variant, kernel;
  std::uint32_t n = 0, block_size = 0;
  std::uint64_t flush_bytes = 0;  // the L2 flush's scratch before every timed repetition; 0: warm
  int reps = 0, warmup = 0;
  std::string command_line, date_utc, host, device_note;
  double wall_s = 0.0;
  std::vector<TraceLane> lanes;
};

// A lane that traced: verified output and sound records.
bool lane_ok(const TraceLane& lane);

nlohmann::json trace_json(const TraceDocument& doc);
std::string trace_text(const TraceDocument& doc);  // the console summary

}  // namespace cuvk
