#include "verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "error.h"

namespace cuvk {

MedianCi median_ci(const Summary& s) {
  return {s.median, s.ci_low, s.ci_high};
}

// The ratio's interval combines the two medians' intervals in log space, in quadrature:
//   low  = r * exp(-sqrt(ln(n/n_low)^2  + ln(d_high/d)^2))
//   high = r * exp(+sqrt(ln(n_high/n)^2 + ln(d/d_low)^2))
// Why: the two medians are measured independently, so the variance of ln(n/d) = ln n - ln d is the
// sum of their variances; reading each (possibly asymmetric, order-statistic) 95% half-width in log
// space as 1.96 sigma gives a 95% interval for the log ratio. Log space keeps the ratio positive
// and treats "2x slower" and "2x faster" alike. The conservative box [n_low/d_high, n_high/d_low]
// adds the half-widths instead: with two equal widths it is sqrt(2) times wider (z = 2.77, ~99.4%
// coverage rather than 95%), so it would call UNCERTAIN on points the data already decide. With
// one exact side the two agree. A zero lower bound gives an unbounded side (UNCERTAIN).
RatioCi ratio_ci(const MedianCi& n, const MedianCi& d) {
  auto log_gap = [](double big, double small) {  // ln(big/small) >= 0; +inf when small <= 0
    if (!(small > 0.0)) return HUGE_VAL;
    return std::max(0.0, std::log(big / small));
  };
  RatioCi r;
  r.ratio = n.median / d.median;
  r.low = r.ratio * std::exp(-std::hypot(log_gap(n.median, n.low), log_gap(d.high, d.median)));
  r.high = r.ratio * std::exp(std::hypot(log_gap(n.high, n.median), log_gap(d.median, d.low)));
  return r;
}

Verdict judge(const RatioCi& r, double tolerance) {
  const double lo = 1.0 - tolerance, hi = 1.0 + tolerance;
  if (r.low >= lo && r.high <= hi) return Verdict::same;
  if (r.high < lo) return Verdict::faster;
  if (r.low > hi) return Verdict::slower;
  return Verdict::uncertain;
}

const char* parity_verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "VULKAN FASTER";
    case Verdict::slower:
      return "VULKAN SLOWER";
    case Verdict::uncertain:
      return "UNCERTAIN";
  }
  return "?";
}

const char* baseline_verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::uncertain:
      return "UNCERTAIN";
  }
  return "?";
}

double parse_tolerance(const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  const double pct = s.empty() ? -1.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(pct > 0.0 && pct < 100.0))
    throw UsageError("--tolerance '" + text +
                     "': expected a percentage above 0 and below 100 (e.g. 3)");
  return pct / 100.0;
}

std::vector<ApiPair> pair_apis(const std::vector<ResultRow>& rows) {
  std::vector<ApiPair> out;
  for (const ResultRow& r : rows) {
    if (r.api == Api::cuda) {
      bool found = false;
      for (ApiPair& p : out)
        if (same_point(p.point, r)) {
          p.cuda = r;
          found = true;
        }
      if (!found) out.push_back({r, native_binding(Api::vulkan), r, std::nullopt});
      continue;
    }
    ApiPair* slot = nullptr;  // this mode's pair, else the point's pair still waiting for Vulkan
    for (ApiPair& p : out)
      if (same_point(p.point, r) && p.vulkan && p.vulkan_binding == r.binding) slot = &p;
    for (ApiPair& p : out)
      if (!slot && same_point(p.point, r) && !p.vulkan) slot = &p;
    if (!slot) {
      std::optional<ResultRow> cuda;
      for (const ApiPair& p : out)
        if (same_point(p.point, r) && p.cuda) cuda = p.cuda;
      out.push_back({r, r.binding, cuda, std::nullopt});
      slot = &out.back();
    }
    slot->vulkan = r;
    slot->vulkan_binding = r.binding;
  }
  return out;
}

const char* output_check_name(OutputCheck c) {
  switch (c) {
    case OutputCheck::identical:
      return "identical";
    case OutputCheck::mismatch:
      return "MISMATCH";
    case OutputCheck::unknown:
      return "not hashed";
  }
  return "?";
}

bool ParityLine::differs() const {
  return state == PairState::failed ||
         (state == PairState::compared &&
          (verdict != Verdict::same || outputs == OutputCheck::mismatch));
}

namespace {

std::string why_not(const std::optional<ResultRow>& r, Api api) {
  const char* name = api == Api::cuda ? "CUDA" : "Vulkan";
  if (!r) return std::string("no ") + name + " row";
  return std::string(name) + " " + status_name(r->status) + ": " + r->reason;
}

}  // namespace

ParityResult compare_apis(const std::vector<ResultRow>& rows, double tolerance) {
  ParityResult res;
  res.tolerance = tolerance;
  for (ApiPair& p : pair_apis(rows)) {
    ParityLine line;
    line.point = std::move(p.point);
    line.vulkan_binding = p.vulkan_binding;
    line.cuda = std::move(p.cuda);
    line.vulkan = std::move(p.vulkan);
    res.lines.push_back(std::move(line));
  }

  std::vector<std::string> reasons;
  for (ParityLine& l : res.lines) {
    const bool cuda_ok = l.cuda && l.cuda->status == Status::ok;
    const bool vk_ok = l.vulkan && l.vulkan->status == Status::ok;
    const bool cuda_failed = l.cuda && l.cuda->status == Status::failed;
    const bool vk_failed = l.vulkan && l.vulkan->status == Status::failed;
    if (cuda_failed || vk_failed) {
      l.state = PairState::failed;
      l.reason = cuda_failed ? why_not(l.cuda, Api::cuda) : why_not(l.vulkan, Api::vulkan);
      ++res.failed;
    } else if (!cuda_ok || !vk_ok) {
      l.state = PairState::unavailable;
      l.reason = !cuda_ok ? why_not(l.cuda, Api::cuda) : why_not(l.vulkan, Api::vulkan);
      if (std::find(reasons.begin(), reasons.end(), l.reason) == reasons.end())
        reasons.push_back(l.reason);
      ++res.unavailable;
    } else {
      l.state = PairState::compared;
      l.ratio = ratio_ci(median_ci(l.vulkan->time_ms), median_ci(l.cuda->time_ms));
      l.verdict = judge(l.ratio, tolerance);
      switch (l.verdict) {
        case Verdict::same:
          ++res.same;
          break;
        case Verdict::faster:
          ++res.faster;
          break;
        case Verdict::slower:
          ++res.slower;
          break;
        case Verdict::uncertain:
          ++res.uncertain;
          break;
      }
    }
    if (l.cuda && l.vulkan && l.cuda->output_hash && l.vulkan->output_hash) {
      l.outputs = *l.cuda->output_hash == *l.vulkan->output_hash ? OutputCheck::identical
                                                                 : OutputCheck::mismatch;
      ++(l.outputs == OutputCheck::identical ? res.outputs_identical : res.outputs_mismatch);
    }
  }

  if (!reasons.empty()) {
    res.not_compared_reason = "cannot compare " + std::to_string(res.unavailable) + " of " +
                              std::to_string(res.lines.size()) + " points: " + reasons.front();
    if (reasons.size() > 1)
      res.not_compared_reason += " (and " + std::to_string(reasons.size() - 1) + " other reasons)";
  } else if (res.lines.empty()) {
    res.not_compared_reason = "cannot compare: the run has no result rows";
  }
  bool differs = false;
  for (const ParityLine& l : res.lines) differs = differs || l.differs();
  res.exit_code = differs ? 1 : (res.unavailable > 0 || res.lines.empty()) ? 2 : 0;
  return res;
}

std::vector<std::string> check_same_gpu(const RunFile& now, const RunFile& base) {
  std::vector<std::string> notes;
  bool common = false;
  for (Api api : {Api::cuda, Api::vulkan}) {
    const auto& a = api == Api::cuda ? now.cuda : now.vulkan;
    const auto& b = api == Api::cuda ? base.cuda : base.vulkan;
    if (!a || !b) continue;
    common = true;
    if (a->name != b->name)
      throw UsageError("baseline " + base.name + " was measured on another GPU: " + b->name + " (" +
                       api_name(api) + "), this run on " + a->name +
                       "; a baseline must come from the same GPU model");
    if (a->uuid != b->uuid)
      notes.push_back(std::string(api_name(api)) + ": same model (" + a->name +
                      ") but another board: UUID " + a->uuid + " now, " + b->uuid +
                      " in the baseline");
  }
  if (!common && now.gpu_name() != base.gpu_name())
    throw UsageError("baseline " + base.name + " was measured on another GPU: " + base.gpu_name() +
                     ", this run on " + now.gpu_name() +
                     "; a baseline must come from the same GPU model");
  return notes;
}

BaselineResult compare_baseline(const RunFile& now, const RunFile& base, double tolerance) {
  BaselineResult res;
  res.baseline_name = base.name;
  res.now_name = now.name;
  res.tolerance = tolerance;
  res.notes = check_same_gpu(now, base);
  auto match = [](const ResultRow& a, const ResultRow& b) {
    return a.api == b.api && a.binding == b.binding && same_point(a, b);
  };
  for (const ResultRow& r : now.rows) {
    const ResultRow* b = nullptr;
    for (const ResultRow& x : base.rows)
      if (match(r, x)) b = &x;
    if (b && r.status == Status::unavailable && b->status == Status::unavailable) {
      ++res.unavailable_both;
      continue;
    }
    BaselineLine line;
    line.now = r;
    if (b) line.base = *b;
    if (!b) {
      line.reason = "not in the baseline";
    } else if (r.status != Status::ok) {
      line.reason = std::string("now ") + status_name(r.status) + ": " + r.reason;
    } else if (b->status != Status::ok) {
      line.reason = std::string("baseline ") + status_name(b->status) + ": " + b->reason;
    } else {
      line.compared = true;
      line.ratio = ratio_ci(median_ci(r.time_ms), median_ci(b->time_ms));
      line.verdict = judge(line.ratio, tolerance);
    }
    if (!line.compared) {
      ++res.not_compared;
    } else {
      switch (line.verdict) {
        case Verdict::same:
          ++res.same;
          break;
        case Verdict::faster:
          ++res.faster;
          break;
        case Verdict::slower:
          ++res.slower;
          break;
        case Verdict::uncertain:
          ++res.uncertain;
          break;
      }
    }
    res.lines.push_back(std::move(line));
  }
  for (const ResultRow& x : base.rows) {
    bool found = false;
    for (const ResultRow& r : now.rows) found = found || match(r, x);
    if (!found) res.only_in_baseline.push_back(x);
  }
  res.exit_code = res.slower > 0 ? 1 : 0;
  return res;
}

}  // namespace cuvk
