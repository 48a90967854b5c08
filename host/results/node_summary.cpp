// A node's GPUs in one run: parity per GPU, the sibling rule, the interference check
// (node_summary.h).
#include "node_summary.h"

#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "dims.h"
#include "parity.h"
#include "printing.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

std::string ratio_text(const RatioCi& r) {
  return format_number("{:.3f}", r.ratio) + "x [" + format_number("{:.3f}", r.low) + ", " +
         format_number("{:.3f}", r.high) + "]";
}

json ratio_json(const RatioCi& r) {
  return {{"ratio", r.ratio}, {"ci95_low", r.low}, {"ci95_high", r.high}};
}

const char* together_name(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "FASTER TOGETHER";
    case Verdict::slower:
      return "SLOWER TOGETHER";
    case Verdict::uncertain:
      break;
  }
  return "UNCERTAIN";
}

// The furthest point from 1: among the decided differences (faster, slower) first, else all.
bool further(const InterferencePoint& p, const std::optional<InterferencePoint>& worst) {
  if (!worst) return true;
  const auto decided = [](Verdict v) { return v == Verdict::faster || v == Verdict::slower; };
  if (decided(p.verdict) != decided(worst->verdict)) return decided(p.verdict);
  return std::fabs(std::log(p.ratio.ratio)) > std::fabs(std::log(worst->ratio.ratio));
}

std::vector<std::vector<std::string>> gpus_table(const NodeSummary& s) {
  std::vector<std::vector<std::string>> t = {{"GPU", "model", "UUID", "SAME", "VULKAN FASTER",
                                              "VULKAN SLOWER", "UNCERTAIN", "FAILED",
                                              "NOT COMPARED", "siblings", "against siblings"}};
  for (const NodeGpu& g : s.gpus) {
    const FleetBoard& b = g.board;
    std::string sib = "-";
    if (b.siblings > 0 && b.compared > 0)
      sib = fmt::format("{} slower, {} faster of {}, typical {}", b.slower, b.faster, b.compared,
                        format_number("{:.3f}", b.typical_ratio));
    t.push_back({g.run, g.gpu, dash(g.uuid), std::to_string(g.same), std::to_string(g.faster),
                 std::to_string(g.slower), std::to_string(g.uncertain), std::to_string(g.failed),
                 std::to_string(g.not_compared), std::to_string(b.siblings), sib});
  }
  return t;
}

// A field of the run's node view (gpu_health.h, written by run_writer.cpp) as text: "-" absent.
std::string node_text(const json& node, const char* group, const char* key) {
  if (!node.is_object() || !node.contains(group)) return "-";
  const json& g = node[group];
  if (!g.is_object() || !g.contains(key)) return "-";
  const json& v = g[key];
  if (v.is_string()) return printable(v.get<std::string>());
  if (v.is_number_integer()) return v.get<long long>() < 0 ? "unknown" : v.dump();
  return "-";
}

// Per GPU its health from NVML, read after its rows, and the NUMA placement of its GPU and of the
// host thread that measured it; `unavailable` where NVML did not answer (no GPU: "-").
std::vector<std::vector<std::string>> health_table(const std::vector<RunFile>& runs,
                                                   const NodeSummary& s) {
  std::vector<std::vector<std::string>> t = {
      {"GPU", "ECC uncorrected (volatile)", "ECC corrected (volatile)", "retired pages",
       "remapped rows", "PCIe", "clocks MHz", "power W", "clock event reasons", "GPU NUMA",
       "host thread CPU / NUMA", "NVML"}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& doc = runs[i].doc;
    const json node = doc.is_object() && doc.contains("node") ? doc["node"] : json();
    const auto h = [&node](const char* key) { return node_text(node, "gpu_health", key); };
    const std::string numa =
        node.is_object() && node.contains("gpu_numa_node") && node["gpu_numa_node"].is_number()
            ? (node["gpu_numa_node"].get<int>() < 0 ? "unknown" : node["gpu_numa_node"].dump())
            : "-";
    t.push_back(
        {s.gpus[i].run, h("ecc_uncorrected_volatile"), h("ecc_corrected_volatile"),
         h("retired_pages"), h("remapped_rows"), h("pcie"), h("clocks_mhz"), h("power_w"),
         h("clock_event_reasons"), numa,
         node_text(node, "host_thread", "cpu") + " / " +
             node_text(node, "host_thread", "numa_node"),
         !node.is_object() || !node.contains("gpu_health") || !node["gpu_health"].is_object()
             ? "no GPU"
             : (h("unavailable") == "-" ? "ok" : h("unavailable"))});
  }
  return t;
}

}  // namespace

std::string InterferenceGpu::line() const {
  std::string s = fmt::format("{}: {} of {} points slower together", run, counts.slower, compared);
  if (counts.faster > 0) s += fmt::format(", {} faster", counts.faster);
  if (counts.uncertain > 0) s += fmt::format(", {} uncertain", counts.uncertain);
  if (worst) s += ", worst " + ratio_text(worst->ratio) + " (" + worst->point + ")";
  return compared == 0 ? run + ": no point measured both alone and together" : s;
}

InterferenceGpu interference_check(const std::string& gpu, const RunFile& alone,
                                   const RunFile& together, double tolerance) {
  InterferenceGpu out;
  out.run = gpu;
  std::map<std::string, const ResultRow*> with;
  for (const ResultRow& r : together.rows)
    if (r.status == Status::ok) with.emplace(row_identity(r), &r);
  for (const ResultRow& r : alone.rows) {
    const auto it = with.find(row_identity(r));
    if (r.status != Status::ok || it == with.end()) continue;
    InterferencePoint p;
    p.point = row_label(r, false, true);
    p.ratio = ratio_ci(median_ci(it->second->time_ms), median_ci(r.time_ms));
    p.verdict = judge(p.ratio, tolerance);
    ++out.compared;
    out.counts.add(p.verdict);
    if (further(p, out.worst)) out.worst = p;
    out.points.push_back(p);
  }
  return out;
}

std::vector<std::string> NodeSummary::sibling_lines() const {
  std::vector<std::string> lines;
  std::vector<std::string> models;
  std::map<std::string, std::vector<const NodeGpu*>> by_model;
  for (const NodeGpu& g : gpus) {
    if (by_model[g.gpu].empty()) models.push_back(g.gpu);
    by_model[g.gpu].push_back(&g);
  }
  for (const std::string& m : models) {
    const std::vector<const NodeGpu*>& same = by_model[m];
    if (same.size() < 2) continue;
    std::string off;
    for (const NodeGpu* g : same)
      if (g->board.flagged())
        off += fmt::format(
            "{}{} ({} slower, {} faster of {} points than its siblings, furthest {} {})",
            off.empty() ? "" : "; ", g->run, g->board.slower, g->board.faster, g->board.compared,
            g->board.worst_point, ratio_text(g->board.worst));
    const std::string n = fmt::format("{} GPUs of {}", same.size(), m);
    if (same.size() == 2)
      lines.push_back(
          n + ": " +
          (off.empty() ? "they agree" : "they differ, and two cannot say which one is off"));
    else
      lines.push_back(n + ": " + (off.empty() ? "no board is off" : "off: " + off));
  }
  return lines;
}

NodeSummary node_summary(const std::vector<RunFile>& runs, double tolerance) {
  NodeSummary s;
  s.tolerance = tolerance;
  const FleetView fleet = fleet_view(runs, {}, tolerance);  // the fleet's sibling rule
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ParityResult p = compare_apis(runs[i].rows, tolerance);
    NodeGpu g;
    g.run = runs[i].name;
    g.board = fleet.boards[i];
    g.gpu = g.board.gpu;
    g.uuid = g.board.uuid;
    g.same = p.same;
    g.faster = p.faster;
    g.slower = p.slower;
    g.uncertain = p.uncertain;
    g.failed = p.failed;
    g.not_compared = p.unavailable;
    s.gpus.push_back(g);
  }
  return s;
}

std::string format_node_summary(const NodeSummary& s, const std::vector<RunFile>& runs, bool md) {
  std::ostringstream out;
  const std::string h = md ? "## " : "";
  out << h << "Node: " << s.gpus.size() << " GPU(s), CUDA vs Vulkan parity per GPU, tolerance "
      << format_number("{:g}", s.tolerance * 100.0) << "%\n\n"
      << format_text_table(gpus_table(s), md) << "\n";
  if (runs.size() == s.gpus.size())
    out << h << "Health (NVML, read after each GPU's rows) and NUMA placement\n\n"
        << format_text_table(health_table(runs, s), md) << "\n";
  const std::vector<std::string> siblings = s.sibling_lines();
  if (!siblings.empty()) {
    out << h << "GPUs against their siblings (the other GPUs of their model, the fleet's rule)\n\n";
    for (const std::string& l : siblings) out << (md ? "- " : "") << l << "\n";
    out << "\n";
  }
  if (!s.interference.empty()) {
    out << h
        << "Interference: each point measured together (all GPUs at once) over alone (in "
           "turn), 95% interval\n\n";
    for (const InterferenceGpu& g : s.interference) out << (md ? "- " : "") << g.line() << "\n";
    out << "\n";
  }
  return out.str();
}

json node_summary_json(const NodeSummary& s) {
  json j = {{"tolerance", s.tolerance}, {"gpus", json::array()}};
  for (const NodeGpu& g : s.gpus) {
    const FleetBoard& b = g.board;
    json sib = {{"siblings", b.siblings}, {"compared", b.compared}, {"same", b.same},
                {"faster", b.faster},     {"slower", b.slower},     {"uncertain", b.uncertain},
                {"flagged", b.flagged()}};
    if (b.compared > 0) {
      sib["typical_ratio"] = b.typical_ratio;
      sib["furthest_point"] = b.worst_point;
      sib["furthest"] = ratio_json(b.worst);
    }
    j["gpus"].push_back({{"gpu", g.run},
                         {"model", g.gpu},
                         {"uuid", g.uuid},
                         {"parity",
                          {{"same", g.same},
                           {"vulkan_faster", g.faster},
                           {"vulkan_slower", g.slower},
                           {"uncertain", g.uncertain},
                           {"failed", g.failed},
                           {"not_compared", g.not_compared}}},
                         {"against_siblings", sib}});
  }
  j["siblings"] = s.sibling_lines();
  if (!s.interference.empty()) {
    json inter = json::array();
    for (const InterferenceGpu& g : s.interference) {
      json points = json::array();
      for (const InterferencePoint& p : g.points)
        points.push_back({{"point", p.point},
                          {"together_over_alone", ratio_json(p.ratio)},
                          {"verdict", together_name(p.verdict)}});
      inter.push_back({{"gpu", g.run},
                       {"compared", g.compared},
                       {"same", g.counts.same},
                       {"slower_together", g.counts.slower},
                       {"faster_together", g.counts.faster},
                       {"uncertain", g.counts.uncertain},
                       {"line", g.line()},
                       {"points", points}});
    }
    j["interference"] = inter;
  }
  return j;
}

}  // namespace cuvk
