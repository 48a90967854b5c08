// One lane's dispatch trace (`cuvk trace`): what the runner recorded for one point on one API and
// binding (host/core/runner/runner_trace.cpp), beside that lane's row. The records' parsing and summary
// are host/core/runner/trace_summary.h; the document and its writers host/results/trace_file.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "stats.h"
#include "trace_summary.h"

namespace cuvk {

struct TraceLane {
  Api api = Api::cuda;
  Binding binding = Binding::pointer;
  std::optional<DeviceInfo> device;
  TraceSupport support;
  std::string unavailable;  // why this lane produced no trace ("" when it did)
  Geometry geometry;
  CuvkParams params{};  // the parameter block the traced launch ran with (the point's axes)
  // The traced run's output against the CPU reference, every element.
  bool verified = false;
  std::uint64_t checked = 0, mismatches = 0;
  std::optional<std::uint64_t> first_bad_index;
  std::string trace_error;  // what is wrong with the records ("" when sound)
  // GPU times of the same launch with the API's usual timers, each timed as `run` times a row
  // (warm-up, then batches until the stopping rule): the kernel alone and its traced twin.
  Summary untraced_ms, traced_ms;
  double recorded_ms = 0.0;  // the timer interval of the repetition whose records are kept
  std::vector<TraceBlock> blocks;
  TraceSummary summary;
};

}  // namespace cuvk
