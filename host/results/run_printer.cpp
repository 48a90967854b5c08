#include "run_printer.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chain_summary.h"
#include "counters_report.h"
#include "dispatch_report.h"
#include "dims.h"
#include "lanes.h"
#include "run_summary.h"
#include "size_printer.h"
#include "util.h"
#include "verdicts.h"

namespace cuvk {
namespace {

std::string status_cell(const ResultRow& r) { return status_label(r.status, r.check); }

// The rows table's columns (table and md; CSV has its own, csv_header): each column once, with
// its header, its streamed width and its cell. The point and lane dimensions shown in the run
// table (dims.h) come first. `counters`: the counter columns follow (counters_report.h).
struct RunColumn {
  std::string header;
  std::size_t width;  // the streamed table's width (at least the header's)
  std::function<std::string(const ResultRow&)> cell;
  bool text = false;  // never right-aligned (a text dimension: test, layout, variant, point)
  bool planned = false;  // a point or lane dimension: known before the row is measured
};

std::string num_cell(const ResultRow& r, fmt::format_string<double> f, double v) {
  return r.status == Status::ok ? format_number(f, v) : std::string("-");
}

std::vector<RunColumn> make_run_columns() {
  std::vector<RunColumn> c;
  for (const DimColumn& d : dim_columns(kPointRunTable, 0, kLaneRunTable)) {
    if (d.point) {
      const PointDim& dim = *d.point;
      c.push_back({dim.header, dim.width,
                   [&dim](const ResultRow& r) { return point_cell(dim, r, Lane::of(r)); },
                   dim.kind != DimKind::number, true});
    } else {
      const LaneDim& dim = lane_dims()[d.lane];
      c.push_back({dim.header, dim.width,
                   [&dim](const ResultRow& r) { return dim.get(r).value_or("-"); }, false,
                   true});
    }
  }
  const std::vector<RunColumn> tail = {
      {"median ms", 9, [](const ResultRow& r) { return num_cell(r, "{:.4f}", r.time_ms.median); }},
      {"±CI %", 6,
       [](const ResultRow& r) {
         return num_cell(r, "{:.2f}", 100.0 * r.time_ms.ci_rel_half_width);
       }},
      {"min ms", 7, [](const ResultRow& r) { return num_cell(r, "{:.4f}", r.time_ms.min); }},
      {"max ms", 7, [](const ResultRow& r) { return num_cell(r, "{:.4f}", r.time_ms.max); }},
      {"spread %", 8,
       [](const ResultRow& r) { return num_cell(r, "{:.2f}", 100.0 * r.time_ms.rel_spread); }},
      {"samples", 7,
       [](const ResultRow& r) {
         return r.status == Status::ok ? std::to_string(r.time_ms.samples) : "-";
       }},
      {"useful GB/s", 11, [](const ResultRow& r) { return num_cell(r, "{:.1f}", r.gbps_useful); }},
      {"moved GB/s", 10, [](const ResultRow& r) { return num_cell(r, "{:.1f}", r.gbps_moved); }},
      {"sect/req", 8,
       [](const ResultRow& r) {
         return r.kernel == kCopyEngine || r.variant == "engine"
                    ? "-"
                    : std::to_string(r.sectors_per_request);
       }},
      {"% ceiling", 9,
       [](const ResultRow& r) {
         return r.pct_of_ceiling ? format_number("{:.1f}", *r.pct_of_ceiling) : "-";
       }},
      {"status", 12, [](const ResultRow& r) { return status_cell(r); }},
      {"flags", 5,
       [](const ResultRow& r) {
         std::string flags;
         for (const std::string& f : r.flags) flags += (flags.empty() ? "" : ",") + f;
         return dash(flags);
       }},
  };
  c.insert(c.end(), tail.begin(), tail.end());
  return c;
}

const std::vector<RunColumn>& run_columns() {
  static const std::vector<RunColumn> columns = make_run_columns();
  return columns;
}

std::vector<std::string> header_cells(bool counters = false) {
  std::vector<std::string> h;
  for (const RunColumn& c : run_columns()) h.push_back(c.header);
  if (counters)
    for (const std::string& c : counter_header_cells()) h.push_back(c);
  return h;
}

std::vector<std::string> row_cells(const ResultRow& r, bool counters = false) {
  std::vector<std::string> cells;
  for (const RunColumn& c : run_columns()) cells.push_back(c.cell(r));
  if (counters)
    for (const std::string& c : counter_cells(r)) cells.push_back(c);
  return cells;
}

// The --columns selection of the base columns; with `counters`, the counter columns after it.
std::vector<std::size_t> table_columns(bool counters, const std::vector<std::string>& columns) {
  std::vector<std::size_t> idx = column_indices(header_cells(), columns);
  if (counters)
    for (std::size_t c = header_cells().size(); c < header_cells(true).size(); ++c)
      idx.push_back(c);
  return idx;
}

std::string device_line(const char* api, const std::optional<DeviceInfo>& d,
                        const std::string& reason) {
  if (!d) return std::string(api) + ": unavailable (" + printable(reason) + ")";
  return std::string(api) + ": " + printable(d->name) + " [" + format_uuid(d->uuid) + "], " +
         printable(d->driver);
}

std::string l2_line(const RunDocument& doc) {
  if (doc.config.l2 == L2Mode::warm) return "L2 warm (no flush between repetitions)";
  return fmt::format("L2 cold: a {} MiB read-only flush before every timed repetition",
                     doc.outcome.flush_bytes >> 20);
}

std::string parity_summary_table(const std::vector<ResultRow>& rows, bool markdown) {
  const std::string beyond = " by >" + tolerance_text(kDefaultTolerance);
  const std::vector<DimColumn> dims = dim_columns(kPointCompare, 0, kLaneSummary, true);
  std::vector<std::vector<std::string>> t = {dim_headers(dims, true)};
  for (const char* c : {"CUDA ms", "Vulkan ms", "Vulkan/CUDA", ""}) t[0].push_back(c);
  for (const ParitySummaryRow& p : parity_summary(rows)) {
    t.push_back(dim_cells(dims, p.point, p.vulkan_lane));
    for (const std::string& cell :
         {p.cuda_ms ? format_number("{:.4f}", *p.cuda_ms) : "-",
          p.vulkan_ms ? format_number("{:.4f}", *p.vulkan_ms) : "-",
          p.vulkan_over_cuda ? format_number("{:.3f}", *p.vulkan_over_cuda) : "-",
          !p.differs                  ? std::string()
          : *p.vulkan_over_cuda > 1.0 ? "<- Vulkan slower" + beyond
                                      : "<- Vulkan faster" + beyond})
      t.back().push_back(cell);
  }
  return heading(3, markdown, "CUDA vs Vulkan (median times)") + format_text_table(t, markdown);
}

std::string layout_summary_table(const std::vector<ResultRow>& rows, bool markdown) {
  const std::vector<DimColumn> dims = dim_columns(kPointLayouts, 0, kLaneSummary);
  std::vector<std::vector<std::string>> t = {dim_headers(dims, false)};
  for (const char* c : {"AoS ms", "SoA ms", "AoS/SoA"}) t[0].push_back(c);
  for (const LayoutSummaryRow& l : layout_summary(rows)) {
    t.push_back(dim_cells(dims, l.point, l.lane));
    for (const std::string& cell :
         {format_number("{:.4f}", l.aos_ms), format_number("{:.4f}", l.soa_ms),
          format_number("{:.2f}x", l.aos_over_soa)})
      t.back().push_back(cell);
  }
  if (t.size() == 1) return "";
  return "\n" + heading(3, markdown, "AoS vs SoA (median times)") + format_text_table(t, markdown);
}

// One line of start-up costs: each named cost, then the pipelines summed ("10 pipelines 82.7").
std::string startup_cell(const HostCostSummary& h) {
  std::string startup;
  double pipelines_ms = 0.0;
  int pipelines = 0;
  for (const auto& [what, ms] : h.startup_ms) {
    if (what.rfind("pipeline", 0) == 0) {  // one entry per pipeline: summed here
      pipelines_ms += ms;
      ++pipelines;
    } else {
      startup += (startup.empty() ? "" : ", ") + what + " " + format_number("{:.1f}", ms);
    }
  }
  if (pipelines > 0)
    startup += fmt::format(", {} pipelines {}", pipelines, format_number("{:.1f}", pipelines_ms));
  return startup;
}

std::string host_cost_table(const std::vector<HostCostSummary>& hosts, bool markdown) {
  if (hosts.empty()) return "";
  std::vector<std::vector<std::string>> t = {
      {"api", "launch us", "submit recorded us", "launch+wait us", "start-up ms"}};
  // An API with start-up costs only (a pair's CUDA side compiled without a CUDA device): "-".
  const auto median = [](const Summary& s, fmt::format_string<double> f) {
    return s.samples > 0 ? format_number(f, s.median) : std::string("-");
  };
  for (const HostCostSummary& h : hosts)
    t.push_back({api_name(h.api), median(h.launch_us, "{:.2f}"), median(h.submit_us, "{:.2f}"),
                 median(h.round_trip_us, "{:.1f}"), startup_cell(h)});
  return "\n" + heading(3, markdown, "Host-side cost (medians, one-block copy)") +
         format_text_table(t, markdown);
}

std::string preamble(const RunDocument& doc, bool markdown) {
  const char* bullet = markdown ? "- " : "";
  std::ostringstream out;
  out << bullet << device_line("CUDA", doc.choice.cuda, doc.choice.cuda_reason) << '\n';
  out << bullet << device_line("Vulkan", doc.choice.vulkan, doc.choice.vulkan_reason) << '\n';
  if (!doc.choice.note.empty()) out << bullet << "Pairing: " << printable(doc.choice.note) << '\n';
  const std::string blocks = fmt::format("{}", fmt::join(doc.config.block_sizes, ","));
  std::string sizes = std::to_string(doc.outcome.n);
  if (doc.outcome.sizes.size() > 1) {
    std::vector<std::string> each;
    for (std::uint32_t n : doc.outcome.sizes) each.push_back(size_label(n));
    sizes = fmt::format("{}", fmt::join(each, ","));
  }
  out << bullet << "n = " << sizes << " (" << doc.outcome.n_rule << "), block " << blocks << '\n'
      << bullet << "per point " << doc.config.warmup << " warm-up, then batches of "
      << doc.config.reps << " until the median's 95% CI is within "
      << format_number("{:.2g}", 100.0 * doc.config.target_ci) << "% (or "
      << format_number("{:.3g}", doc.outcome.max_time_s)
      << " s); GPU timers (CUDA events / Vulkan timestamps)\n";
  out << bullet << "clocks: " << doc.outcome.clock_monitor;
  if (doc.outcome.clocks_after_settle)
    out << ", SM " << doc.outcome.clocks_after_settle->sm_mhz << " MHz / memory "
        << doc.outcome.clocks_after_settle->mem_mhz << " MHz after settling";
  if (doc.outcome.dram_peak_gbps)
    out << "; DRAM peak " << format_number("{:.0f}", *doc.outcome.dram_peak_gbps) << " GB/s";
  out << '\n';
  // A CPU device's work is scaled down by default (runner.h): said, with a GPU's values.
  if (!doc.choice.cuda && doc.choice.vulkan && doc.choice.vulkan->is_cpu)
    out << bullet << "scaled for a CPU device: n " << sizes << ", warm-up " << doc.config.warmup
        << ", batches of " << doc.config.reps << ", "
        << format_number("{:.3g}", doc.outcome.max_time_s) << " s per point, settling "
        << format_number("{:.0f}", doc.config.settle_ms)
        << " ms (a GPU's defaults: " << kDefaultGpuN << ", " << kDefaultGpuWarmup << ", "
        << kDefaultGpuReps << ", " << format_number("{:.3g}", kDefaultGpuMaxTimeS) << " s, "
        << format_number("{:.0f}", kDefaultGpuSettleMs)
        << " ms); every output element is still verified\n";
  out << bullet << l2_line(doc) << '\n';
  if (doc.config.counters)
    out << bullet << "counters: " << printable(doc.outcome.counters_source)
        << "; meas = measured (s/r: CUPTI range profiler, CUDA; MB per dispatch, GB/s, SM %, "
           "warps and CTAs per SM: PM sampling of back-to-back dispatches, both APIs); model MB "
           "= the sector model's moved bytes\n";
  out << bullet
      << "GB/s = 1e9 bytes/s; moved = 32-byte sectors DRAM must move; % ceiling = moved GB/s "
      << "over the same API's copy vec4\n";
  if (doc.wall_s > 0)
    out << bullet << "wall time " << format_number("{:.1f}", doc.wall_s)
        << " s, start-up included\n";
  return out.str();
}

// The point and lane dimensions' CSV names (`r` null) or cells: those of the run CSV's head
// (dims.h), or its tail (the lane dimensions after the measurements), each with its comma.
std::string csv_dims(bool head, const ResultRow* r) {
  std::string s;
  const std::vector<DimColumn> columns =
      head ? dim_columns(kPointRunCsv, kLaneRunCsvHead) : dim_columns(0, 0, kLaneRunCsvTail);
  for (const DimColumn& c : columns) {
    const LaneDim* lane = c.point ? nullptr : &lane_dims()[c.lane];
    const std::string name = c.point ? c.point->name : lane->name;
    const std::string cell =
        !r ? name : csv_field(c.point ? c.point->get(*r) : lane->get(*r).value_or(""));
    s += head ? cell + "," : "," + cell;
  }
  return s;
}

std::string csv_header() {
  return csv_dims(true, nullptr) +
         "status,reason,median_ms,ci_low_ms,ci_high_ms,min_ms,max_ms,rel_spread,"
         "samples,useful_bytes,moved_bytes,gbps_useful,gbps_moved,sectors_per_request,"
         "pct_of_ceiling,verified,check,checked_against,checked_elements,flags" +
         csv_dims(false, nullptr) + "\n";
}

std::string csv_row(const ResultRow& r) {
  const bool ok = r.status == Status::ok;
  auto num = [ok](double v) { return ok ? format_number("{:.6g}", v) : std::string(); };
  std::ostringstream out;
  out << csv_dims(true, &r) << status_name(r.status) << ',' << csv_field(r.reason) << ','
      << num(r.time_ms.median) << ',' << num(r.time_ms.ci_low) << ',' << num(r.time_ms.ci_high)
      << ',' << num(r.time_ms.min) << ',' << num(r.time_ms.max) << ',' << num(r.time_ms.rel_spread)
      << ',' << (ok ? r.time_ms.samples : 0) << ',' << r.useful_bytes << ',' << r.moved_bytes << ','
      << num(r.gbps_useful) << ',' << num(r.gbps_moved) << ',' << r.sectors_per_request << ','
      << (r.pct_of_ceiling ? format_number("{:.6g}", *r.pct_of_ceiling) : "") << ','
      << (r.verified ? "true" : "false") << ',' << (ok ? check_name(r.check) : "") << ',';
  std::string against;
  for (const std::string& a : r.checked_against) against += (against.empty() ? "" : ";") + a;
  out << csv_field(against) << ',' << r.checked << ',';
  std::string flags;
  for (const std::string& fl : r.flags) flags += (flags.empty() ? "" : ";") + fl;
  out << csv_field(flags) << csv_dims(false, &r) << '\n';
  return out.str();
}

// What follows the rows: rows that did not run (an unavailable API once, each failure on its own
// line), then the summary tables and the host-side cost.
std::string summaries(const RunDocument& doc, bool md) {
  std::vector<std::string> notes;
  for (const ResultRow& r : doc.outcome.rows) {
    if (r.status == Status::ok && (r.check == Check::verified || r.check == Check::not_recorded))
      continue;
    std::string note = std::string(api_name(r.api)) + ": ";
    if (r.status == Status::ok) {  // ran, but was not compared with anything independent
      note += r.kernel + (point_label(r).empty() ? "" : " " + point_label(r)) + ": " +
              status_label(r.status, r.check).substr(4) + ": " + r.check_note;
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
      continue;
    }
    if (r.status == Status::unavailable) {
      note += "unavailable: " + r.reason;
    } else {
      note +=
          r.kernel + (point_label(r).empty() ? "" : " " + point_label(r)) + ": failed: " + r.reason;
    }
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  }
  std::ostringstream out;
  for (const std::string& n : notes) out << (md ? "\n- " : "\n") << printable(n);
  if (!notes.empty()) out << '\n';
  out << '\n'
      << parity_summary_table(doc.outcome.rows, md) << layout_summary_table(doc.outcome.rows, md)
      << size_curve_table(doc.outcome.rows, md) << chain_summary_table(doc.outcome.rows, md)
      << host_cost_table(doc.outcome.host, md) << calibration_table(doc.outcome.calibration, md)
      << dispatch_cost_tables(doc.outcome.dispatch_costs, md);
  return out.str();
}

// Streamed table columns: wide enough for the header and the usual values (RunColumn::width).
std::vector<std::size_t> base_widths() {
  std::vector<std::size_t> w;
  for (const RunColumn& c : run_columns()) w.push_back(c.width);
  for (std::size_t c : counter_widths()) w.push_back(c);
  const std::vector<std::string> head = header_cells(true);
  for (std::size_t c = 0; c < w.size(); ++c) w[c] = std::max(w[c], head[c].size());
  return w;
}

std::string stream_line(const std::vector<std::string>& all_cells, bool md, bool header,
                        const std::vector<std::size_t>& columns,
                        const std::vector<std::size_t>& w) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    const std::string cell = md ? md_cell(all_cells[c]) : printable(all_cells[c]);
    // The counter columns follow the run's own: numbers, never text.
    const bool text = c < run_columns().size() && run_columns()[c].text;
    const bool right =
        !header && !cell.empty() && std::isdigit(static_cast<unsigned char>(cell[0])) && !text;
    const std::string pad(cell.size() < w[c] ? w[c] - cell.size() : 0, ' ');
    line += md ? "| " : (i > 0 ? "  " : "");
    line += right ? pad + cell : cell + pad;
    if (md) line += ' ';
  }
  return line + (md ? "|\n" : "\n");
}

}  // namespace

std::vector<std::string> run_table_headers() {
  return header_cells();
}

std::vector<std::string> status_cells() {
  std::vector<std::string> cells;
  for (Status s : {Status::failed, Status::unavailable}) cells.push_back(status_label(s, Check{}));
  // Every check an ok row of a live run can have (issue 31; not_recorded is an old file's only).
  for (Check c : {Check::verified, Check::consistent, Check::unchecked, Check::timing_only})
    cells.push_back(status_label(Status::ok, c));
  return cells;
}

std::vector<std::size_t> stream_widths(const RunDocument& doc) {
  std::vector<std::size_t> w = base_widths();
  const auto widen = [&w](std::size_t c, const std::string& cell) {
    w[c] = std::max(w[c], printable(cell).size());
  };
  const std::vector<RunColumn>& columns = run_columns();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].header == "status") {
      for (const std::string& s : status_cells()) widen(c, s);
      continue;
    }
    if (!columns[c].planned) continue;  // a planned row has no measurements
    for (const ResultRow& r : doc.outcome.planned) widen(c, columns[c].cell(r));
  }
  return w;
}

std::string stream_head(const RunDocument& doc, Format format,
                        const std::vector<std::size_t>& widths) {
  if (format == Format::csv) return csv_header();
  const bool md = format == Format::md;
  const bool counters = doc.config.counters;
  const std::vector<std::size_t> columns = table_columns(counters, doc.columns);
  std::string out = md ? "## cuvk results\n\n" : "";
  out += preamble(doc, md) + '\n' + stream_line(header_cells(counters), md, true, columns, widths);
  std::vector<std::string> rule;
  for (std::size_t w : widths) rule.push_back(std::string(w, '-'));
  return out + stream_line(rule, md, true, columns, widths);
}

std::string stream_row(const ResultRow& row, Format format, const std::vector<std::size_t>& widths,
                       const std::vector<std::string>& columns, bool counters) {
  if (format == Format::csv) return csv_row(row);
  return stream_line(row_cells(row, counters), format == Format::md, false,
                     table_columns(counters, columns), widths);
}

std::string stream_tail(const RunDocument& doc, Format format) {
  if (format == Format::csv) return "";
  const bool md = format == Format::md;
  std::string out = summaries(doc, md);
  const char* bullet = md ? "- " : "";
  if (doc.wall_s > 0) {
    out += std::string("\n") + bullet + "wall time " + format_number("{:.1f}", doc.wall_s) +
           " s, start-up included";
    if (doc.first_row_s > 0)
      out += "; first row after " + format_number("{:.2f}", doc.first_row_s) + " s";
    out += "\n";
  }
  if (!doc.outcome.phase_s.empty()) {
    out += bullet + std::string("host wall time by phase:");
    for (const auto& [phase, s] : doc.outcome.phase_s)
      out += " " + phase + " " + format_number("{:.2f}", s) + " s;";
    out.back() = '\n';
    if (doc.wall_s > 0)
      out += bullet + std::string("the phases cover ") +
             format_number("{:.1f}", 100.0 * phase_cover(doc)) +
             "% of the wall time (the APIs take turns: each API's phases are its own)\n";
  }
  if (const std::string c = counters_cost_line(doc.outcome, doc.wall_s); !c.empty())
    out += bullet + c + "\n";
  if (!doc.outcome.background_s.empty()) {
    out += bullet + std::string("beside them, on other threads (overlapping the phases):");
    for (const auto& [phase, s] : doc.outcome.background_s)
      out += " " + phase + " " + format_number("{:.2f}", s) + " s;";
    out.back() = '\n';
  }
  if (doc.first_row_s > 0 && !doc.outcome.first_row_phase_s.empty()) {
    // What the first row waited for: the phases as they stood then (those of 5 ms or more).
    out += bullet + std::string("before the first row (") +
           format_number("{:.2f}", doc.first_row_s) + " s):";
    for (const auto& [phase, s] : doc.outcome.first_row_phase_s)
      if (s >= 0.005) out += " " + phase + " " + format_number("{:.2f}", s) + " s;";
    std::string beside;
    for (const auto& [phase, s] : doc.outcome.first_row_background_s)
      if (s >= 0.005) beside += " " + phase + " " + format_number("{:.2f}", s) + " s;";
    if (!beside.empty()) out += " beside them:" + beside;
    out.back() = '\n';
  }
  return out;
}

std::string format_run(const RunDocument& doc, Format format) {
  switch (format) {
    case Format::json:
      return run_json(doc).dump(2) + "\n";
    case Format::csv: {
      std::string out = csv_header();
      for (const ResultRow& r : doc.outcome.rows) out += csv_row(r);
      return out;
    }
    case Format::table:
    case Format::md: {
      const bool md = format == Format::md;
      const bool counters = doc.config.counters;
      const std::vector<std::size_t> columns = table_columns(counters, doc.columns);
      std::vector<std::vector<std::string>> rows = {pick_cells(header_cells(counters), columns)};
      for (const ResultRow& r : doc.outcome.rows)
        rows.push_back(pick_cells(row_cells(r, counters), columns));
      std::ostringstream out;
      if (md) out << "## cuvk results\n\n";
      out << preamble(doc, md) << '\n' << format_text_table(rows, md) << summaries(doc, md);
      return out.str();
    }
  }
  return {};
}

}  // namespace cuvk
