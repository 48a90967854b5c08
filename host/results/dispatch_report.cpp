#include "dispatch_report.h"

#include <algorithm>
#include <map>

#include "printing.h"
#include "util.h"

namespace cuvk {

using nlohmann::json;

namespace {

json fit_json(const DispatchCost& c) {
  const LineFit& f = c.fit;
  return {{"a_us", f.a},
          {"a_ci_us", {f.a_low, f.a_high}},
          {"b_ns_per_block", f.b * 1000.0},
          {"b_ci_ns_per_block", {f.b_low * 1000.0, f.b_high * 1000.0}},
          {"min_blocks", c.min_blocks},
          {"points_fitted", f.points},
          {"points_left_out", c.points_left_out},
          {"residuals_us", f.residuals},
          {"max_abs_rel_residual", f.max_abs_rel_residual}};
}

}  // namespace

json dispatch_cost_json(const std::vector<DispatchCostResult>& results) {
  json all = json::array();
  for (const DispatchCostResult& r : results) {
    json points = json::array();
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const Summary& s = r.summaries[i];
      points.push_back({{"blocks", r.points[i].blocks},
                        {"median_us", s.median},
                        {"ci_us", {s.ci_low, s.ci_high}},
                        {"min_us", s.min},
                        {"samples", s.samples}});
    }
    all.push_back({{"api", api_name(r.api)},
                   {"block_size", r.block_size},
                   {"blocks_per_wave", r.blocks_per_wave},
                   {"wave_source", r.wave_source},
                   {"points", points},
                   {"fit", r.cost ? fit_json(*r.cost) : json(nullptr)},
                   {"no_fit", r.cost ? json(nullptr) : json(r.no_fit)}});
  }
  return all;
}

std::string dispatch_cost_tables(const std::vector<DispatchCostResult>& results, bool markdown) {
  if (results.empty()) return "";
  std::vector<std::vector<std::string>> fits = {
      {"api", "block", "a us", "a 95% CI", "b ns/block", "b 95% CI", "fitted from", "max resid %"}};
  std::map<double, std::vector<std::string>> sweep;  // blocks -> median us per API
  std::vector<std::string> head = {"blocks"};
  for (std::size_t k = 0; k < results.size(); ++k) {
    const DispatchCostResult& r = results[k];
    head.push_back(std::string(api_name(r.api)) + " us");
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      std::vector<std::string>& cells = sweep[r.points[i].blocks];
      cells.resize(results.size(), "-");
      cells[k] = format_number("{:.2f}", r.points[i].median_us);
    }
    if (!r.cost) {
      fits.push_back({api_name(r.api), std::to_string(r.block_size), "-", "-", "-", "-",
                      "no fit: " + r.no_fit, "-"});
      continue;
    }
    const LineFit& f = r.cost->fit;
    fits.push_back(
        {api_name(r.api), std::to_string(r.block_size), format_number("{:.2f}", f.a),
         format_number("{:.2f}", f.a_low) + " .. " + format_number("{:.2f}", f.a_high),
         format_number("{:.3f}", f.b * 1e3),
         format_number("{:.3f}", f.b_low * 1e3) + " .. " + format_number("{:.3f}", f.b_high * 1e3),
         format_number("{:.0f}", r.cost->min_blocks) + " blocks",
         format_number("{:.1f}", f.max_abs_rel_residual * 100.0)});
  }
  std::string notes;  // where each API's wave came from: the fit starts at 4 waves
  for (const DispatchCostResult& r : results)
    notes += (markdown ? "\n- " : "\n") + std::string(api_name(r.api)) + ": " +
             format_number("{:.0f}", r.blocks_per_wave) + " blocks per wave: " + r.wave_source +
             "; fitted from 4 waves on";
  std::vector<std::vector<std::string>> points = {head};
  for (const auto& [blocks, cells] : sweep) {
    std::vector<std::string> row = {format_number("{:.0f}", blocks)};
    row.insert(row.end(), cells.begin(), cells.end());
    points.push_back(row);
  }
  return "\n" +
         heading(3, markdown,
                 "Dispatch cost: us = a + b x blocks (near-empty kernel, GPU timers)") +
         format_text_table(fits, markdown) + notes + "\n\n" +
         heading(3, markdown, "Dispatch sweep (median us per dispatch)") +
         format_text_table(points, markdown);
}

}  // namespace cuvk
