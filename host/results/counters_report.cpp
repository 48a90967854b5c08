#include "counters_report.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util.h"

namespace cuvk {

using nlohmann::json;

namespace {

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json optional_number(const std::optional<double>& v) {
  return v ? number(*v) : json(nullptr);
}

std::string cell(fmt::format_string<double> f, double v) {
  return std::isfinite(v) ? format_number(f, v) : std::string("-");
}

json kernel_json(const KernelCounters& k) {
  return {{"ld_sectors", k.ld_sectors},
          {"ld_requests", k.ld_requests},
          {"st_sectors", k.st_sectors},
          {"st_requests", k.st_requests},
          {"ld_sectors_per_request", optional_number(k.ld_sectors_per_request())},
          {"st_sectors_per_request", optional_number(k.st_sectors_per_request())},
          {"ld_bytes_per_sector_pct", number(k.ld_bytes_per_sector_pct)},
          {"dram_read_bytes", k.dram_read_bytes},
          {"dram_write_bytes", k.dram_write_bytes},
          {"ctas_launched", k.ctas_launched},
          {"achieved_occupancy_pct", number(k.achieved_occupancy_pct)},
          {"profiled_gpu_time_ns", k.gpu_time_ns},
          {"passes", k.passes}};
}

json sampled_json(const SampledCounters& s) {
  json series = {{"t_us", json::array()},
                 {"dram_read_gbps", json::array()},
                 {"dram_write_gbps", json::array()},
                 {"sm_throughput_pct", json::array()},
                 {"warps_per_sm", json::array()},
                 {"ctas_per_sm", json::array()}};
  for (const PmPoint& p : s.series) {
    series["t_us"].push_back(p.t_us);
    series["dram_read_gbps"].push_back(p.dram_read_gbps);
    series["dram_write_gbps"].push_back(p.dram_write_gbps);
    series["sm_throughput_pct"].push_back(p.sm_throughput_pct);
    series["warps_per_sm"].push_back(p.warps_per_sm);
    series["ctas_per_sm"].push_back(p.ctas_per_sm);
  }
  return {{"interval_ns", s.interval_ns},
          {"samples", s.samples},
          {"busy_samples", s.busy_samples},
          {"dropped_samples", s.dropped_samples},
          {"dispatches", s.dispatches},
          {"batch_gpu_ms", s.batch_gpu_ms},
          {"busy_ms", s.busy_ms},
          {"dram_read_bytes_per_dispatch", s.dram_read_bytes_per_dispatch},
          {"dram_write_bytes_per_dispatch", s.dram_write_bytes_per_dispatch},
          {"dram_read_gbps", s.dram_read_gbps},
          {"dram_write_gbps", s.dram_write_gbps},
          {"dram_pct_of_peak", number(s.dram_pct)},
          {"sm_throughput_pct", number(s.sm_throughput_pct)},
          {"sm_active_pct", number(s.sm_active_pct)},
          {"warps_per_sm", number(s.warps_per_sm)},
          {"ctas_per_sm", number(s.ctas_per_sm)},
          {"ctas_launched_per_dispatch", number(s.ctas_launched_per_dispatch)},
          {"smem_kib_per_sm", number(s.smem_kib_per_sm)},
          {"registers_per_sm", number(s.registers_per_sm)},
          {"inst_per_dispatch", number(s.inst_per_dispatch)},
          {"series", series}};
}

// The row's one "counters" cell: "ok", or the reasons the counters are missing.
std::string status_cell(const RowCounters& c) {
  if (c.sampled && (c.kernel || !c.kernel_unavailable.empty())) {
    if (c.kernel) return "ok";
    return c.kernel_unavailable.find("CUDA contexts only") != std::string::npos
               ? "sampled (no per-kernel on Vulkan)"
               : "sampled; kernel unavailable: " + c.kernel_unavailable;
  }
  if (c.kernel) return "kernel; sampling unavailable: " + c.sampled_unavailable;
  if (c.kernel_unavailable == c.sampled_unavailable) return "unavailable: " + c.sampled_unavailable;
  return "unavailable: " + c.sampled_unavailable + "; kernel: " + c.kernel_unavailable;
}

}  // namespace

std::vector<std::string> counter_header_cells() {
  return {"meas s/r", "model MB", "meas MB", "DRAM GB/s", "SM %",
          "warps/SM", "CTAs/SM",  "occ %",   "counters"};
}

std::vector<std::size_t> counter_widths() {
  return {8, 8, 8, 9, 5, 8, 7, 5, 8};
}

std::vector<std::string> counter_cells(const ResultRow& r) {
  const double model_mb = static_cast<double>(r.moved_bytes) / 1e6;
  if (!r.counters) return {"-", cell("{:.1f}", model_mb), "-", "-", "-", "-", "-", "-", "-"};
  const RowCounters& c = *r.counters;
  const auto spr = measured_sectors_per_request(c);
  const auto dram = measured_dram_bytes(c);
  std::vector<std::string> cells = {spr ? format_number("{:.2f}", *spr) : "-",
                                    cell("{:.1f}", model_mb),
                                    dram ? format_number("{:.1f}", *dram / 1e6) : "-"};
  if (c.sampled) {
    const SampledCounters& s = *c.sampled;
    cells.push_back(format_number("{:.0f}", s.dram_read_gbps + s.dram_write_gbps));
    cells.push_back(cell("{:.1f}", s.sm_throughput_pct));
    cells.push_back(cell("{:.1f}", s.warps_per_sm));
    cells.push_back(cell("{:.2f}", s.ctas_per_sm));
  } else {
    cells.insert(cells.end(), 4, "-");
  }
  cells.push_back(c.kernel ? format_number("{:.1f}", c.kernel->achieved_occupancy_pct) : "-");
  cells.push_back(status_cell(c));
  return cells;
}

json counters_json(const RowCounters& c) {
  json j = json::object();
  j["kernel"] = c.kernel ? kernel_json(*c.kernel) : json{{"unavailable", c.kernel_unavailable}};
  j["sampled"] =
      c.sampled ? sampled_json(*c.sampled) : json{{"unavailable", c.sampled_unavailable}};
  j["measured_sectors_per_request"] = optional_number(measured_sectors_per_request(c));
  j["measured_dram_bytes_per_dispatch"] = optional_number(measured_dram_bytes(c));
  return j;
}

namespace {

double read_number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}

SampledCounters read_sampled(const json& j) {
  SampledCounters s;
  auto count = [&](const char* key) {
    const double v = read_number(j, key);
    return std::isfinite(v) && v >= 0 ? static_cast<std::uint64_t>(v) : 0;
  };
  s.interval_ns = count("interval_ns");
  s.samples = count("samples");
  s.busy_samples = count("busy_samples");
  s.dropped_samples = count("dropped_samples");
  s.dispatches = static_cast<std::uint32_t>(count("dispatches"));
  s.batch_gpu_ms = read_number(j, "batch_gpu_ms");
  s.busy_ms = read_number(j, "busy_ms");
  s.dram_read_bytes_per_dispatch = read_number(j, "dram_read_bytes_per_dispatch");
  s.dram_write_bytes_per_dispatch = read_number(j, "dram_write_bytes_per_dispatch");
  s.dram_read_gbps = read_number(j, "dram_read_gbps");
  s.dram_write_gbps = read_number(j, "dram_write_gbps");
  s.dram_pct = read_number(j, "dram_pct_of_peak");
  s.sm_throughput_pct = read_number(j, "sm_throughput_pct");
  s.sm_active_pct = read_number(j, "sm_active_pct");
  s.warps_per_sm = read_number(j, "warps_per_sm");
  s.ctas_per_sm = read_number(j, "ctas_per_sm");
  s.ctas_launched_per_dispatch = read_number(j, "ctas_launched_per_dispatch");
  s.smem_kib_per_sm = read_number(j, "smem_kib_per_sm");
  s.registers_per_sm = read_number(j, "registers_per_sm");
  s.inst_per_dispatch = read_number(j, "inst_per_dispatch");
  return s;
}

std::string unavailable_of(const json& j) {
  const auto it = j.find("unavailable");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "not recorded";
}

}  // namespace

std::optional<RowCounters> read_counters(const json& j) {
  if (!j.is_object()) return std::nullopt;
  RowCounters c;
  const auto sampled = j.find("sampled");
  if (sampled != j.end() && sampled->is_object() && !sampled->contains("unavailable"))
    c.sampled = read_sampled(*sampled);
  else
    c.sampled_unavailable =
        sampled != j.end() && sampled->is_object() ? unavailable_of(*sampled) : "not recorded";
  const auto kernel = j.find("kernel");
  c.kernel_unavailable =
      kernel != j.end() && kernel->is_object() && !kernel->contains("unavailable")
          ? "not read back (explain reads the sampled counters)"
      : kernel != j.end() && kernel->is_object() ? unavailable_of(*kernel)
                                                 : "not recorded";
  return c;
}

json counters_settings_json(const RunConfig& cfg, const RunOutcome& out) {
  if (!cfg.counters) return {{"enabled", false}};
  json pm = json::array();
  for (std::size_t i = 0; i < out.counters_pm_metrics.size() && i < pm_metrics().size(); ++i) {
    const std::string& name = out.counters_pm_metrics[i];
    json m = {{"key", pm_metrics()[i].key}, {"metric", name.empty() ? json(nullptr) : json(name)}};
    // A calibrated metric says by what its raw reading was multiplied (pm_calibrations()).
    if (const auto scale = pm_scale(out.counters_chip, name); !name.empty() && scale != 1.0)
      m["scale"] = scale ? json(*scale) : json(nullptr);
    pm.push_back(std::move(m));
  }
  json cost = {{"total", counters_seconds(out)}, {"steps", json::object()}};
  for (const auto& [step, sec] : out.counters_cost_s) cost["steps"][step] = sec;
  return {{"enabled", true},
          {"source", out.counters_source},
          {"kernel_metrics", kernel_metrics()},
          {"pm_metrics", pm},
          {"pm_interval_ns", out.counters_interval_ns},
          {"model_tolerance", kModelTolerance},
          {"cost_s", cost}};
}

double counters_seconds(const RunOutcome& out) {
  double s = 0;
  for (const auto& [phase, sec] : out.phase_s)
    if (phase == "counters") s += sec;
  return s;
}

std::string counters_cost_line(const RunOutcome& out, double wall_s) {
  const double total = counters_seconds(out);
  if (!(total > 0)) return "";
  std::string line = "counters cost " + format_number("{:.2f}", total) + " s";
  if (wall_s > 0)
    line += ", " + format_number("{:.1f}", 100.0 * total / wall_s) + "% of the wall time";
  std::vector<std::string> steps;
  for (const auto& [step, sec] : out.counters_cost_s)
    steps.push_back(fmt::format("{} {} s", step, format_number("{:.2f}", sec)));
  if (!steps.empty()) line += fmt::format(": {}", fmt::join(steps, "; "));
  return line;
}

}  // namespace cuvk
