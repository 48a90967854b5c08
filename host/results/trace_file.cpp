// `cuvk trace`'s document as JSON ("cuvk.trace/1") and as the console summary.
#include "trace_file.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "build_info.h"
#include "json_check.h"  // printable
#include "run_writer.h"

namespace cuvk {
namespace {

using json = nlohmann::json;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Every sweep axis's value by name, as a run file's params (axes.h).
json params_json(const AxisValues& values) {
  json params = json::object();
  for (std::size_t i = 0; i < axes().size(); ++i) params[axes()[i].name] = values.values()[i];
  return params;
}

// The axis values a launch's parameter block holds (those that reach the kernel: Axis::param).
json launched_params_json(const CuvkParams& p) {
  json params = json::object();
  for (const Axis& a : axes())
    if (a.param != nullptr) params[a.name] = p.*(a.param);
  return params;
}

json summary_ms_json(const Summary& s) {
  return {{"median", s.median}, {"ci_low", s.ci_low}, {"ci_high", s.ci_high},
          {"min", s.min},       {"max", s.max},       {"samples", s.samples}};
}

json trace_summary_json(const TraceSummary& s) {
  json residency = json::array();
  for (const ResidencyBin& b : s.residency) residency.push_back({b.t0_ns, b.t1_ns, b.per_sm});
  return {{"blocks", s.blocks},
          {"sm_known", s.sm_known},
          {"sms_seen", s.sms_seen},
          {"span_ns", s.span_ns},
          {"launch_rate_blocks_per_us", s.launch_rate_per_us},
          {"steady_ns", {s.steady_t0_ns, s.steady_t1_ns}},
          {"first_wave_blocks", s.first_wave_blocks},
          {"resident_per_sm_mean", s.resident_mean},
          {"resident_per_sm_max", s.resident_max},
          {"in_flight_mean", s.in_flight_mean},
          {"in_flight_max", s.in_flight_max},
          {"tail_last_start_ns", s.tail_last_start_ns},
          {"tail_95_ns", s.tail_95_ns},
          {"block_median_ns", s.block_median_ns},
          {"block_p95_ns", s.block_p95_ns},
          {"refills", s.refills},
          {"refill_median_ns", s.refills ? json(s.refill_median_ns) : json(nullptr)},
          {"refill_p95_ns", s.refills ? json(s.refill_p95_ns) : json(nullptr)},
          {"clock_step_ns", s.clock_step_ns},
          {"residency", residency}};
}

json lane_json(const TraceLane& l) {
  json lane = {{"api", api_name(l.api)},
               {"binding", binding_name(l.binding)},
               {"device", l.device ? device_json(*l.device) : json(nullptr)},
               {"unavailable", l.unavailable.empty() ? json(nullptr) : json(l.unavailable)},
               {"clock", l.support.clock},
               {"ticks_per_ns", l.support.ticks_per_ns},
               {"sm_ids", l.support.sm_ids},
               {"sm_ids_unavailable",
                l.support.sm_ids ? json(nullptr) : json(l.support.sm_ids_unavailable)}};
  if (!l.unavailable.empty()) return lane;
  lane["geometry"] = {{"block_size", l.geometry.block_size},
                      {"grid_x", l.geometry.grid_x},
                      {"grid_y", l.geometry.grid_y}};
  lane["params"] = launched_params_json(l.params);
  lane["verified"] = l.verified;
  lane["checked"] = l.checked;
  lane["mismatches"] = l.mismatches;
  lane["first_bad_index"] = l.first_bad_index ? json(*l.first_bad_index) : json(nullptr);
  lane["trace_error"] = l.trace_error.empty() ? json(nullptr) : json(l.trace_error);
  lane["untraced_ms"] = summary_ms_json(l.untraced_ms);
  lane["traced_ms"] = summary_ms_json(l.traced_ms);
  lane["tracing_cost"] =
      l.untraced_ms.median > 0.0 ? json(l.traced_ms.median / l.untraced_ms.median) : json(nullptr);
  lane["recorded_ms"] = l.recorded_ms;
  lane["span_over_recorded"] =
      l.recorded_ms > 0.0 ? json(l.summary.span_ns / (l.recorded_ms * 1e6)) : json(nullptr);
  lane["summary"] = trace_summary_json(l.summary);
  json blocks = json::array();  // [sm (null: unknown), start_ns, end_ns] in block order, whole ns
  for (const TraceBlock& b : l.blocks)
    blocks.push_back({b.sm == kNoSm ? json(nullptr) : json(b.sm), std::llround(b.start_ns),
                      std::llround(b.end_ns)});
  lane["blocks"] = std::move(blocks);
  return lane;
}

void text_lane(std::ostringstream& out, const TraceLane& l) {
  const std::string name = std::string(api_name(l.api)) + " (" + binding_name(l.binding) + ")";
  if (!l.unavailable.empty()) {
    out << name << ": unavailable: " << printable(l.unavailable) << "\n\n";
    return;
  }
  const TraceSummary& s = l.summary;
  out << name << ": grid " << l.geometry.grid_x << " x " << l.geometry.grid_y << " blocks of "
      << l.geometry.block_size << "; clock: " << l.support.clock << "\n";
  out << "  output: " << (l.verified ? "verified" : "FAILED") << " (" << l.checked << " elements, "
      << l.mismatches << " wrong)";
  out << "; trace: " << (l.trace_error.empty() ? "every record sound" : printable(l.trace_error))
      << "\n";
  if (!l.trace_error.empty() || !l.verified) return;
  out << "  blocks " << s.blocks << ", SMs seen "
      << (s.sm_known ? std::to_string(s.sms_seen)
                     : "unknown (" + l.support.sm_ids_unavailable + ")")
      << "\n";
  out << "  launch rate      " << fixed(s.launch_rate_per_us, 1)
      << " blocks/us (starts between the 10th and 90th percentile start)\n";
  out << (s.sm_known ? "  resident per SM  mean " : "  resident per GPU mean ")
      << fixed(s.resident_mean, 2) << ", max " << fixed(s.resident_max, 0)
      << " (in flight on the GPU: mean " << fixed(s.in_flight_mean, 1) << ", max "
      << fixed(s.in_flight_max, 0) << ")\n";
  out << "  first wave       " << fixed(s.first_wave_blocks, 0)
      << " blocks started before the first one ended\n";
  out << "  block time       median " << fixed(s.block_median_ns / 1e3, 3) << " us, p95 "
      << fixed(s.block_p95_ns / 1e3, 3) << " us\n";
  if (s.refills != 0) {
    out << "  refill           median " << fixed(s.refill_median_ns, 0) << " ns, p95 "
        << fixed(s.refill_p95_ns, 0) << " ns from a block's end to the next start on its SM ("
        << s.refills << " blocks)\n";
  } else {
    out << "  refill           -"
        << (s.sm_known ? " (no block followed another on its SM)\n" : " (needs SM ids)\n");
  }
  out << "  tail             " << fixed(s.tail_last_start_ns / 1e3, 3)
      << " us from the last block start to the end; " << fixed(s.tail_95_ns / 1e3, 3)
      << " us from 95% of blocks done\n";
  out << "  span             " << fixed(s.span_ns / 1e6, 4) << " ms (first start .. last end) = "
      << fixed(l.recorded_ms > 0 ? s.span_ns / (l.recorded_ms * 1e6) : 0.0, 3)
      << " of that run's timer interval " << fixed(l.recorded_ms, 4) << " ms; clock step "
      << fixed(s.clock_step_ns, 0) << " ns\n";
  const double over = l.recorded_ms > 0 ? s.span_ns / (l.recorded_ms * 1e6) : 0.0;
  if (l.recorded_ms > 0 && (over > 1.02 || over < 0.5)) {
    out << "  WARNING          the span is " << fixed(over, 3)
        << " of the timer interval: the clock's ticks are probably not "
        << fixed(1.0 / l.support.ticks_per_ns, 3) << " ns each\n";
  }
  out << "  tracing cost     traced " << fixed(l.traced_ms.median, 4) << " ms vs untraced "
      << fixed(l.untraced_ms.median, 4) << " ms (medians of " << l.traced_ms.samples << "): x"
      << fixed(l.untraced_ms.median > 0 ? l.traced_ms.median / l.untraced_ms.median : 0.0, 3)
      << "\n\n";
}

}  // namespace

namespace {

// A lane for a row the runner did not trace: unavailable with the row's reason, or, where the
// kernel's own output was wrong (or it failed), a failed lane that says so.
TraceLane untraced_lane(const ResultRow& r) {
  TraceLane lane;
  lane.api = r.api;
  lane.binding = r.binding;
  lane.geometry = r.geometry;
  if (r.status == Status::unavailable) {
    lane.unavailable = r.reason.empty() ? "not traced" : r.reason;
    return lane;
  }
  lane.checked = r.checked;
  lane.mismatches = r.mismatches;
  lane.first_bad_index = r.first_bad_index;
  lane.trace_error = "not traced: " + (r.reason.empty() ? std::string("the row failed") : r.reason);
  return lane;
}

}  // namespace

TraceDocument trace_document(const RunDocument& run) {
  const RunOutcome& o = run.outcome;
  TraceDocument doc;
  doc.n = o.n;
  doc.flush_bytes = o.flush_bytes;
  doc.reps = run.config.reps;
  doc.warmup = run.config.warmup;
  doc.target_ci = run.config.target_ci;
  doc.max_time_s = o.max_time_s;
  doc.command_line = run.command_line;
  doc.date_utc = run.date_utc;
  doc.host = run.host;
  doc.device_note = run.choice.note;
  doc.wall_s = run.wall_s;
  std::vector<bool> taken(o.traces.size(), false);
  for (const ResultRow& r : o.rows) {
    if (doc.lanes.empty()) {
      doc.test = r.test;
      doc.layout = r.layout;
      doc.variant = r.variant;
      doc.kernel = r.kernel;
      doc.point = point_label(r);
      doc.axes = r.axes;
      doc.block_size = r.block_size;
    }
    std::size_t i = 0;
    while (i < o.traces.size() &&
           (taken[i] || o.traces[i].api != r.api || o.traces[i].binding != r.binding))
      ++i;
    if (i < o.traces.size()) taken[i] = true;
    doc.lanes.push_back(i < o.traces.size() ? o.traces[i] : untraced_lane(r));
  }
  return doc;
}

bool lane_ok(const TraceLane& lane) {
  return lane.unavailable.empty() && lane.verified && lane.trace_error.empty();
}

json trace_json(const TraceDocument& doc) {
  json lanes = json::array();
  for (const TraceLane& l : doc.lanes) lanes.push_back(lane_json(l));
  return {{"schema", kTraceSchema},
          {"provenance",
           {{"tool", "cuvk"},
            {"version", build::kVersion},
            {"git_revision", build::kGitRevision},
            {"date_utc", doc.date_utc},
            {"host", doc.host},
            {"command_line", doc.command_line},
            {"wall_s", doc.wall_s},
            {"pairing", doc.device_note},
            {"build", build_json()}}},
          {"settings",
           {{"test", doc.test},
            {"layout", doc.layout.empty() ? json(nullptr) : json(doc.layout)},
            {"variant", doc.variant},
            {"kernel", doc.kernel},
            {"params", params_json(doc.axes)},
            {"n", doc.n},
            {"block_size", doc.block_size},
            {"reps", doc.reps},
            {"warmup", doc.warmup},
            {"target_ci", doc.target_ci},
            {"max_time_s", doc.max_time_s},
            {"l2", doc.flush_bytes ? "cold" : "warm"},
            {"flush_bytes", doc.flush_bytes}}},
          {"lanes", lanes}};
}

std::string trace_text(const TraceDocument& doc) {
  std::ostringstream out;
  out << "trace " << doc.kernel << (doc.point.empty() ? "" : " " + doc.point) << ": n = " << doc.n
      << ", block " << doc.block_size << "; the kernel and its traced copy each timed as `run` "
      << "times a row (" << doc.warmup << " warm-up, then batches of " << doc.reps
      << " until the median's 95% CI is within " << fixed(100.0 * doc.target_ci, 2) << "% or "
      << fixed(doc.max_time_s, 2) << " s have passed); "
      << (doc.flush_bytes ? fmt::format("L2 cold: a {} MiB read-only flush before each (and before "
                                        "the traced run kept)",
                                        doc.flush_bytes >> 20)
                          : std::string("L2 warm: no flush"))
      << "\n";
  if (!doc.device_note.empty()) out << printable(doc.device_note) << "\n";
  out << "\n";
  for (const TraceLane& l : doc.lanes) text_lane(out, l);
  return out.str();
}

}  // namespace cuvk
