// `cuvk explain` (issue 38, docs/EXPLAIN.md): for a point whose Vulkan/CUDA verdict is not SAME,
// the measurements that may account for the gap, ranked. Pure computation over measurements the
// command gathered (experiments: the point again with one thing changed; evidence: counters and
// machine code of both APIs); explain_printer.h formats it.
//
// The ranking rules, as docs/EXPLAIN.md states them:
// - A finding gets a share of the gap only from a measurement that yields one: an experiment's
//   ratio (share = (r - r_e) / (r - 1), r the point's Vulkan/CUDA ratio, r_e the experiment's),
//   or a documented model (DRAM bytes for DRAM-bound rows). A share is clamped to [0, 1]; an
//   experiment whose ratio does not move towards 1 by more than its own interval is "ruled out".
// - Findings with a share rank by share (an experiment's share under kMinRankedShare ranks as
//   evidence); evidence without one ranks after them, by how far the
//   two APIs' values are from equal (|Vulkan / CUDA - 1|) in the direction of the gap; then the
//   remedies (a change of the workload's shape that closes the gap, the block size: measured, with
//   its share, but not a cause), by share; evidence that points the other way (Vulkan slower with
//   fewer instructions) and experiments that do not close the gap are "ruled out" and come last.
// - The residual, the part of the gap (r - 1) the largest cause's share leaves, is printed as
//   "not explained" where it is larger than the tolerance (a remedy's share does not reduce it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity.h"
#include "row.h"
#include "trace_summary.h"
#include "verdicts.h"

namespace cuvk::inspect {
struct KernelInspection;  // kernel_inspection.h (cuvk_inspect, a private dependency)
}  // namespace cuvk::inspect

namespace cuvk::explain {

// A finding is a cause: what its experiments and evidence (each naming the cause) measured about
// it together. Causes: "launch rate" (the grid-stride variant, the counters' launch rate),
// "binding" (the other binding), "block size", "instructions", "DRAM traffic", "machine code".
//
// The point run again with one thing changed, on both APIs: its Vulkan/CUDA ratio.
struct Experiment {
  std::string cause;   // "binding", "launch rate", "block size"
  std::string change;  // what changed: "Vulkan binds by bda instead of descriptor"
  RatioCi ratio;
};

// An experiment that closes less of the gap than this (measurably, but barely) ranks as evidence,
// by how far it moved the ratio, its share still printed: a 3% share is not the first cause.
constexpr double kMinRankedShare = 0.10;

// Evidence whose two values are this close (|Vulkan / CUDA - 1|) says nothing either way: ruled
// out.
constexpr double kEqualWithin = 0.01;

// One quantity measured on both APIs for the point (a counter, a machine-code count).
struct Evidence {
  std::string cause;  // "launch rate", "instructions", "DRAM traffic", "machine code"
  std::string name;   // the quantity: "CTAs launched per us", "instructions per dispatch"
  std::string unit;   // "CTAs/us", "" for counts
  double cuda = 0.0, vulkan = 0.0;
  std::string detail;  // further measurements printed with it ("CTAs resident per SM 7.9 / 7.3")
  // A documented model's share of the gap (DRAM bytes on a DRAM-bound row), where one applies.
  std::optional<double> model_share;
  std::string model;  // the model's one-line statement, with model_share
  // Whether a larger Vulkan value would make Vulkan slower (instructions, bytes) or faster (the
  // launch rate): evidence that points the other way cannot account for the gap.
  bool more_is_slower = true;
};

// Everything gathered for one point.
struct Case {
  std::string label;  // "copy scalar n=64M block 256 (descriptor)"
  RatioCi ratio;      // Vulkan / CUDA
  Verdict verdict = Verdict::uncertain;
  double tolerance = kDefaultTolerance;
  std::vector<Experiment> experiments;
  std::vector<Evidence> evidence;
  // Diagnostics that could not run here, each "part: why" ("counters: CUPTI unavailable: ...").
  std::vector<std::string> not_run;
};

enum class Kind { share, evidence, remedy, ruled_out, residual };
const char* kind_name(Kind k);  // "share", "evidence", "remedy", "ruled out", "not explained"

// Whether an experiment's cause is a remedy (a change of the workload's shape: "block size")
// rather than a cause of the gap; remedies rank after the causes' evidence.
bool is_remedy(const std::string& cause);

struct Finding {
  Kind kind = Kind::evidence;   // share (remedy for a remedy's experiment) if any of its
                                // measurements yields one, else evidence if it has evidence,
                                // else ruled out
  std::string title;            // the cause: "launch rate", "binding", "not explained"
  std::string measurement;      // the numbers behind it, "; " between its measurements
  std::optional<double> share;  // of the gap, 0..1: the largest of its measurements' shares
  double distance = 0.0;        // the largest: evidence |vulkan / cuda - 1|, experiment |r - r_e|
};

// The share of the gap (r - 1) an experiment closes: (r - r_e) / (r - 1) clamped to [0, 1];
// nullopt where r is 1, the experiment does not move the ratio towards 1 by more than the two
// intervals' half-widths together, or it turns the gap round (r_e beyond 1 on the other side by
// more than r is on its side: ruled out, "the gap turns round").
std::optional<double> experiment_share(const RatioCi& point, const RatioCi& experiment);

// The ranked findings of one case, one per cause (the rules above). The residual comes last
// where printed.
std::vector<Finding> rank(const Case& c);

// ---- evidence from what a run measured ----

// From both rows' sampled counters (where both have them): the launch rate (CTAs launched per us
// of the busy span; detail: CTAs and warps resident per SM), instructions per dispatch, DRAM
// bytes per dispatch (a model share where CUDA's DRAM throughput is at least kDramBoundPct of
// peak: the extra bytes at CUDA's rate); SM throughput is printed with the instructions (a
// utilisation, not a cause, it is not ranked on its own). Empty, with `why` set, where either row
// has no sampled counters.
constexpr double kDramBoundPct = 70.0;
std::vector<Evidence> counter_evidence(const ResultRow& cuda, const ResultRow& vulkan,
                                       std::string& why);

// From both APIs' dispatch traces of the point (cuvk trace's summary, each API's traced twin of
// the kernel): blocks started per us over the steady part (the launch rate; a larger Vulkan value
// makes Vulkan faster), detail: blocks resident per SM (time-weighted mean), the refill latency
// (how soon an SM got a new block after one ended) and the tail.
Evidence trace_evidence(const TraceSummary& cuda, const TraceSummary& vulkan);

// The line of `lines` that is `line`'s point on the other Vulkan binding (descriptor <-> bda),
// compared; null where the run has none.
const ParityLine* other_binding(const std::vector<ParityLine>& lines, const ParityLine& line);

// Both machine codes of a built-in kernel (cuvk inspect's SASS comparison): instructions (CUDA's
// SASS against the Vulkan driver's), detail: the differences sass_differences() lists and the
// registers. nullopt, with `why`, where either SASS is missing.
std::optional<Evidence> machine_code_evidence(const inspect::KernelInspection& k, std::string& why);

// Numbers as the report prints them: 3 decimals.
std::string number(double v);

// The point's label for the report: test, layout, variant, point, n, block, Vulkan binding.
std::string case_label(const ParityLine& line);

// What `cuvk explain` prints: the run it diagnosed and every point that was not SAME.
struct Report {
  std::string run;  // describe_run's line
  double tolerance = kDefaultTolerance;
  std::size_t same = 0;  // compared points that were SAME (nothing to explain)
  std::vector<Case> cases;
};

}  // namespace cuvk::explain
