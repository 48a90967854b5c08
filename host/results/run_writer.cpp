#include "run_writer.h"

#include "axes.h"
#include "build_info.h"
#include "counters_report.h"
#include "dispatch_report.h"
#include "printing.h"
#include "run_file.h"
#include "run_summary.h"
#include "verdicts.h"

namespace cuvk {

using nlohmann::json;

json build_json() {
  return {{"type", build::kBuildType},       {"cxx_compiler", build::kCxxCompiler},
          {"cxx_flags", build::kCxxFlags},   {"cuda_compiler", build::kCudaCompiler},
          {"cuda_flags", build::kCudaFlags}, {"cuda_architectures", build::kCudaArchitectures},
          {"glslang", build::kGlslang}};
}

namespace {

json summary_json(const Summary& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

}  // namespace

double phase_cover(const RunDocument& doc) {
  double sum = 0.0;
  for (const auto& [phase, s] : doc.outcome.phase_s) sum += s;
  return doc.wall_s > 0 ? sum / doc.wall_s : 0.0;
}

namespace {

// Seconds per phase, as an object (keyed by name, sorted, as phase_s).
json phases_json(const std::vector<std::pair<std::string, double>>& phases) {
  json o = json::object();
  for (const auto& [phase, s] : phases) o[phase] = s;
  return o;
}

json provenance_json(const RunDocument& doc) {
  return {{"tool", "cuvk"},
          {"version", build::kVersion},
          {"git_revision", build::kGitRevision},
          {"date_utc", doc.date_utc},
          {"host", doc.host},
          {"command_line", doc.command_line},
          {"wall_s", doc.wall_s},
          {"first_row_s", doc.first_row_s},
          {"phase_s",
           [&doc] {
             json phases = json::object();  // host wall time per phase of the driver
             for (const auto& [phase, s] : doc.outcome.phase_s) phases[phase] = s;
             return phases;
           }()},
          {"phase_cover", phase_cover(doc)},
          {"background_phase_s",
           [&doc] {
             json phases = json::object();  // other threads' work, overlapping phase_s
             for (const auto& [phase, s] : doc.outcome.background_s) phases[phase] = s;
             return phases;
           }()},
          {"first_row_phase_s", phases_json(doc.outcome.first_row_phase_s)},
          {"first_row_background_phase_s", phases_json(doc.outcome.first_row_background_s)},
          {"build", build_json()}};
}

json settings_json(const RunDocument& doc) {
  const RunConfig& c = doc.config;
  json apis = json::array();
  for (Api a : c.apis) apis.push_back(api_name(a));
  json bindings = json::array();
  for (Binding b : c.vk_bindings) bindings.push_back(binding_name(b));
  json s = {
      {"tests", c.tests},
      {"apis", apis},
      {"n", doc.outcome.n},
      {"n_rule", doc.outcome.n_rule},
      {"sizes", doc.outcome.sizes},
      {"reps", c.reps},
      {"warmup", c.warmup},
      {"block_sizes", c.block_sizes},
      {"vk_bindings", bindings},
      {"target_ci", c.target_ci},
      {"max_time_s", doc.outcome.max_time_s},
      {"settle_ms", c.settle_ms},
      {"seed", c.seed},
      {"l2", c.l2 == L2Mode::cold ? "cold" : "warm"},
      {"l2_flush_bytes", doc.outcome.flush_bytes},
      {"timer", "GPU: CUDA events on a non-blocking stream; Vulkan vkCmdWriteTimestamp pairs"},
      {"gbps_unit", "1e9 bytes/s"},
      {"counters", counters_settings_json(c, doc.outcome)}};
  for (const Axis& axis : axes()) {  // "offsets", "strides": each axis's swept values
    const auto given = c.axis_values.find(axis.name);
    s[axis.name + "s"] = given != c.axis_values.end() ? given->second : axis.defaults;
  }
  return s;
}

json measurement_json(const RunOutcome& o) {
  return {{"l2_bytes", o.l2_bytes},
          {"dram_peak_gbps", o.dram_peak_gbps ? json(*o.dram_peak_gbps) : json(nullptr)},
          {"clock_monitor", o.clock_monitor},
          {"settle_gpu_ms", o.settle},
          {"clocks_after_settle",
           o.clocks_after_settle ? clock_json(*o.clocks_after_settle) : json(nullptr)}};
}

json host_json(const std::vector<HostCostSummary>& hosts) {
  json host = json::array();
  for (const HostCostSummary& h : hosts) {
    json startup = json::object();
    for (const auto& [what, ms] : h.startup_ms) startup[what] = ms;
    host.push_back({{"api", api_name(h.api)},
                    {"launch_us", summary_json(h.launch_us)},
                    {"submit_recorded_us", summary_json(h.submit_us)},
                    {"launch_and_wait_us", summary_json(h.round_trip_us)},
                    {"startup_ms", startup}});
  }
  return host;
}

// Per API: the empty dispatch's GPU time and the timer (issue 33), keyed by API name.
json calibration_json(const std::vector<Calibration>& calibration) {
  json c = json::object();
  for (const Calibration& k : calibration) {
    const Summary& s = k.empty_dispatch_ms;
    c[api_name(k.api)] = {
        {"empty_dispatch_ms",
         {{"median", s.median},
          {"min", s.min},
          {"max", s.max},
          {"q1", s.q1},
          {"q3", s.q3},
          {"rel_spread", s.rel_spread},
          {"ci_low", s.ci_low},
          {"ci_high", s.ci_high},
          {"samples", s.samples}}},
        {"launch_bound_below_ms", kLaunchBoundFactor * s.median},
        {"timer_resolution_ns", k.timer.resolution_ns},
        {"timer_resolution_source", k.timer.source},
        {"timestamp_valid_bits", k.timer.valid_bits ? json(k.timer.valid_bits) : json(nullptr)},
        {"observed_step_ns", k.observed_step_ns}};
  }
  return c;
}

json devices_json(const DeviceChoice& choice) {
  return {
      {"cuda", choice.cuda ? device_json(*choice.cuda) : json(nullptr)},
      {"vulkan", choice.vulkan ? device_json(*choice.vulkan) : json(nullptr)},
      {"same_gpu", choice.same_gpu},
      {"pairing", choice.note},
      {"cuda_unavailable_reason", choice.cuda ? json(nullptr) : json(choice.cuda_reason)},
      {"vulkan_unavailable_reason", choice.vulkan ? json(nullptr) : json(choice.vulkan_reason)}};
}

// The schema's key names the tolerance the callout uses: it cannot follow the constant silently.
static_assert(kDefaultTolerance == 0.03, "summary.parity[].differs_by_more_than_3pct says 3%");

// The console's summary tables as data (run_summary.h).
json summary_tables_json(const std::vector<ResultRow>& rows) {
  json parity = json::array();
  for (const ParitySummaryRow& p : parity_summary(rows)) {
    parity.push_back(
        {{"cuda_ms", p.cuda_ms ? json(*p.cuda_ms) : json(nullptr)},
         {"vulkan_ms", p.vulkan_ms ? json(*p.vulkan_ms) : json(nullptr)},
         {"vulkan_over_cuda", p.vulkan_over_cuda ? json(*p.vulkan_over_cuda) : json(nullptr)},
         {"differs_by_more_than_3pct", p.differs}});
    put_point(parity.back(), kPointSummaryJson, p.point);     // test, layout, variant, point...
    put_lane(parity.back(), "vulkan_", p.vulkan_lane, true);  // binding, queue family...
  }
  json layouts = json::array();
  for (const LayoutSummaryRow& l : layout_summary(rows)) {
    layouts.push_back(
        {{"aos_ms", l.aos_ms}, {"soa_ms", l.soa_ms}, {"aos_over_soa", l.aos_over_soa}});
    put_point(layouts.back(), kPointLayouts, l.point);  // test, variant, block_size
    put_lane(layouts.back(), "", l.lane, false);        // api, binding...
  }
  json curves = json::array();
  for (const SizeCurveRow& c : size_curves(rows)) {
    json sizes = json::array();
    for (const auto& [n, gbps] : c.gbps) sizes.push_back({{"n", n}, {"gbps_useful", gbps}});
    curves.push_back({{"plateau_n", c.plateau_n},
                      {"plateau_gbps_useful", c.plateau_gbps},
                      {"plateau_fraction", kPlateauFraction},
                      {"n_at_fraction", c.n_at_fraction},
                      {"sizes", sizes}});
    ResultRow point = c.point;
    point.n_in_label = false;  // the curve is every n: its label names the point alone
    put_point(curves.back(), kPointSummaryJson, point);
    put_lane(curves.back(), "", Lane::of(point), false);
  }
  return {{"parity", parity}, {"layouts", layouts}, {"size_curves", curves}};
}

}  // namespace

json device_json(const DeviceInfo& d) {
  json props = json::object();
  for (const auto& [k, v] : d.properties) props[k] = v;
  return {{"api", api_name(d.api)},
          {"index", d.index},
          {"name", d.name},
          {"uuid", format_uuid(d.uuid)},
          {"is_cpu", d.is_cpu},
          {"memory_bytes", d.memory_bytes},
          {"max_buffer_bytes", d.max_buffer_bytes},
          {"l2_bytes", d.l2_bytes},
          {"memory_bus_bits", d.memory_bus_bits},
          {"driver", d.driver},
          {"properties", props}};
}

json node_json(const NodeView& v) {
  json health = json(nullptr);
  if (v.gpu) {
    health = json::object();
    if (!v.health.available) health["unavailable"] = v.health.why;
    for (const auto& [k, value] : v.health.fields) health[k] = value;
  }
  return {{"gpu_health", health},
          {"gpu_numa_node", v.gpu_numa_node},
          {"host_thread",
           {{"cpu", v.host_thread.cpu},
            {"numa_node", v.host_thread.numa_node},
            {"allowed_cpus", v.host_thread.allowed_cpus}}}};
}

json run_json(const RunDocument& doc) {
  json results = json::array();
  for (const ResultRow& r : doc.outcome.rows) results.push_back(row_json(r));
  json run = {{"schema", schema_name()},
              {"provenance", provenance_json(doc)},
              {"settings", settings_json(doc)},
              {"measurement", measurement_json(doc.outcome)},
              {"host", host_json(doc.outcome.host)},
              {"calibration", calibration_json(doc.outcome.calibration)},
              {"devices", devices_json(doc.choice)},
              {"node", node_json(doc.node)},
              {"results", results},
              {"summary", summary_tables_json(doc.outcome.rows)}};
  if (!doc.outcome.dispatch_costs.empty())  // --dispatch-cost
    run["dispatch_cost"] = dispatch_cost_json(doc.outcome.dispatch_costs);
  return run;
}

}  // namespace cuvk
