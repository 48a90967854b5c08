#include "merge_printer.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "merge.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

// Which APIs a run measured at all: columns for an API a run never ran are left out.
using RunApis = PerApi<bool>;
RunApis apis_of(const RunFile& run) {
  RunApis a;
  for (const ResultRow& r : run.rows)
    if (r.status != Status::unavailable) a[r.api] = true;
  return a;
}

std::string gbps(const std::optional<ResultRow>& r) {
  return r && r->status == Status::ok ? format_number("{:.1f}", r->gbps_moved) : "-";
}

json side_json(const std::optional<ResultRow>& r) {
  if (!r) return nullptr;
  json j = {{"status", status_name(r->status)}};
  if (r->status == Status::ok) {
    j["median_ms"] = r->time_ms.median;
    j["ci_low_ms"] = r->time_ms.ci_low;
    j["ci_high_ms"] = r->time_ms.ci_high;
    j["gbps_useful"] = r->gbps_useful;
    j["gbps_moved"] = r->gbps_moved;
  } else {
    j["reason"] = r->reason;
  }
  return j;
}

std::string legend(const std::vector<RunFile>& runs, bool md) {
  std::ostringstream out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    out << (md ? "- **" : "  ") << run_label(i) << (md ? "**: " : ": ") << describe_run(runs[i])
        << '\n';
  out << (md ? "- " : "  ")
      << "ms = median GPU time; GB/s = bytes DRAM moves (32-byte sectors) per second, "
      << "1e9 bytes/s; V/C = Vulkan/CUDA median time ratio (> 1: Vulkan slower); - = not "
         "measured\n";
  return out.str();
}

std::vector<std::vector<std::string>> test_table(const std::vector<RunFile>& runs,
                                                 const std::vector<RunApis>& apis,
                                                 const std::vector<const MergedRow*>& rows) {
  std::vector<Lane> lanes;  // a Vulkan lane column only where some row is off Vulkan's own value
  for (const MergedRow* m : rows) lanes.push_back(m->vulkan_lane);
  const std::vector<DimColumn> dims =
      drop_neutral_lanes(dim_columns(kPointMergeTable, 0, kLaneCompare, true), lanes);
  std::vector<std::string> head = dim_headers(dims, true);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string l = run_label(i) + " ";
    if (apis[i][Api::cuda]) head.insert(head.end(), {l + "CUDA ms", l + "CUDA GB/s"});
    if (apis[i][Api::vulkan]) head.insert(head.end(), {l + "Vulkan ms", l + "Vulkan GB/s"});
    if (apis[i][Api::cuda] && apis[i][Api::vulkan]) head.push_back(l + "V/C");
  }
  std::vector<std::vector<std::string>> t = {head};
  for (const MergedRow* m : rows) {
    std::vector<std::string> cells = dim_cells(dims, m->point, m->vulkan_lane);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const MergedCell& c = m->runs[i];
      if (apis[i][Api::cuda]) cells.insert(cells.end(), {ms_cell(c.cuda), gbps(c.cuda)});
      if (apis[i][Api::vulkan]) cells.insert(cells.end(), {ms_cell(c.vulkan), gbps(c.vulkan)});
      if (apis[i][Api::cuda] && apis[i][Api::vulkan])
        cells.push_back(c.vulkan_over_cuda ? format_number("{:.3f}", c.vulkan_over_cuda->ratio)
                                           : "-");
    }
    t.push_back(cells);
  }
  return t;
}

std::string text_tables(const std::vector<RunFile>& runs, const std::vector<MergedRow>& merged,
                        bool md, int level) {
  std::vector<RunApis> apis;
  for (const RunFile& r : runs) apis.push_back(apis_of(r));
  std::ostringstream out;
  if (md && level == 2)
    out << "# cuvk: " << runs.size() << (runs.size() == 1 ? " run\n\n" : " runs compared\n\n");
  out << legend(runs, md);
  std::vector<std::string> tests;
  for (const MergedRow& m : merged)
    if (std::find(tests.begin(), tests.end(), m.point.test) == tests.end())
      tests.push_back(m.point.test);
  for (const std::string& test : tests) {
    std::vector<const MergedRow*> rows;
    for (const MergedRow& m : merged)
      if (m.point.test == test) rows.push_back(&m);
    out << '\n' << heading(level, md, test);
    out << format_text_table(test_table(runs, apis, rows), md);
  }
  return out.str();
}

std::string csv(const std::vector<RunFile>& runs, const std::vector<MergedRow>& merged) {
  std::ostringstream out;
  const std::vector<DimColumn> dims = dim_columns(kPointMergeCsv, 0, kLaneMergeCsv, true);
  for (const DimColumn& c : dims)  // the point, then the Vulkan lane
    out << (&c == &dims[0] ? "" : ",")
        << (c.point ? c.point->name : "vulkan_" + lane_dims()[c.lane].name);
  for (const RunFile& r : runs)
    for (const char* col :
         {"cuda median_ms", "cuda gbps_moved", "cuda gbps_useful", "vulkan median_ms",
          "vulkan gbps_moved", "vulkan gbps_useful", "vulkan_over_cuda"})
      out << ',' << csv_field(r.name + " " + col);
  out << '\n';
  auto num = [](const std::optional<ResultRow>& r, double ResultRow::*f) {
    return r && r->status == Status::ok ? format_number("{:.6g}", (*r).*f) : std::string();
  };
  auto med = [](const std::optional<ResultRow>& r) {
    return r && r->status == Status::ok ? format_number("{:.6g}", r->time_ms.median)
                                        : std::string();
  };
  for (const MergedRow& m : merged) {
    for (const DimColumn& c : dims)
      out << (&c == &dims[0] ? "" : ",")
          << csv_field(c.point ? c.point->get(m.point) : m.vulkan_lane.text(c.lane));
    for (const MergedCell& c : m.runs) {
      out << ',' << med(c.cuda) << ',' << num(c.cuda, &ResultRow::gbps_moved) << ','
          << num(c.cuda, &ResultRow::gbps_useful) << ',' << med(c.vulkan) << ','
          << num(c.vulkan, &ResultRow::gbps_moved) << ',' << num(c.vulkan, &ResultRow::gbps_useful)
          << ',' << (c.vulkan_over_cuda ? format_number("{:.6g}", c.vulkan_over_cuda->ratio) : "");
    }
    out << '\n';
  }
  return out.str();
}

json merged_json(const std::vector<RunFile>& runs, const std::vector<MergedRow>& merged) {
  json jruns = json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    json j = run_identity_json(runs[i]);
    j["label"] = run_label(i);
    jruns.push_back(j);
  }
  json rows = json::array();
  for (const MergedRow& m : merged) {
    json cells = json::array();
    for (std::size_t i = 0; i < m.runs.size(); ++i) {
      const MergedCell& c = m.runs[i];
      const auto& r = c.vulkan_over_cuda;
      cells.push_back(
          {{"label", run_label(i)},
           {"cuda", side_json(c.cuda)},
           {"vulkan", side_json(c.vulkan)},
           {"vulkan_over_cuda", r ? json(r->ratio) : json(nullptr)},
           {"ratio_ci_low", r && std::isfinite(r->low) ? json(r->low) : json(nullptr)},
           {"ratio_ci_high", r && std::isfinite(r->high) ? json(r->high) : json(nullptr)}});
    }
    json row = point_json(m.point);
    put_lane(row, "vulkan_", m.vulkan_lane, true);
    row["runs"] = cells;
    rows.push_back(row);
  }
  return {{"schema", kReportSchema}, {"runs", jruns}, {"rows", rows}};
}

}  // namespace

std::string format_merged(const std::vector<RunFile>& runs, Format format, int level) {
  const std::vector<MergedRow> merged = merge_runs(runs);
  switch (format) {
    case Format::json:
      return merged_json(runs, merged).dump(2) + "\n";
    case Format::csv:
      return csv(runs, merged);
    case Format::table:
    case Format::md:
      return text_tables(runs, merged, format == Format::md, level);
  }
  return {};
}

}  // namespace cuvk
