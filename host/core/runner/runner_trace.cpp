// `cuvk trace` in the runner (runner_trace.h): a lane's traced twin, timed as the row was and
// recorded once, on the row's buffers, inputs and L2 flush. LaneRun calls it after the row.
#include "runner_trace.h"

#include <exception>
#include <string>
#include <vector>

#include "error.h"
#include "host_data.h"
#include "trace_summary.h"

namespace cuvk::runner_detail {
namespace {

std::vector<std::uint32_t> download_words(Backend& b, const DeviceBuffer& buf) {
  std::vector<std::uint32_t> words(buf.bytes() / sizeof(std::uint32_t));
  b.download(buf, words.data(), words.size() * sizeof(std::uint32_t));
  return words;
}

// The repetition whose records are kept: fresh trace, poisoned output, one repetition after the
// flush where there is one; then its output verified and its records checked and summarised.
void record(Backend& b, const Launch& traced, const Launch* before, const Inputs& in,
            TraceLane& lane) {
  lane.params = builtin_params(traced);
  DeviceBuffer& outbuf = *traced.buffers.at(1).buffer;
  b.fill(outbuf, kPoisonWord);
  b.fill(*traced.trace, 0);
  lane.recorded_ms = b.run(traced, RunOptions{1, before}).front();
  b.download(outbuf, in.download.data(), in.download.size() * sizeof(float));
  ResultRow check;
  verify(in.download, in.expected, check);
  lane.verified = check.verified;
  lane.checked = check.checked;
  lane.mismatches = check.mismatches;
  lane.first_bad_index = check.first_bad_index;
  const Geometry& g = traced.geometry;
  const std::size_t blocks = std::size_t{g.grid_x} * g.grid_y;
  // SM ids are not bounded by the SM count: %smid (and gl_SMIDNV) need not be contiguous.
  TraceRecords records = parse_trace(download_words(b, *traced.trace), blocks,
                                     lane.support.ticks_per_ns, lane.support.sm_ids, 0);
  lane.trace_error = records.error;
  lane.blocks = std::move(records.blocks);
  if (lane.trace_error.empty()) lane.summary = summarize_trace(lane.blocks);
}

}  // namespace

void trace_lane(const Timing& timing, const ApiState& a, const Launch& launch, const Launch* before,
                const Inputs& in, const ResultRow& row) {
  RunOutcome& out = timing.out;
  Backend& b = *a.backend;
  TraceLane lane;
  lane.api = a.api;
  lane.binding = launch.binding;
  lane.device = b.info();
  lane.geometry = launch.geometry;
  lane.untraced_ms = row.time_ms;
  if (const Traces* traces = b.find<Traces>())
    lane.support = traces->trace_support();
  else
    lane.support.unavailable = lane.support.sm_ids_unavailable = b.lacks<Traces>();
  lane.unavailable = lane.support.unavailable;
  if (lane.unavailable.empty()) try {
      const Geometry& g = launch.geometry;
      const auto trace =
          b.allocate(std::size_t{g.grid_x} * g.grid_y * CUVK_TRACE_WORDS * sizeof(std::uint32_t));
      Launch traced = launch;
      traced.trace = trace.get();
      ResultRow timed = row;
      measure(timing, b, traced, before, timed);
      lane.traced_ms = timed.time_ms;
      if (timed.status != Status::ok) lane.unavailable = timed.reason;  // interrupted
      PhaseTimer t(out.phase_s, api_phase(a.api, "trace"));
      if (lane.unavailable.empty()) record(b, traced, before, in, lane);
    } catch (const std::exception& e) {
      lane.unavailable = std::string("tracing failed: ") + e.what();
    }
  out.traces.push_back(std::move(lane));
}

}  // namespace cuvk::runner_detail
