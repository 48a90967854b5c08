#include "run_writer.h"

#include <cstdio>

#include "build_info.h"
#include "run_summary.h"

namespace cuvk {
namespace {

using nlohmann::json;

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

json clock_json(const ClockSample& c) {
  return {{"sm_mhz", c.sm_mhz},
          {"mem_mhz", c.mem_mhz},
          {"event_reasons", describe_reasons(c.event_reasons)},
          {"temperature_c", c.temperature_c},
          {"power_w", c.power_mw / 1000.0}};
}

json summary_json(const Summary& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
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

json run_json(const RunDocument& doc) {
  const RunConfig& c = doc.config;
  json results = json::array();
  for (const ResultRow& r : doc.outcome.rows) {
    json row = {{"test", r.test},
                {"layout", r.layout.empty() ? json(nullptr) : json(r.layout)},
                {"api", api_name(r.api)},
                {"binding", binding_name(r.binding)},
                {"variant", r.variant},
                {"kernel", r.kernel},
                {"params",
                 {{"n", r.n}, {"offset", r.axes.get("offset")}, {"stride", r.axes.get("stride")}, {"block_size", r.block_size},
                  {"threads", r.threads}}},
                {"geometry",
                 {{"block_size", r.geometry.block_size}, {"grid_x", r.geometry.grid_x},
                  {"grid_y", r.geometry.grid_y}}},
                {"status", status_name(r.status)},
                {"useful_bytes", r.useful_bytes},
                {"moved_bytes", r.moved_bytes},
                {"sectors_per_request", r.sectors_per_request},
                {"request_efficiency", r.request_efficiency},
                {"verified", r.verified},
                {"checked_elements", r.checked},
                {"mismatches", r.mismatches},
                {"first_bad_index", r.first_bad_index ? json(*r.first_bad_index) : json(nullptr)},
                {"output_fnv1a64", r.output_hash ? json(hex64(*r.output_hash)) : json(nullptr)}};
    if (r.status != Status::ok) row["reason"] = r.reason;
    if (r.status == Status::ok) {
      row["time_ms"] = {{"median", r.time_ms.median}, {"min", r.time_ms.min}, {"max", r.time_ms.max},
                        {"q1", r.time_ms.q1}, {"q3", r.time_ms.q3}};
      row["rel_spread"] = r.time_ms.rel_spread;
      row["samples"] = r.time_ms.samples;
      row["ci"] = {{"level", kCiLevel}, {"low_ms", r.time_ms.ci_low}, {"high_ms", r.time_ms.ci_high},
                   {"rel_half_width", r.time_ms.ci_rel_half_width}};
      row["stop_reason"] = r.stop_reason;
      row["gbps_useful"] = r.gbps_useful;
      row["gbps_moved"] = r.gbps_moved;
    } else {
      row["time_ms"] = nullptr;
      row["rel_spread"] = nullptr;
      row["samples"] = 0;
      row["ci"] = nullptr;
      row["gbps_useful"] = nullptr;
      row["gbps_moved"] = nullptr;
    }
    row["pct_of_ceiling"] = r.pct_of_ceiling ? json(*r.pct_of_ceiling) : json(nullptr);
    row["flags"] = r.flags;
    row["clocks"] = {{"start", r.clocks_start ? clock_json(*r.clocks_start) : json(nullptr)},
                     {"end", r.clocks_end ? clock_json(*r.clocks_end) : json(nullptr)}};
    results.push_back(row);
  }
  json parity = json::array();
  for (const ParityRow& p : parity_rows(doc.outcome.rows))
    parity.push_back({{"test", p.test},
                      {"layout", p.layout.empty() ? json(nullptr) : json(p.layout)},
                      {"variant", p.variant},
                      {"point", p.point},
                      {"block_size", p.block_size},
                      {"vulkan_binding", binding_name(p.vulkan_binding)},
                      {"cuda_ms", p.cuda_ms ? json(*p.cuda_ms) : json(nullptr)},
                      {"vulkan_ms", p.vulkan_ms ? json(*p.vulkan_ms) : json(nullptr)},
                      {"vulkan_over_cuda", p.vulkan_over_cuda ? json(*p.vulkan_over_cuda) : json(nullptr)},
                      {"differs_by_more_than_3pct", p.differs}});
  json layouts = json::array();
  for (const LayoutRow& l : layout_rows(doc.outcome.rows))
    layouts.push_back({{"test", l.test}, {"variant", l.variant}, {"block_size", l.block_size},
                       {"api", api_name(l.api)}, {"binding", binding_name(l.binding)},
                       {"aos_ms", l.aos_ms}, {"soa_ms", l.soa_ms}, {"aos_over_soa", l.aos_over_soa}});
  json apis = json::array();
  for (Api a : c.apis) apis.push_back(api_name(a));
  json host = json::array();
  for (const HostCostSummary& h : doc.outcome.host) {
    json startup = json::object();
    for (const auto& [what, ms] : h.startup_ms) startup[what] = ms;
    host.push_back({{"api", api_name(h.api)},
                    {"launch_us", summary_json(h.launch_us)},
                    {"submit_recorded_us", summary_json(h.submit_us)},
                    {"launch_and_wait_us", summary_json(h.round_trip_us)},
                    {"startup_ms", startup}});
  }
  return {
      {"schema", kSchema},
      {"provenance",
       {{"tool", "cuvk"},
        {"version", build::kVersion},
        {"git_revision", build::kGitRevision},
        {"date_utc", doc.date_utc},
        {"host", doc.host},
        {"command_line", doc.command_line},
        {"wall_s", doc.wall_s},
        {"build",
         {{"type", build::kBuildType},
          {"cxx_compiler", build::kCxxCompiler},
          {"cxx_flags", build::kCxxFlags},
          {"cuda_compiler", build::kCudaCompiler},
          {"cuda_flags", build::kCudaFlags},
          {"cuda_architectures", build::kCudaArchitectures},
          {"glslang", build::kGlslang}}}}},
      {"settings",
       {{"tests", c.tests},
        {"apis", apis},
        {"n", doc.outcome.n},
        {"n_rule", doc.outcome.n_rule},
        {"reps", c.reps},
        {"warmup", c.warmup},
        {"block_sizes", c.block_sizes},
        {"vk_bindings", [&c] {
           json names = json::array();
           for (Binding b : c.vk_bindings) names.push_back(binding_name(b));
           return names;
         }()},
        {"target_ci", c.target_ci},
        {"max_time_s", doc.outcome.max_time_s},
        {"settle_ms", c.settle_ms},
        {"offsets", c.axis_values.at("offset")},
        {"strides", c.axis_values.at("stride")},
        {"seed", c.seed},
        {"l2", c.l2 == L2Mode::cold ? "cold" : "warm"},
        {"l2_flush_bytes", doc.outcome.flush_bytes},
        {"timer", "GPU: CUDA events on a non-blocking stream; Vulkan vkCmdWriteTimestamp pairs"},
        {"gbps_unit", "1e9 bytes/s"}}},
      {"measurement",
       {{"l2_bytes", doc.outcome.l2_bytes},
        {"dram_peak_gbps", doc.outcome.dram_peak_gbps ? json(*doc.outcome.dram_peak_gbps) : json(nullptr)},
        {"clock_monitor", doc.outcome.clock_monitor},
        {"settle_gpu_ms", doc.outcome.settle},
        {"clocks_after_settle",
         doc.outcome.clocks_after_settle ? clock_json(*doc.outcome.clocks_after_settle) : json(nullptr)}}},
      {"host", host},
      {"devices",
       {{"cuda", doc.choice.cuda ? device_json(*doc.choice.cuda) : json(nullptr)},
        {"vulkan", doc.choice.vulkan ? device_json(*doc.choice.vulkan) : json(nullptr)},
        {"same_gpu", doc.choice.same_gpu},
        {"pairing", doc.choice.note},
        {"cuda_unavailable_reason", doc.choice.cuda ? json(nullptr) : json(doc.choice.cuda_reason)},
        {"vulkan_unavailable_reason",
         doc.choice.vulkan ? json(nullptr) : json(doc.choice.vulkan_reason)}}},
      {"results", results},
      {"summary", {{"parity", parity}, {"layouts", layouts}}}};
}

}  // namespace cuvk
