#include "explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "kernel_inspection.h"
#include "printing.h"

namespace cuvk::explain {
namespace {

std::string num(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string pct(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100.0);
  return buf;
}

// A value as the report prints it: whole numbers without decimals, large ones rounded.
std::string value(double v) {
  return num(v, std::fabs(v) >= 100 || v == std::floor(v) ? 0 : 2);
}

double half_width(const RatioCi& r) {
  return std::max(0.0, (r.high - r.low) / 2.0);
}

// The experiment's ratio lies beyond 1 by more than the point's gap, on the other side: the
// change does not close the gap, it turns it round (a small copy, faster on Vulkan alone, is
// 2.3x slower in a chain).
bool reverses(const RatioCi& point, const RatioCi& experiment) {
  const double gap = point.ratio - 1.0, other = experiment.ratio - 1.0;
  return gap * other < 0.0 && std::fabs(other) > std::fabs(gap);
}

Finding experiment_finding(const Case& c, const Experiment& e) {
  Finding f;
  f.title = e.cause;
  f.distance = std::fabs(c.ratio.ratio - e.ratio.ratio);
  f.share = experiment_share(c.ratio, e.ratio);
  f.kind = !f.share                     ? Kind::ruled_out
           : is_remedy(e.cause)         ? Kind::remedy
           : *f.share < kMinRankedShare ? Kind::evidence  // printed, ranked by its distance
                                        : Kind::share;
  f.measurement = e.change + ": Vulkan/CUDA " + num(c.ratio.ratio) + " -> " + num(e.ratio.ratio) +
                  " " + interval_text(e.ratio);
  if (!f.share)
    f.measurement += reverses(c.ratio, e.ratio) ? " (the gap turns round: the other API is the "
                                                  "slower by more)"
                                                : " (the gap stays)";
  return f;
}

Finding evidence_finding(const Case& c, const Evidence& e) {
  Finding f;
  f.title = e.cause;
  const double rel = e.cuda != 0.0 ? e.vulkan / e.cuda - 1.0 : 0.0;
  f.distance = std::fabs(rel);
  const double gap = c.ratio.ratio - 1.0;
  const bool against = (e.more_is_slower ? rel : -rel) * gap < 0.0;
  const std::string unit = e.unit.empty() ? "" : " " + e.unit;
  f.measurement = e.name + ": CUDA " + value(e.cuda) + unit + ", Vulkan " + value(e.vulkan) + unit +
                  " (" + pct(rel) + ")";
  if (!e.detail.empty()) f.measurement += "; " + e.detail;
  if (f.distance < kEqualWithin) {
    f.kind = Kind::ruled_out;
    f.measurement += " (equal within 1%)";
    return f;
  }
  if (against) {
    f.kind = Kind::ruled_out;
    f.measurement += " (points the other way: it cannot account for the gap)";
    return f;
  }
  if (e.model_share && c.ratio.ratio != 1.0) {
    f.kind = Kind::share;
    f.share = std::clamp(*e.model_share, 0.0, 1.0);
    f.measurement += "; " + e.model;
  }
  return f;
}

// Causes' shares by share, then evidence by distance, then remedies by share, then ruled-out
// experiments by distance.
bool ranks_before(const Finding& a, const Finding& b) {
  auto order = [](Kind k) { return static_cast<int>(k); };  // the enum's order is the ranking's
  if (order(a.kind) != order(b.kind)) return order(a.kind) < order(b.kind);
  if ((a.kind == Kind::share || a.kind == Kind::remedy) && *a.share != *b.share)
    return *a.share > *b.share;
  return a.distance > b.distance;
}

// One finding per cause, in order of first appearance: the largest share and distance, the
// strongest kind, the measurements joined.
std::vector<Finding> by_cause(std::vector<Finding> items) {
  std::vector<Finding> out;
  for (Finding& f : items) {
    auto same =
        std::find_if(out.begin(), out.end(), [&](const Finding& o) { return o.title == f.title; });
    if (same == out.end()) {
      out.push_back(std::move(f));
      continue;
    }
    if (f.share) same->share = std::max(same->share.value_or(0.0), *f.share);
    if (f.kind == Kind::share || f.kind == Kind::remedy ||
        (f.kind == Kind::evidence && same->kind == Kind::ruled_out))
      same->kind = f.kind;
    same->distance = std::max(same->distance, f.distance);
    same->measurement += "; " + f.measurement;
  }
  return out;
}

double per_dispatch_rate(const SampledCounters& s) {  // CTAs launched per us of the busy span
  return s.busy_ms > 0 ? s.ctas_launched_per_dispatch * s.dispatches / (s.busy_ms * 1000.0) : 0.0;
}

}  // namespace

std::string number(double v) {
  return num(v);
}

std::optional<Evidence> machine_code_evidence(const inspect::KernelInspection& k,
                                              std::string& why) {
  const inspect::CudaSide& c = k.cuda;
  if (k.vulkan.empty()) {
    why = "no Vulkan side";
    return std::nullopt;
  }
  const inspect::VulkanSide& v = k.vulkan.front();
  if (c.sass.text.empty() || v.sass.text.empty()) {
    const std::string &cu = c.sass.unavailable, &vu = v.sass.unavailable;
    why = c.sass.text.empty() ? "CUDA SASS: " + (cu.empty() ? c.unavailable : cu)
                              : "Vulkan SASS: " + (vu.empty() ? std::string("none") : vu);
    return std::nullopt;
  }
  Evidence e{"machine code",
             "SASS instructions",
             "",
             double(c.sass_summary.ops.instructions),
             double(v.sass_summary.ops.instructions),
             "",
             std::nullopt,
             ""};
  std::string diffs;
  for (const std::string& d : v.sass_differences.value_or(std::vector<std::string>{}))
    diffs += (diffs.empty() ? "" : "; ") + d;
  e.detail = diffs.empty() ? "no difference in the compared forms" : diffs;
  return e;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::share:
      return "share";
    case Kind::evidence:
      return "evidence";
    case Kind::remedy:
      return "remedy";
    case Kind::ruled_out:
      return "ruled out";
    case Kind::residual:
      return "not explained";
  }
  return "?";
}

bool is_remedy(const std::string& cause) {
  return cause == "block size";
}

std::optional<double> experiment_share(const RatioCi& point, const RatioCi& experiment) {
  const double gap = point.ratio - 1.0;
  if (gap == 0.0 || !std::isfinite(gap) || !std::isfinite(experiment.ratio)) return std::nullopt;
  const double moved = (point.ratio - experiment.ratio) / gap;  // > 0: towards 1
  const double noise = (half_width(point) + half_width(experiment)) / std::fabs(gap);
  if (moved <= noise || reverses(point, experiment)) return std::nullopt;
  return std::clamp(moved, 0.0, 1.0);
}

std::vector<Finding> rank(const Case& c) {
  std::vector<Finding> out;
  for (const Experiment& e : c.experiments) out.push_back(experiment_finding(c, e));
  for (const Evidence& e : c.evidence) out.push_back(evidence_finding(c, e));
  out = by_cause(std::move(out));
  std::stable_sort(out.begin(), out.end(), ranks_before);
  double best = 0.0;
  for (const Finding& f : out)
    if (f.share && f.kind != Kind::remedy) best = std::max(best, *f.share);
  const double gap = c.ratio.ratio - 1.0;
  const double residual = (1.0 - best) * gap;  // in ratio units, signed like the gap
  if (std::fabs(residual) > c.tolerance) {
    Finding r;
    r.kind = Kind::residual;
    r.title = "not explained";
    r.share = 1.0 - best;
    r.distance = std::fabs(residual);
    r.measurement = "a ratio of " + num(1.0 + residual) + " is left after the largest share (" +
                    num((1.0 - best) * 100.0, 0) + "% of the gap " + pct(gap) + ")";
    out.push_back(r);
  }
  return out;
}

std::vector<Evidence> counter_evidence(const ResultRow& cuda, const ResultRow& vulkan,
                                       std::string& why) {
  std::vector<Evidence> out;
  const auto &cc = cuda.counters, &vc = vulkan.counters;
  if (!cc || !cc->sampled || !vc || !vc->sampled) {
    const std::string* reason = !cc            ? nullptr
                                : !cc->sampled ? &cc->sampled_unavailable
                                : !vc          ? nullptr
                                               : &vc->sampled_unavailable;
    why = !cc || !vc ? "the run has no counters for this point (run with --counters)"
                     : "counters not sampled: " + (reason && !reason->empty() ? *reason : "?");
    return out;
  }
  const SampledCounters &c = *cc->sampled, &v = *vc->sampled;
  out.push_back({"launch rate", "CTAs launched per us", "", per_dispatch_rate(c),
                 per_dispatch_rate(v),
                 "CTAs resident per SM " + num(c.ctas_per_sm, 1) + " / " + num(v.ctas_per_sm, 1) +
                     ", warps per SM " + num(c.warps_per_sm, 1) + " / " + num(v.warps_per_sm, 1),
                 std::nullopt, "", false});
  out.push_back(
      {"instructions", "instructions per dispatch", "", c.inst_per_dispatch, v.inst_per_dispatch,
       "SM throughput " + num(c.sm_throughput_pct, 1) + "% / " + num(v.sm_throughput_pct, 1) + "%",
       std::nullopt, ""});
  const double bc = c.dram_read_bytes_per_dispatch + c.dram_write_bytes_per_dispatch;
  const double bv = v.dram_read_bytes_per_dispatch + v.dram_write_bytes_per_dispatch;
  Evidence dram{"DRAM traffic",
                "DRAM bytes per dispatch",
                "B",
                bc,
                bv,
                "DRAM " + num(c.dram_pct, 0) + "% / " + num(v.dram_pct, 0) + "% of peak",
                std::nullopt,
                ""};
  const double gap = vulkan.time_ms.median / cuda.time_ms.median - 1.0;
  if (c.dram_pct >= kDramBoundPct && bc > 0 && gap != 0.0) {
    dram.model_share = (bv / bc - 1.0) / gap;
    dram.model = "DRAM-bound (CUDA at " + num(c.dram_pct, 0) +
                 "% of peak): the extra bytes at CUDA's rate account for " +
                 num(std::clamp(*dram.model_share, 0.0, 1.0) * 100.0, 0) + "% of the gap";
  }
  out.push_back(dram);
  return out;
}

Evidence trace_evidence(const TraceSummary& cuda, const TraceSummary& vulkan) {
  std::string detail =
      "blocks resident per SM " + num(cuda.resident_mean, 1) + " / " + num(vulkan.resident_mean, 1);
  if (cuda.refills > 0 && vulkan.refills > 0)
    detail += ", refill median " + num(cuda.refill_median_ns, 0) + " / " +
              num(vulkan.refill_median_ns, 0) + " ns";
  detail += fmt::format(", tail {} / {} us (from a dispatch trace of {} blocks)",
                        num(cuda.tail_95_ns / 1000.0, 1), num(vulkan.tail_95_ns / 1000.0, 1),
                        cuda.blocks);
  return {"launch rate",
          "blocks started per us (trace)",
          "",
          cuda.launch_rate_per_us,
          vulkan.launch_rate_per_us,
          detail,
          std::nullopt,
          "",
          false};
}

const ParityLine* other_binding(const std::vector<ParityLine>& lines, const ParityLine& line) {
  if (!line.vulkan) return nullptr;
  const Binding want = line.vulkan->binding == Binding::bda ? Binding::descriptor : Binding::bda;
  for (const ParityLine& l : lines)
    if (l.state == PairState::compared && l.vulkan && l.vulkan->binding == want &&
        same_point(l.point, line.point))
      return &l;
  return nullptr;
}

std::string case_label(const ParityLine& line) {
  const ResultRow& p = line.point;
  std::string s = p.test;
  for (const std::string& part : {p.layout, variant_label(p), point_label(p)})
    if (!part.empty()) s += " " + part;
  if (!p.n_in_label) s += " n=" + size_label(p.n);
  s += fmt::format(" block {}", p.block_size);
  if (line.vulkan) s += " (" + std::string(binding_name(line.vulkan->binding)) + ")";
  return s;
}

}  // namespace cuvk::explain
