// A node's GPUs measured in one run (`cuvk run --device all` or a list): per GPU its CUDA vs
// Vulkan parity counts and, against the node's other GPUs of its model, the fleet's sibling rule
// (fleet.h, the same code); with --concurrent, the interference check (each point measured alone,
// in turn, and together, all GPUs at once). Pure computation over parsed runs (docs/MEASURING.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleet.h"
#include "run_file.h"
#include "verdicts.h"

namespace cuvk {

// One GPU of the node: its parity verdict counts (compare_apis) and its board against siblings.
struct NodeGpu {
  std::string run, gpu, uuid;
  std::size_t same = 0, faster = 0, slower = 0, uncertain = 0, failed = 0, not_compared = 0;
  FleetBoard board;  // against the other GPUs of its model in this node (fleet_view)
};

// One point of one GPU: together (the concurrent pass) over alone (the in-turn pass).
struct InterferencePoint {
  std::string point;
  RatioCi ratio;                         // together / alone, 95% interval (ratio_ci)
  Verdict verdict = Verdict::uncertain;  // slower: slower together
};

struct InterferenceGpu {
  std::string run;  // the GPU, as the node names it
  std::size_t compared = 0;
  VerdictCounts counts;
  std::vector<InterferencePoint> points;   // in the alone run's row order
  std::optional<InterferencePoint> worst;  // furthest from 1, decided differences first
  std::string line() const;  // "GPU 2: 3 of 40 points slower together, worst 1.12x [1.10, 1.14]"
};

// Pairs the ok rows of the two runs of one GPU by point (row_identity) and judges each at the
// tolerance; points measured only once are left out.
InterferenceGpu interference_check(const std::string& gpu, const RunFile& alone,
                                   const RunFile& together, double tolerance);

struct NodeSummary {
  double tolerance = kDefaultTolerance;
  std::vector<NodeGpu> gpus;                  // in the run's order
  std::vector<InterferenceGpu> interference;  // with --concurrent only
  // Per GPU model with three or more GPUs: the sibling rule's verdict in words; with two, why it
  // cannot name a board.
  std::vector<std::string> sibling_lines() const;
};

NodeSummary node_summary(const std::vector<RunFile>& runs, double tolerance);

// The summary's tables (md: Markdown): parity per GPU; each GPU's health (NVML: ECC, retired pages,
// remapped rows, PCIe, clocks, power, clock event reasons) and NUMA placement from its run's
// `node` section (`runs`: the summary's runs, in order); the sibling rule; the interference check.
std::string format_node_summary(const NodeSummary& s, const std::vector<RunFile>& runs, bool md);
nlohmann::json node_summary_json(const NodeSummary& s);

}  // namespace cuvk
