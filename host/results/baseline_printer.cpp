#include "baseline_printer.h"

#include <sstream>

#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

std::string baseline_verdict_cell(const BaselineLine& l) {
  return l.compared ? baseline_verdict_name(l.verdict) : "NOT COMPARED";
}

// "read_x aos vec2 block 256 n 1024 vulkan bda": the point, its size, the lane off its API's own.
std::string note_label(const ResultRow& r) {
  return row_label(r, true, false);
}

}  // namespace

json baseline_json(const BaselineResult& b) {
  json rows = json::array();
  for (const BaselineLine& l : b.lines) {
    json j = point_json(l.now);
    put_lane(j, "", Lane::of(l.now), false);
    j["now"] = verdict_side_json(l.now);
    j["baseline"] = verdict_side_json(l.base);
    j["now_over_baseline"] = l.compared ? json(l.ratio.ratio) : json(nullptr);
    j["ratio_ci_low"] = l.compared ? finite_or_null(l.ratio.low) : json(nullptr);
    j["ratio_ci_high"] = l.compared ? finite_or_null(l.ratio.high) : json(nullptr);
    j["verdict"] = baseline_verdict_cell(l);
    j["reason"] = null_if_empty(l.reason);
    rows.push_back(j);
  }
  json only = json::array();
  for (const ResultRow& r : b.only_in_baseline) {
    json j = point_json(r);
    put_lane(j, "", Lane::of(r), false);
    only.push_back(j);
  }
  return {{"comparison", "new/baseline"},
          {"baseline", b.baseline_name},
          {"tolerance", b.tolerance},
          {"notes", b.notes},
          {"rows", rows},
          {"only_in_baseline", only},
          {"counts",
           {{"same", b.same},
            {"faster", b.faster},
            {"slower", b.slower},
            {"uncertain", b.uncertain},
            {"not_compared", b.not_compared},
            {"unavailable_in_both", b.unavailable_both},
            {"only_in_baseline", b.only_in_baseline.size()}}},
          {"exit_code", b.exit_code}};
}

std::string baseline_text(const BaselineResult& b, bool md, int level) {
  std::ostringstream out;
  const char* bullet = md ? "- " : "  ";
  const std::string now = b.now_name == "this run" ? "This run" : b.now_name;
  out << heading(level, md, now + " vs baseline " + b.baseline_name);
  out << bullet
      << "now/baseline ratio of median GPU times with its 95% confidence interval; SAME = "
      << "inside 1 +- " << tolerance_text(b.tolerance)
      << "; SLOWER (entirely above) fails the run\n";
  for (const std::string& n : b.notes) out << bullet << "note: " << n << '\n';
  out << '\n';
  std::vector<Lane> lanes;
  for (const BaselineLine& l : b.lines) lanes.push_back(Lane::of(l.now));
  // The point and the lane (the API; a binding column only when a row is off its API's own)
  const std::vector<DimColumn> dims =
      drop_neutral_lanes(dim_columns(kPointCompare, 0, kLaneCompare), lanes);
  std::vector<std::vector<std::string>> t = {dim_headers(dims, false)};
  for (const char* c : {"baseline ms", "now ms", "now/baseline", "95% CI", "verdict"})
    t[0].push_back(c);
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < b.lines.size(); ++i) {
    const BaselineLine& l = b.lines[i];
    t.push_back(dim_cells(dims, l.now, lanes[i]));
    for (const std::string& cell :
         {ms_cell(l.base), ms_cell(l.now),
          l.compared ? format_number("{:.3f}", l.ratio.ratio) : "-",
          l.compared ? interval_text(l.ratio) : "-", baseline_verdict_cell(l)})
      t.back().push_back(cell);
    if (!l.compared) notes.push_back(note_label(l.now) + ": " + l.reason);
  }
  if (t.size() > 1) out << format_text_table(t, md);
  if (!notes.empty()) out << '\n' << (md ? "Not compared:\n" : "not compared:\n");
  for (const std::string& n : notes) out << (md ? "- " : "  ") << printable(n) << '\n';
  if (!b.only_in_baseline.empty())
    out << '\n'
        << (md ? "Only in the baseline (not measured now):\n"
               : "only in the baseline (not measured now):\n");
  for (const ResultRow& r : b.only_in_baseline)
    out << (md ? "- " : "  ") << printable(note_label(r))
        << (r.status == Status::ok ? "" : std::string(" (") + status_name(r.status) + " there)")
        << '\n';
  out << '\n'
      << (md ? "**Verdicts:** " : "Verdicts: ") << b.same << " SAME, " << b.faster << " FASTER, "
      << b.slower << " SLOWER, " << b.uncertain << " UNCERTAIN; " << b.not_compared
      << " not compared, " << b.only_in_baseline.size() << " only in the baseline";
  if (b.unavailable_both) out << ", " << b.unavailable_both << " unavailable in both runs";
  out << ".\n";
  return out.str();
}

std::string baseline_csv_rows(const BaselineResult& b) {
  std::string s;
  for (const BaselineLine& l : b.lines)
    s += comparison_csv_line("new/baseline", l.now, Lane::of(l.now), false, l.now, l.base,
                             l.compared, l.ratio, baseline_verdict_cell(l), "", l.reason);
  for (const ResultRow& r : b.only_in_baseline)
    s += comparison_csv_line("new/baseline", r, Lane::of(r), false, std::nullopt, r, false, {},
                             "NOT COMPARED", "", "only in the baseline");
  return s;
}

std::string format_baseline(const BaselineResult& b, Format f) {
  switch (f) {
    case Format::json:
      return json({{"schema", kParitySchema}, {"baseline", baseline_json(b)}}).dump(2) + "\n";
    case Format::csv:
      return comparison_csv_header() + baseline_csv_rows(b);
    case Format::table:
    case Format::md:
      return baseline_text(b, f == Format::md);
  }
  return {};
}

}  // namespace cuvk
