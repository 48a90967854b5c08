// `cuvk trace` in the runner (runner_trace.cpp): one measured lane's traced twin, recorded and
// timed beside its row. Private to host/core, as runner_parts.h.
#pragma once

#include "runner_parts.h"

namespace cuvk::runner_detail {

// With RunConfig::trace (timing.cfg), after `row` (the lane's kernel, verified and measured): the
// traced twin of `launch` timed as the row was (warm-up, batches until the stopping rule), then one
// more repetition into a zeroed trace buffer and a poisoned output (after `before`, the L2 flush,
// where set), its output verified against the point's expected output and every record checked; the
// lane's trace goes to out.traces (unavailable, with the reason, where the backend cannot trace).
void trace_lane(const Timing& timing, const ApiState& a, const Launch& launch, const Launch* before,
                const Inputs& in, const ResultRow& row);

}  // namespace cuvk::runner_detail
