#include "printing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <fmt/ranges.h>

#include "error.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

std::string pad(const std::string& s, std::size_t w, bool right) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string bound(double v) {
  return std::isfinite(v) ? format_number("{:.3f}", v) : "inf";
}

std::string csv_ms(const std::optional<ResultRow>& r, double Summary::*field) {
  return r && r->status == Status::ok ? format_number("{:.6g}", r->time_ms.*field) : "";
}

}  // namespace

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : printable(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string format_text_table(const std::vector<std::vector<std::string>>& raw, bool markdown) {
  // Every cell printable: names, drivers and reasons come from files and drivers.
  std::vector<std::vector<std::string>> rows = raw;
  for (auto& r : rows)
    for (std::string& cell : r) cell = markdown ? md_cell(cell) : printable(cell);
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
      if (markdown)
        out << "| ";
      else if (c > 0)
        out << "  ";
      out << pad(rows[i][c], width[c], numeric[c] && i > 0);
      if (markdown) out << ' ';
    }
    if (markdown) out << '|';
    out << '\n';
    if (i == 0) {
      for (std::size_t c = 0; c < rows[0].size(); ++c) {
        if (markdown)
          out << "| " << std::string(width[c], '-') << ' ';
        else
          out << (c > 0 ? "  " : "") << std::string(width[c], '-');
      }
      out << (markdown ? "|\n" : "\n");
    }
  }
  return out.str();
}

std::vector<std::size_t> column_indices(const std::vector<std::string>& headers,
                                        const std::vector<std::string>& names) {
  const auto key = [](std::string s) {
    for (char& c : s)
      c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::vector<std::size_t> out;
  if (names.empty())
    for (std::size_t c = 0; c < headers.size(); ++c) out.push_back(c);
  for (const std::string& name : names) {
    std::size_t c = 0;
    while (c < headers.size() && key(headers[c]) != key(name)) ++c;
    if (c == headers.size()) {
      throw UsageError(fmt::format("--columns: unknown column '{}' (columns: {})", printable(name),
                                   fmt::join(headers, ", ")));
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> pick_cells(const std::vector<std::string>& row,
                                    const std::vector<std::size_t>& indices) {
  std::vector<std::string> out;
  for (std::size_t c : indices) out.push_back(c < row.size() ? row[c] : std::string());
  return out;
}

std::string csv_field(const std::string& text) {
  const std::string s = printable(text);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

std::string heading(int level, bool markdown, const std::string& raw) {
  const std::string text = printable(raw);
  if (!markdown) return text + "\n";
  return std::string(static_cast<std::size_t>(level), '#') + " " + text + "\n\n";
}

std::string tolerance_text(double tol) {
  return format_number("{:.3g}", 100.0 * tol) + "%";
}

std::string interval_text(const RatioCi& r) {
  return "[" + bound(r.low) + ", " + bound(r.high) + "]";
}

std::string ms_cell(const std::optional<ResultRow>& r) {
  if (!r) return "-";
  if (r->status == Status::ok) return format_number("{:.4f}", r->time_ms.median);
  return r->status == Status::failed ? "FAILED" : "-";
}

json null_if_empty(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

json finite_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string describe_run(const RunFile& run) {
  std::string s = run.name + ": " + run.gpu_name();
  if (run.cuda) s += ", " + run.cuda_driver();
  if (run.vulkan) s += ", Vulkan " + run.vulkan_driver();
  s += "; " + run.date_utc + ", cuvk " + run.git_revision;
  return printable(s);
}

json run_identity_json(const RunFile& run) {
  return {{"file", run.name},
          {"gpu", run.gpu_name()},
          {"cuda_uuid", run.cuda ? json(run.cuda->uuid) : json(nullptr)},
          {"vulkan_uuid", run.vulkan ? json(run.vulkan->uuid) : json(nullptr)},
          {"cuda_driver", null_if_empty(run.cuda_driver())},
          {"vulkan_driver", null_if_empty(run.vulkan_driver())},
          {"date_utc", run.date_utc},
          {"git_revision", run.git_revision}};
}

json point_json(const ResultRow& r) {
  json j = json::object();
  put_point(j, kPointJson, r);
  return j;
}

void put_point(json& j, unsigned place, const ResultRow& r) {
  for (const DimColumn& c : dim_columns(place)) j[c.point->name] = point_json_value(*c.point, r);
}

std::vector<std::string> dim_headers(const std::vector<DimColumn>& columns, bool pair) {
  std::vector<std::string> out;
  for (const DimColumn& c : columns)
    out.push_back(c.point ? c.point->header : lane_header(c.lane, pair));
  return out;
}

std::vector<std::string> dim_cells(const std::vector<DimColumn>& columns, const ResultRow& point,
                                   const Lane& lane) {
  std::vector<std::string> out;
  for (const DimColumn& c : columns)
    out.push_back(c.point ? point_cell(*c.point, point, lane) : dash(lane.text(c.lane)));
  return out;
}

std::vector<DimColumn> drop_neutral_lanes(std::vector<DimColumn> columns,
                                          const std::vector<Lane>& lanes) {
  const auto neutral = [&lanes](const DimColumn& c) {
    if (c.point) return false;
    for (const Lane& l : lanes)
      if (!l.neutral(c.lane)) return false;
    return true;
  };
  columns.erase(std::remove_if(columns.begin(), columns.end(), neutral), columns.end());
  return columns;
}

void put_lane(json& j, const std::string& prefix, const Lane& lane, bool pair) {
  for (std::size_t d : lane_columns(kLaneJson, pair)) {
    const LaneDim& dim = lane_dims()[d];
    const std::optional<std::string>& v = lane.values[d];
    if (v) j[prefix + dim.name] = dim.number ? json(std::stoull(*v)) : json(*v);
  }
}

std::string lane_header(std::size_t dim, bool pair) {
  return (pair ? "Vulkan " : "") + lane_dims()[dim].header;
}

json verdict_side_json(const std::optional<ResultRow>& r) {
  if (!r) return nullptr;
  json j = {{"status", status_name(r->status)},
            {"verified", r->verified},
            {"check", r->status == Status::ok ? json(check_name(r->check)) : json(nullptr)},
            {"output_hash", r->output_hash ? json(hash_text(r->output_hash->value)) : json(nullptr)},
            {"output_hash_kind", r->output_hash ? json(hash_kind_name(r->output_hash->kind))
                                                : json(nullptr)}};
  if (r->status == Status::ok) {
    j["median_ms"] = r->time_ms.median;
    j["ci_low_ms"] = r->time_ms.ci_low;
    j["ci_high_ms"] = r->time_ms.ci_high;
  } else {
    j["reason"] = r->reason;
  }
  return j;
}

namespace {

// The comparison CSV's point and lane columns: a point dimension, or a lane dimension (empty for
// the API of a pair's Vulkan lane: the API is what is compared).
std::vector<DimColumn> comparison_dims() {
  return dim_columns(kPointCompareCsv, kLaneCsvHead);
}

}  // namespace

std::string comparison_csv_header() {
  std::string head, tail;
  for (const DimColumn& c : comparison_dims())
    head += (c.point ? c.point->name : lane_dims()[c.lane].name) + ",";
  for (std::size_t d : lane_columns(kLaneCsvTail)) tail += ",vulkan_" + lane_dims()[d].name;
  return "comparison," + head +
         "numerator_ms,numerator_ci_low_ms,numerator_ci_high_ms,denominator_ms,"
         "denominator_ci_low_ms,denominator_ci_high_ms,ratio,ratio_ci_low,ratio_ci_high,verdict,"
         "outputs,reason" +
         tail + "\n";
}

std::string comparison_csv_line(const char* comparison, const ResultRow& p, const Lane& lane,
                                bool pair, const std::optional<ResultRow>& num,
                                const std::optional<ResultRow>& den, bool compared,
                                const RatioCi& ratio, const std::string& verdict,
                                const std::string& outputs, const std::string& reason) {
  std::ostringstream out;
  out << comparison << ',';
  for (const DimColumn& c : comparison_dims())
    out << (c.point                                     ? csv_field(c.point->get(p))
            : pair && lane_dims()[c.lane].name == "api" ? ""
                                                        : csv_field(lane.text(c.lane)))
        << ',';
  out << csv_ms(num, &Summary::median) << ',' << csv_ms(num, &Summary::ci_low) << ','
      << csv_ms(num, &Summary::ci_high) << ',' << csv_ms(den, &Summary::median) << ','
      << csv_ms(den, &Summary::ci_low) << ',' << csv_ms(den, &Summary::ci_high) << ',';
  if (compared)
    out << format_number("{:.6g}", ratio.ratio) << ','
        << (std::isfinite(ratio.low) ? format_number("{:.6g}", ratio.low) : "") << ','
        << (std::isfinite(ratio.high) ? format_number("{:.6g}", ratio.high) : "");
  else
    out << ",,";
  out << ',' << csv_field(verdict) << ',' << outputs << ',' << csv_field(reason);
  for (std::size_t d : lane_columns(kLaneCsvTail)) out << ',' << csv_field(lane.text(d));
  out << '\n';
  return out.str();
}

}  // namespace cuvk
