#include "trace_summary.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "params.h"

namespace cuvk {
namespace {

std::uint64_t ticks_at(const std::vector<std::uint32_t>& words, std::size_t at) {
  return std::uint64_t{words[at]} | (std::uint64_t{words[at + 1]} << 32);
}

// What is wrong with one record, or "" when it is sound.
std::string record_problem(const std::vector<std::uint32_t>& words, std::size_t b, bool sm_ids,
                           std::uint32_t sm_count) {
  const std::size_t at = b * CUVK_TRACE_WORDS;
  if (words[at + 6] != CUVK_TRACE_MARK) return "never written";
  if (words[at + 1] != b) return fmt::format("holds block index {}", words[at + 1]);
  if (ticks_at(words, at + 4) < ticks_at(words, at + 2)) return "ends before it starts";
  const std::uint32_t sm = words[at];
  if (!sm_ids && sm != CUVK_TRACE_NO_SM) return "has an SM id where the API gives none";
  if (sm_ids && sm == CUVK_TRACE_NO_SM) return "has no SM id";
  if (sm_ids && sm_count != 0 && sm >= sm_count) {
    return fmt::format("ran on SM {} of {}", sm, sm_count);
  }
  return "";
}

// The value at fraction q of sorted `v` (nearest rank below).
double at_fraction(const std::vector<double>& v, double q) {
  if (v.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(std::floor(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

// Most blocks in flight at once among `blocks` (an end and a start at the same time do not
// overlap).
double max_in_flight(const std::vector<const TraceBlock*>& blocks) {
  std::vector<std::pair<double, int>> events;
  events.reserve(2 * blocks.size());
  for (const TraceBlock* b : blocks) {
    events.emplace_back(b->start_ns, +1);
    events.emplace_back(b->end_ns, -1);
  }
  std::sort(events.begin(), events.end());  // -1 sorts before +1 at equal times
  int now = 0, most = 0;
  for (const auto& e : events) most = std::max(most, now += e.second);
  return most;
}

std::vector<ResidencyBin> residency_bins(const std::vector<TraceBlock>& blocks, double t0,
                                         double span, double sms, std::size_t bins) {
  std::vector<ResidencyBin> out(bins);
  if (bins == 0 || span <= 0.0) return out;
  const double w = span / static_cast<double>(bins);
  for (std::size_t i = 0; i < bins; ++i) {
    out[i].t0_ns = w * static_cast<double>(i);
    out[i].t1_ns = w * static_cast<double>(i + 1);
  }
  for (const TraceBlock& b : blocks) {
    const double s = b.start_ns - t0, e = b.end_ns - t0;
    const auto first = std::min(bins - 1, static_cast<std::size_t>(s / w));
    const auto last = std::min(bins - 1, static_cast<std::size_t>(e / w));
    for (std::size_t i = first; i <= last; ++i) {
      const double overlap = std::min(e, out[i].t1_ns) - std::max(s, out[i].t0_ns);
      if (overlap > 0.0) out[i].per_sm += overlap;
    }
  }
  for (ResidencyBin& bin : out) bin.per_sm /= w * sms;
  return out;
}

// Refill gaps of the blocks of one SM (TraceSummary::refill_*), appended to `gaps`.
void refill_gaps(std::vector<const TraceBlock*> list, std::vector<double>& gaps) {
  std::sort(list.begin(), list.end(),
            [](const TraceBlock* a, const TraceBlock* b) { return a->start_ns < b->start_ns; });
  std::multiset<double> running, freed;  // end times: of blocks started, of slots ended
  for (const TraceBlock* b : list) {
    while (!running.empty() && *running.begin() <= b->start_ns) {
      freed.insert(*running.begin());
      running.erase(running.begin());
    }
    if (!freed.empty()) {
      const auto latest = std::prev(freed.end());  // every freed end is <= this start
      gaps.push_back(b->start_ns - *latest);
      freed.erase(latest);
    }
    running.insert(b->end_ns);
  }
}

double smallest_step(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  double step = 0.0;
  for (std::size_t i = 1; i < times.size(); ++i) {
    const double d = times[i] - times[i - 1];
    if (d > 0.0 && (step == 0.0 || d < step)) step = d;
  }
  return step;
}

}  // namespace

TraceRecords parse_trace(const std::vector<std::uint32_t>& words, std::size_t blocks,
                         double ticks_per_ns, bool sm_ids, std::uint32_t sm_count) {
  TraceRecords r;
  if (words.size() < blocks * CUVK_TRACE_WORDS) {
    r.error = fmt::format("the trace holds {} records for {} blocks",
                          words.size() / CUVK_TRACE_WORDS, blocks);
    return r;
  }
  std::size_t bad = 0;
  std::string first_bad;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::string problem = record_problem(words, b, sm_ids, sm_count);
    if (!problem.empty()) {
      if (bad++ == 0) first_bad = fmt::format("block {} {}", b, problem);
      continue;
    }
    first = std::min(first, ticks_at(words, b * CUVK_TRACE_WORDS + 2));
    last = std::max(last, ticks_at(words, b * CUVK_TRACE_WORDS + 4));
  }
  if (bad != 0) {
    r.error = fmt::format("{} of {} trace records are wrong; first: {}", bad, blocks, first_bad);
    return r;
  }
  r.first_start_ticks = blocks ? first : 0;
  r.last_end_ticks = last;
  r.blocks.reserve(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t at = b * CUVK_TRACE_WORDS;
    TraceBlock t;
    t.sm = words[at];
    t.block = words[at + 1];
    t.start_ns = static_cast<double>(ticks_at(words, at + 2) - first) / ticks_per_ns;
    t.end_ns = static_cast<double>(ticks_at(words, at + 4) - first) / ticks_per_ns;
    r.blocks.push_back(t);
  }
  return r;
}

TraceSummary summarize_trace(const std::vector<TraceBlock>& blocks, std::size_t bins) {
  TraceSummary s;
  s.blocks = blocks.size();
  if (blocks.empty()) return s;
  std::vector<double> starts, ends, durations;
  std::map<std::uint32_t, std::vector<const TraceBlock*>> by_sm;
  std::vector<const TraceBlock*> all;
  double busy = 0.0;
  for (const TraceBlock& b : blocks) {
    starts.push_back(b.start_ns);
    ends.push_back(b.end_ns);
    durations.push_back(b.end_ns - b.start_ns);
    busy += b.end_ns - b.start_ns;
    by_sm[b.sm].push_back(&b);
    all.push_back(&b);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::sort(durations.begin(), durations.end());
  const double t0 = starts.front(), t_end = ends.back();
  s.span_ns = t_end - t0;
  s.sm_known = by_sm.count(kNoSm) == 0;
  s.sms_seen = s.sm_known ? by_sm.size() : 0;

  // The steady part: between the 10th and the 90th percentile start.
  const std::size_t n = starts.size();
  const auto i10 = static_cast<std::size_t>(std::floor(0.1 * static_cast<double>(n - 1)));
  const auto i90 = static_cast<std::size_t>(std::floor(0.9 * static_cast<double>(n - 1)));
  s.steady_t0_ns = starts[i10] - t0;
  s.steady_t1_ns = starts[i90] - t0;
  if (starts[i90] > starts[i10]) {
    s.launch_rate_per_us = static_cast<double>(i90 - i10) / ((starts[i90] - starts[i10]) / 1e3);
  }
  s.first_wave_blocks = static_cast<double>(
      std::lower_bound(starts.begin(), starts.end(), ends.front()) - starts.begin());

  const double sms = s.sm_known ? static_cast<double>(s.sms_seen) : 1.0;
  if (s.span_ns > 0.0) {
    s.in_flight_mean = busy / s.span_ns;
    s.resident_mean = busy / (s.span_ns * sms);
  }
  s.in_flight_max = max_in_flight(all);
  if (s.sm_known) {
    for (const auto& [sm, list] : by_sm)
      s.resident_max = std::max(s.resident_max, max_in_flight(list));
  } else {
    s.resident_max = s.in_flight_max;
  }

  s.tail_last_start_ns = t_end - starts.back();
  const auto i95 = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1;
  s.tail_95_ns = t_end - ends[std::min(i95, n - 1)];
  s.block_median_ns = at_fraction(durations, 0.5);
  s.block_p95_ns = at_fraction(durations, 0.95);
  std::vector<double> times = starts;
  times.insert(times.end(), ends.begin(), ends.end());
  s.clock_step_ns = smallest_step(std::move(times));
  if (s.sm_known) {
    std::vector<double> gaps;
    for (const auto& [sm, list] : by_sm) refill_gaps(list, gaps);
    std::sort(gaps.begin(), gaps.end());
    s.refills = gaps.size();
    s.refill_median_ns = at_fraction(gaps, 0.5);
    s.refill_p95_ns = at_fraction(gaps, 0.95);
  }
  s.residency = residency_bins(blocks, t0, s.span_ns, sms, bins);
  return s;
}

}  // namespace cuvk
