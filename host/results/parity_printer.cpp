#include "parity_printer.h"

#include <algorithm>
#include <sstream>

#include "baseline_printer.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

const char* state_name(PairState s) {
  switch (s) {
    case PairState::compared:
      return "compared";
    case PairState::failed:
      return "failed";
    case PairState::unavailable:
      return "not_compared";
  }
  return "?";
}

std::string parity_verdict_cell(const ParityLine& l) {
  if (l.state == PairState::failed) return "FAILED";
  if (l.state == PairState::unavailable) return "NOT COMPARED";
  return parity_verdict_name(l.verdict);
}

}  // namespace

json parity_json(const RunFile& run, const ParityResult& p) {
  json rows = json::array();
  for (const ParityLine& l : p.lines) {
    json j = point_json(l.point);
    j["cuda"] = verdict_side_json(l.cuda);
    j["vulkan"] = verdict_side_json(l.vulkan);
    put_lane(j, "vulkan_", l.vulkan_lane, true);
    j["state"] = state_name(l.state);
    const bool compared = l.state == PairState::compared;
    j["vulkan_over_cuda"] = compared ? json(l.ratio.ratio) : json(nullptr);
    j["ratio_ci_low"] = compared ? finite_or_null(l.ratio.low) : json(nullptr);
    j["ratio_ci_high"] = compared ? finite_or_null(l.ratio.high) : json(nullptr);
    j["verdict"] = parity_verdict_cell(l);
    j["outputs"] = output_check_name(l.outputs);
    j["reason"] = null_if_empty(l.reason);
    rows.push_back(j);
  }
  return {{"comparison", "vulkan/cuda"},
          {"run", run_identity_json(run)},
          {"tolerance", p.tolerance},
          {"interval", "95%: the two medians' intervals combined in log space, in quadrature"},
          {"rows", rows},
          {"counts",
           {{"same", p.same},
            {"vulkan_faster", p.faster},
            {"vulkan_slower", p.slower},
            {"uncertain", p.uncertain},
            {"failed", p.failed},
            {"not_compared", p.unavailable},
            {"outputs_identical", p.outputs_identical},
            {"outputs_mismatch", p.outputs_mismatch},
            {"not_verified", p.not_verified}}},
          {"not_compared_reason", null_if_empty(p.not_compared_reason)},
          {"exit_code", p.exit_code}};
}

namespace {

// The point and the Vulkan lane (the API left out: it is what is compared).
std::vector<DimColumn> parity_dims() {
  return dim_columns(kPointCompare, 0, kLaneCompare, true);
}

}  // namespace

std::vector<std::string> parity_table_headers() {
  std::vector<std::string> h = dim_headers(parity_dims(), true);
  for (const char* c : {"CUDA ms", "Vulkan ms", "Vulkan/CUDA", "95% CI", "verdict", "outputs"})
    h.push_back(c);
  return h;
}

std::string parity_text(const RunFile& run, const ParityResult& p, bool md, int level,
                        const std::vector<std::string>& columns) {
  std::ostringstream out;
  const char* bullet = md ? "- " : "  ";
  if (level > 0) out << heading(level, md, "CUDA vs Vulkan parity");
  out << bullet << "run " << describe_run(run) << '\n';
  out << bullet
      << "Vulkan/CUDA ratio of median GPU times with its 95% confidence interval; SAME = the "
      << "interval lies inside 1 +- " << tolerance_text(p.tolerance)
      << ", VULKAN FASTER/SLOWER = entirely outside, UNCERTAIN = it crosses a tolerance edge\n";
  out << bullet
      << "outputs: the two APIs' output buffers, bit for bit (XXH3-64 hashes; each row is also "
      << "checked element by element: a built-in test against the CPU reference)\n\n";
  std::vector<std::vector<std::string>> t = {parity_table_headers()};
  std::vector<std::string> notes;
  std::vector<Lane> lanes;
  const std::vector<DimColumn> dims = parity_dims();
  for (const ParityLine& l : p.lines) {
    const bool c = l.state == PairState::compared;
    t.push_back(dim_cells(dims, l.point, l.vulkan_lane));
    for (const std::string& cell :
         {ms_cell(l.cuda), ms_cell(l.vulkan), c ? format_number("{:.3f}", l.ratio.ratio) : "-",
          c ? interval_text(l.ratio) : "-", parity_verdict_cell(l),
          std::string(l.outputs == OutputCheck::unknown ? "-" : output_check_name(l.outputs))})
      t.back().push_back(cell);
    lanes.push_back(l.vulkan_lane);
    if (!l.reason.empty() && std::find(notes.begin(), notes.end(), l.reason) == notes.end())
      notes.push_back(l.reason);
  }
  std::vector<std::size_t> keep = column_indices(t[0], columns);
  if (columns.empty()) {  // a lane column only where some pair is off Vulkan's own value
    const std::vector<DimColumn> shown = drop_neutral_lanes(dims, lanes);
    for (std::size_t i = dims.size(); i-- > 0;)
      if (!dims[i].point && std::none_of(shown.begin(), shown.end(), [&](const DimColumn& s) {
            return !s.point && s.lane == dims[i].lane;
          }))
        keep.erase(keep.begin() + static_cast<std::ptrdiff_t>(i));
  }
  for (auto& row : t) row = pick_cells(row, keep);
  out << format_text_table(t, md);
  for (const std::string& n : notes) out << (md ? "\n- " : "\n") << printable(n);
  if (!notes.empty()) out << '\n';
  out << '\n'
      << (md ? "**Verdicts:** " : "Verdicts: ") << p.same << " SAME, " << p.faster
      << " VULKAN FASTER, " << p.slower << " VULKAN SLOWER, " << p.uncertain << " UNCERTAIN";
  if (p.failed) out << ", " << p.failed << " FAILED";
  if (p.unavailable) out << ", " << p.unavailable << " NOT COMPARED";
  out << "; outputs identical on " << p.outputs_identical << " of "
      << (p.outputs_identical + p.outputs_mismatch) << " hashed points";
  if (p.outputs_mismatch) out << " (" << p.outputs_mismatch << " MISMATCH)";
  if (p.not_verified) out << "; " << p.not_verified << " compared points not verified";
  out << ".\n";
  return out.str();
}

std::string parity_csv_rows(const ParityResult& p) {
  std::string s;
  for (const ParityLine& l : p.lines)
    s += comparison_csv_line("vulkan/cuda", l.point, l.vulkan_lane, true, l.vulkan, l.cuda,
                             l.state == PairState::compared, l.ratio, parity_verdict_cell(l),
                             output_check_name(l.outputs), l.reason);
  return s;
}

std::string format_parity(const RunFile& run, const ParityResult& p, const BaselineResult* b,
                          Format f, const std::vector<std::string>& columns) {
  switch (f) {
    case Format::json: {
      json j = {{"schema", kParitySchema}, {"parity", parity_json(run, p)}};
      if (b) j["baseline"] = baseline_json(*b);
      return j.dump(2) + "\n";
    }
    case Format::csv:
      return comparison_csv_header() + parity_csv_rows(p) + (b ? baseline_csv_rows(*b) : "");
    case Format::table:
    case Format::md: {
      const bool md = f == Format::md;
      std::string s = parity_text(run, p, md, 2, columns);
      if (b) s += "\n" + baseline_text(*b, md);
      return s;
    }
  }
  return {};
}

}  // namespace cuvk
