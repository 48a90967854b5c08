#include "run_printer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "build_info.h"
#include "run_summary.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;


std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string layout_or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string status_cell(const ResultRow& r) {
  if (r.status == Status::ok) return "ok, verified";
  return status_name(r.status);
}

// The columns every textual format shares, one vector of cells per row.
std::vector<std::string> header_cells() {
  return {"test",     "layout",      "variant",    "point",    "block",     "api",  "binding",
          "median ms", "±CI %",      "min ms",     "max ms",   "spread %",  "samples",
          "useful GB/s", "moved GB/s", "sect/req", "% ceiling", "status",   "flags"};
}

std::vector<std::string> row_cells(const ResultRow& r) {
  const bool ok = r.status == Status::ok;
  auto num = [ok](const char* f, double v) { return ok ? fmt(f, v) : std::string("-"); };
  std::string flags;
  for (const std::string& f : r.flags) flags += (flags.empty() ? "" : ",") + f;
  return {r.test,
          layout_or_dash(r.layout),
          r.variant,
          point_label(r).empty() ? "-" : point_label(r),
          std::to_string(r.block_size),
          api_name(r.api),
          binding_name(r.binding),
          num("%.4f", r.time_ms.median),
          num("%.2f", 100.0 * r.time_ms.ci_rel_half_width),
          num("%.4f", r.time_ms.min),
          num("%.4f", r.time_ms.max),
          num("%.2f", 100.0 * r.time_ms.rel_spread),
          ok ? std::to_string(r.time_ms.samples) : "-",
          num("%.1f", r.gbps_useful),
          num("%.1f", r.gbps_moved),
          r.variant == "engine" ? "-" : std::to_string(r.sectors_per_request),
          r.pct_of_ceiling ? fmt("%.1f", *r.pct_of_ceiling) : "-",
          status_cell(r),
          flags.empty() ? "-" : flags};
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string text_table(const std::vector<std::vector<std::string>>& rows, bool markdown) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  // A column is numeric (right-aligned) when any of its data cells starts with a digit.
  std::vector<bool> numeric(width.size(), false);
  for (std::size_t i = 1; i < rows.size(); ++i)
    for (std::size_t c = 0; c < rows[i].size(); ++c)
      if (!rows[i][c].empty() && std::isdigit(static_cast<unsigned char>(rows[i][c][0])))
        numeric[c] = true;
  std::ostringstream out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t c = 0; c < rows[i].size(); ++c) {
      if (markdown) out << "| ";
      else if (c > 0) out << "  ";
      out << pad(rows[i][c], width[c], numeric[c] && i > 0);
      if (markdown) out << ' ';
    }
    if (markdown) out << '|';
    out << '\n';
    if (i == 0) {
      for (std::size_t c = 0; c < rows[0].size(); ++c) {
        if (markdown) out << "| " << std::string(width[c], '-') << ' ';
        else out << (c > 0 ? "  " : "") << std::string(width[c], '-');
      }
      out << (markdown ? "|\n" : "\n");
    }
  }
  return out.str();
}

std::string device_line(const char* api, const std::optional<DeviceInfo>& d, const std::string& reason) {
  if (!d) return std::string(api) + ": unavailable (" + reason + ")";
  return std::string(api) + ": " + d->name + " [" + format_uuid(d->uuid) + "], " + d->driver;
}

std::string l2_line(const RunDocument& doc) {
  if (doc.config.l2 == L2Mode::warm) return "L2 warm (no flush between repetitions)";
  return "L2 cold: a " + std::to_string(doc.outcome.flush_bytes >> 20) +
         " MiB read-only flush before every timed repetition";
}

std::string summaries(const RunDocument& doc, bool markdown) {
  std::ostringstream out;
  std::vector<std::vector<std::string>> parity = {
      {"test", "layout", "variant", "point", "block", "Vulkan binding", "CUDA ms", "Vulkan ms",
       "Vulkan/CUDA", ""}};
  for (const ParityRow& p : parity_rows(doc.outcome.rows))
    parity.push_back({p.test, layout_or_dash(p.layout), p.variant, p.point.empty() ? "-" : p.point,
                      std::to_string(p.block_size), binding_name(p.vulkan_binding),
                      p.cuda_ms ? fmt("%.4f", *p.cuda_ms) : "-",
                      p.vulkan_ms ? fmt("%.4f", *p.vulkan_ms) : "-",
                      p.vulkan_over_cuda ? fmt("%.3f", *p.vulkan_over_cuda) : "-",
                      p.differs ? (*p.vulkan_over_cuda > 1 ? "<- Vulkan slower by >3%"
                                                           : "<- Vulkan faster by >3%")
                                : ""});
  out << (markdown ? "\n### CUDA vs Vulkan (median times)\n\n" : "\nCUDA vs Vulkan (median times)\n");
  out << text_table(parity, markdown);
  std::vector<std::vector<std::string>> layouts = {
      {"test", "variant", "block", "api", "binding", "AoS ms", "SoA ms", "AoS/SoA"}};
  for (const LayoutRow& l : layout_rows(doc.outcome.rows))
    layouts.push_back({l.test, l.variant, std::to_string(l.block_size), api_name(l.api),
                       binding_name(l.binding), fmt("%.4f", l.aos_ms), fmt("%.4f", l.soa_ms), fmt("%.2fx", l.aos_over_soa)});
  if (layouts.size() > 1) {
    out << (markdown ? "\n### AoS vs SoA (median times)\n\n" : "\nAoS vs SoA (median times)\n");
    out << text_table(layouts, markdown);
  }
  if (!doc.outcome.host.empty()) {
    std::vector<std::vector<std::string>> host = {
        {"api", "launch us", "submit recorded us", "launch+wait us", "start-up ms"}};
    for (const HostCostSummary& h : doc.outcome.host) {
      std::string startup;
      double pipelines_ms = 0.0;
      int pipelines = 0;
      for (const auto& [what, ms] : h.startup_ms) {
        if (what.rfind("pipeline", 0) == 0) {  // one entry per pipeline: summed here
          pipelines_ms += ms;
          ++pipelines;
        } else {
          startup += (startup.empty() ? "" : ", ") + what + " " + fmt("%.1f", ms);
        }
      }
      if (pipelines > 0)
        startup += ", " + std::to_string(pipelines) + " pipelines " + fmt("%.1f", pipelines_ms);
      host.push_back({api_name(h.api), fmt("%.2f", h.launch_us.median),
                      fmt("%.2f", h.submit_us.median), fmt("%.1f", h.round_trip_us.median), startup});
    }
    out << (markdown ? "\n### Host-side cost (medians, one-block copy)\n\n"
                     : "\nHost-side cost (medians, one-block copy)\n");
    out << text_table(host, markdown);
  }
  return out.str();
}

std::string preamble(const RunDocument& doc, bool markdown) {
  const char* bullet = markdown ? "- " : "";
  std::ostringstream out;
  out << bullet << device_line("CUDA", doc.choice.cuda, doc.choice.cuda_reason) << '\n';
  out << bullet << device_line("Vulkan", doc.choice.vulkan, doc.choice.vulkan_reason) << '\n';
  if (!doc.choice.note.empty()) out << bullet << "Pairing: " << doc.choice.note << '\n';
  std::string blocks;
  for (std::uint32_t b : doc.config.block_sizes) blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
  out << bullet << "n = " << doc.outcome.n << " (" << doc.outcome.n_rule << "), block " << blocks
      << "; per point " << doc.config.warmup << " warm-up, then batches of " << doc.config.reps
      << " until the median's 95% CI is within " << fmt("%.2g", 100.0 * doc.config.target_ci)
      << "% (or " << fmt("%.3g", doc.outcome.max_time_s)
      << " s); GPU timers (CUDA events / Vulkan timestamps)\n";
  out << bullet << "clocks: " << doc.outcome.clock_monitor;
  if (doc.outcome.clocks_after_settle)
    out << ", SM " << doc.outcome.clocks_after_settle->sm_mhz << " MHz / memory "
        << doc.outcome.clocks_after_settle->mem_mhz << " MHz after settling";
  if (doc.outcome.dram_peak_gbps) out << "; DRAM peak " << fmt("%.0f", *doc.outcome.dram_peak_gbps) << " GB/s";
  out << '\n';
  out << bullet << l2_line(doc) << '\n';
  out << bullet << "GB/s = 1e9 bytes/s; moved = 32-byte sectors DRAM must move; % ceiling = moved GB/s "
      << "over the same API's copy vec4\n";
  if (doc.wall_s > 0) out << bullet << "wall time " << fmt("%.1f", doc.wall_s) << " s, start-up included\n";
  return out.str();
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

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

json to_json(const RunDocument& doc) {
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

std::string format_text_table(const std::vector<std::vector<std::string>>& rows, bool markdown) {
  return text_table(rows, markdown);
}

std::string csv_field(const std::string& s) { return csv_escape(s); }

std::string format_run(const RunDocument& doc, Format format) {
  switch (format) {
    case Format::json:
      return to_json(doc).dump(2) + "\n";
    case Format::csv: {
      std::ostringstream out;
      out << "test,layout,variant,api,n,offset,stride,block_size,status,reason,median_ms,ci_low_ms,"
             "ci_high_ms,min_ms,max_ms,rel_spread,samples,useful_bytes,moved_bytes,gbps_useful,"
             "gbps_moved,sectors_per_request,pct_of_ceiling,verified,flags,binding\n";
      for (const ResultRow& r : doc.outcome.rows) {
        const bool ok = r.status == Status::ok;
        auto num = [ok](double v) { return ok ? fmt("%.6g", v) : std::string(); };
        out << r.test << ',' << r.layout << ',' << r.variant << ',' << api_name(r.api) << ','
            << r.n << ',' << r.axes.get("offset") << ',' << r.axes.get("stride") << ',' << r.block_size << ','
            << status_name(r.status) << ',' << csv_escape(r.reason) << ','
            << num(r.time_ms.median) << ',' << num(r.time_ms.ci_low) << ','
            << num(r.time_ms.ci_high) << ',' << num(r.time_ms.min) << ',' << num(r.time_ms.max)
            << ',' << num(r.time_ms.rel_spread) << ',' << (ok ? r.time_ms.samples : 0) << ','
            << r.useful_bytes << ',' << r.moved_bytes << ',' << num(r.gbps_useful) << ','
            << num(r.gbps_moved) << ',' << r.sectors_per_request << ','
            << (r.pct_of_ceiling ? fmt("%.6g", *r.pct_of_ceiling) : "") << ','
            << (r.verified ? "true" : "false") << ',';
        std::string flags;
        for (const std::string& fl : r.flags) flags += (flags.empty() ? "" : ";") + fl;
        out << flags << ',' << binding_name(r.binding) << '\n';
      }
      return out.str();
    }
    case Format::table:
    case Format::md: {
      const bool md = format == Format::md;
      std::vector<std::vector<std::string>> rows = {header_cells()};
      for (const ResultRow& r : doc.outcome.rows) rows.push_back(row_cells(r));
      std::ostringstream out;
      if (md) out << "## cuvk results\n\n";
      out << preamble(doc, md) << '\n' << text_table(rows, md);
      // Rows that did not run: an unavailable API once, each failure on its own line.
      std::vector<std::string> notes;
      for (const ResultRow& r : doc.outcome.rows) {
        if (r.status == Status::ok) continue;
        std::string note = std::string(api_name(r.api)) + ": ";
        if (r.status == Status::unavailable) {
          note += "unavailable: " + r.reason;
        } else {
          note += r.kernel + (point_label(r).empty() ? "" : " " + point_label(r)) + ": failed: " + r.reason;
        }
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
      }
      for (const std::string& n : notes) out << (md ? "\n- " : "\n") << n;
      if (!notes.empty()) out << '\n';
      out << summaries(doc, md);
      return out.str();
    }
  }
  return {};
}

}  // namespace cuvk
