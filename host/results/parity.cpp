#include "parity.h"

#include <algorithm>

#include <fmt/format.h>

namespace cuvk {

std::vector<ApiPair> pair_apis(const std::vector<ResultRow>& rows) {
  std::vector<ApiPair> out;
  for (const ResultRow& r : rows) {
    // Parity is CUDA against Vulkan: another API's rows (docs/ADDING_AN_API.md) are not paired.
    if (r.api != Api::cuda && r.api != Api::vulkan) continue;
    // One pair per corresponding submission mode at a chain point (lanes.h submission_group).
    const auto same = [&r](const ResultRow& a) {
      return same_point(a, r) && submission_group(a) == submission_group(r);
    };
    if (r.api == Api::cuda) {
      bool found = false;
      for (ApiPair& p : out)
        if (same(p.point)) {
          p.point = r;  // the CUDA row's own mode shows beside the Vulkan lane's
          p.cuda = r;
          found = true;
        }
      if (!found) {
        ApiPair pair;
        pair.point = r;
        pair.cuda = r;
        out.push_back(std::move(pair));
      }
      continue;
    }
    ApiPair* slot = nullptr;  // this lane's pair, else the point's pair still waiting for Vulkan
    for (ApiPair& p : out)
      if (same(p.point) && p.vulkan && same_lane(*p.vulkan, r)) slot = &p;
    for (ApiPair& p : out)
      if (!slot && same(p.point) && !p.vulkan) slot = &p;
    if (!slot) {
      ApiPair pair;
      pair.point = r;
      for (const ApiPair& p : out)
        if (same(p.point) && p.cuda) {
          pair.cuda = p.cuda;
          pair.point = *p.cuda;
        }
      out.push_back(std::move(pair));
      slot = &out.back();
    }
    slot->vulkan = r;
    slot->vulkan_lane = Lane::of(r);
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
  const char* name = api_display_name(api);
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
    line.vulkan_lane = std::move(p.vulkan_lane);
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
      res.add(l.verdict);
      for (const auto* side : {&l.cuda, &l.vulkan}) {
        const ResultRow& r = **side;
        if (r.check == Check::verified || r.check == Check::not_recorded) continue;
        if (l.reason.empty()) {
          ++res.not_verified;
          l.reason = std::string(api_display_name(r.api)) + " " + r.kernel + ": " +
                     status_label(r.status, r.check).substr(4) + ": " + r.check_note;
        }
      }
    }
    // Hashes of two kinds (a file merged from two cuvk versions) say nothing about each other.
    if (l.cuda && l.vulkan && l.cuda->output_hash && l.vulkan->output_hash &&
        l.cuda->output_hash->kind == l.vulkan->output_hash->kind) {
      l.outputs = *l.cuda->output_hash == *l.vulkan->output_hash ? OutputCheck::identical
                                                                 : OutputCheck::mismatch;
      ++(l.outputs == OutputCheck::identical ? res.outputs_identical : res.outputs_mismatch);
    }
  }

  if (!reasons.empty()) {
    res.not_compared_reason = fmt::format("cannot compare {} of {} points: {}", res.unavailable,
                                          res.lines.size(), reasons.front());
    if (reasons.size() > 1)
      res.not_compared_reason += fmt::format(" (and {} other reasons)", reasons.size() - 1);
  } else if (res.lines.empty()) {
    res.not_compared_reason = "cannot compare: the run has no result rows";
  }
  bool differs = false;
  for (const ParityLine& l : res.lines) differs = differs || l.differs();
  res.exit_code = differs ? 1 : (res.unavailable > 0 || res.lines.empty()) ? 2 : 0;
  return res;
}

}  // namespace cuvk
