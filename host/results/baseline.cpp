#include "baseline.h"

#include "error.h"

namespace cuvk {

std::vector<std::string> check_same_gpu(const RunFile& now, const RunFile& base) {
  std::vector<std::string> notes;
  bool common = false;
  for (Api api : kApis) {
    const std::optional<RunDevice>& a = now.device(api);
    const std::optional<RunDevice>& b = base.device(api);
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
    return same_lane(a, b) && same_point(a, b);
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
    if (line.compared)
      res.add(line.verdict);
    else
      ++res.not_compared;
    res.lines.push_back(std::move(line));
  }
  for (const ResultRow& x : base.rows) {
    bool found = false;
    for (const ResultRow& r : now.rows) found = found || match(r, x);
    if (!found) res.only_in_baseline.push_back(x);
  }
  // The rules a CI job needs: a slowdown, or a point that cannot be told from one, fails (1); an
  // improvement alone passes (0, counted as FASTER); comparing nothing is never success (2).
  const std::size_t compared = res.same + res.faster + res.slower + res.uncertain;
  res.exit_code = res.slower > 0 || res.uncertain > 0 ? 1 : compared == 0 ? 2 : 0;
  return res;
}

}  // namespace cuvk
