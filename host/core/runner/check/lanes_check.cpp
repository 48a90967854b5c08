// The check by a point's lanes (CheckBy::lanes: a kernel pair's; output_checker.h): every buffer
// between guard bands, whose damage fails the row; each output on its own (unwritten elements,
// NaNs); then compared with the expected files and with every lane that passed before at this
// block size (CUDA's and Vulkan's outputs element by element, bit for bit unless a tolerance is
// declared); and at the point's end each comparison named on both rows and each row's check
// concluded (verified, consistent or unchecked).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "host_data.h"
#include "output_check.h"
#include "output_checker.h"

namespace cuvk::runner_detail {
namespace {

// "" when both guard bands of `b` are intact, else where the first write outside it landed.
std::string guard_damage(const ModelBuffer& b, const std::vector<std::uint8_t>& image) {
  const std::uint64_t end = kGuardBytes + b.bytes();
  for (std::uint64_t i = 0; i < image.size(); ++i) {
    if (i == kGuardBytes) i = end;
    if (i >= image.size()) break;
    if (image[i] == guard_byte(i)) continue;
    std::ostringstream o;
    o << "buffer '" << b.name << "': out-of-bounds write at byte offset ";
    if (i < kGuardBytes) {
      o << "-" << (kGuardBytes - i) << " (before its first element)";
    } else {
      o << (i - kGuardBytes) << " (element " << (i - kGuardBytes) / b.element_bytes << "; it has "
        << b.count << " elements)";
    }
    return o.str();
  }
  return {};
}

std::string tolerance_text(const ModelBuffer& b, double worst) {
  std::ostringstream o;
  o.precision(3);
  if (b.tolerance.kind == Tolerance::Kind::ulp)
    o << worst << "ulp";
  else
    o << worst;
  return "max_diff_" + b.name + "=" + o.str();
}

// "cuda", "vulkan descriptor", "vulkan bda" (and a sequence's submission mode): a lane as a row's
// checked_against names it, from the lane itself or from its row.
std::string lane_label(Api api, Binding binding, const std::optional<Submission>& submission) {
  const std::string mode = submission ? std::string(" ") + submission_name(*submission) : "";
  return (api == Api::cuda ? std::string("cuda")
                           : std::string(api_name(api)) + " " + binding_name(binding)) +
         mode;
}

std::string lane_name(const Lane& lane) {
  return lane_label(lane.state->api, lane.binding, lane.submission);
}

std::string lane_name_of(const ResultRow& r) {
  return lane_label(r.api, r.binding, r.submission);
}

std::string count_text(std::uint64_t k, std::uint64_t n) {
  return fmt::format("{} of {}", k, n);
}

std::string hex_word(std::uint32_t w) {
  std::ostringstream o;
  o << "0x" << std::hex << w;
  return o.str();
}

// One output buffer on its own: unwritten elements (a failure unless the buffer is partial) and
// NaNs beyond the declared fraction. "" when it passes, else the row's reason.
std::string scan_verdict(const ModelBuffer& b, const std::uint8_t* mine,
                         std::optional<std::uint32_t> poison, ResultRow& row) {
  const OutputScan s = scan_output(b, mine, poison);
  if (s.unwritten > 0 && !b.partial) {
    row.first_bad_index = s.first_unwritten;
    row.mismatches += s.unwritten;
    return fmt::format(
        "buffer '{}': {} elements never written (still this lane's poison {}), first at index {} "
        "(declare the buffer partial = true where that is intended)",
        b.name, count_text(s.unwritten, b.count), hex_word(*poison), *s.first_unwritten);
  }
  if (b.partial && poison) row.flags.push_back(fmt::format("unwritten_{}={}", b.name, s.unwritten));
  const auto allowed =
      static_cast<std::uint64_t>(std::floor(b.nan_fraction * static_cast<double>(b.count)));
  if (s.nans > allowed) {
    row.first_bad_index = s.first_nan;
    row.mismatches += s.nans;
    return fmt::format(
        "buffer '{}': {} elements are NaN, first at index {} (allowed: {}; a buffer may declare "
        "nan_fraction)",
        b.name, count_text(s.nans, b.count), *s.first_nan, allowed);
  }
  if (s.nans > 0) row.flags.push_back(fmt::format("nan_{}={}", b.name, s.nans));
  return {};
}

// Two lanes' outputs that differ where no expected file decides (issue 47): both rows fail with
// this reason, naming the other lane and both values, unless a row agreed with another API.
std::string disagreement(const std::string& other_lane, const Comparison& c) {
  return fmt::format(
      "disagree: {} elements differ from the {} lane, first {}; neither is known right (no "
      "expected file decides: declare one, or run a lane that agrees with one side)",
      count_text(c.mismatches, c.checked), other_lane, c.message);
}

// After a lane's correctness run: guards, each output on its own, then the expected files and
// every lane of the point that passed before this one (`got`: every buffer downloaded whole).
// Records what the row was compared with (settle_pair_checks concludes). Returns false (row
// failed, with the reason) on any difference.
bool verify_outputs(const Lane& lane, const KernelModel& u,
                    const std::vector<std::vector<std::uint8_t>>& got, const Inputs& in,
                    ResultRow& row) {
  for (std::size_t i = 0; i < u.buffers.size(); ++i)
    if (const std::string why = guard_damage(u.buffers[i], got[i]); !why.empty()) {
      row.status = Status::failed;
      row.reason = why;
      return false;
    }
  const std::string me = lane_name(lane);
  const std::uint32_t my_poison = lane_poison_word(lane.state->api, lane.binding);
  std::vector<LaneOutputs>& earlier = in.reference->by_block[row.block_size];
  std::vector<std::uint8_t> outputs;  // every output's interior, in order: the row's hash
  std::vector<std::string> compared_with;
  for (std::size_t i = 0; i < u.buffers.size() && row.reason.empty(); ++i) {
    const ModelBuffer& b = u.buffers[i];
    if (!b.output) continue;
    const std::uint8_t* mine = got[i].data() + kGuardBytes;
    const auto poison = b.poisoned ? std::optional<std::uint32_t>(my_poison) : std::nullopt;
    outputs.insert(outputs.end(), mine, mine + b.bytes());
    row.reason = scan_verdict(b, mine, poison, row);
    if (!row.reason.empty()) break;
    std::vector<std::pair<std::string, Comparison>> checks;
    if (b.expected && in.declared.expected[i].size() == b.bytes()) {
      checks.emplace_back("expected file", compare_output(b, {mine, poison, me},
                                                          {in.declared.expected[i].data(),
                                                           std::nullopt, "expected"}));
    }
    for (LaneOutputs& e : earlier) {
      const auto theirs = b.poisoned ? std::optional<std::uint32_t>(e.poison) : std::nullopt;
      checks.emplace_back(e.lane,
                          compare_output(b, {mine, poison, me},
                                         {e.buffers[i].data() + kGuardBytes, theirs, e.lane}));
      e.compared_by_later += checks.back().second.checked;
      // Two lanes that differ where no expected file decides: neither is known right.
      const Comparison& c = checks.back().second;
      if (c.mismatches > 0 && !b.expected && e.disputed.empty())
        e.disputed = disagreement(me, c);
    }
    for (const auto& [with, c] : checks) {
      row.checked += c.checked;
      row.mismatches += c.mismatches;
      if (c.mismatches > 0 && row.reason.empty()) {
        row.first_bad_index = c.first_bad;
        row.reason = with == "expected file" || b.expected
                         ? count_text(c.mismatches, c.checked) + " elements differ, first " +
                               c.message
                         : disagreement(with, c);
      }
      if (c.mismatches == 0 && b.tolerance.kind != Tolerance::Kind::exact)
        row.flags.push_back(tolerance_text(b, c.worst));
      if (std::find(compared_with.begin(), compared_with.end(), with) == compared_with.end())
        compared_with.push_back(with);
    }
  }
  // A hash says "bit-identical across APIs" (parity's outputs column); where a tolerance is
  // declared that is not the criterion, so no hash is recorded.
  bool exact = true;
  for (const ModelBuffer& b : u.buffers)
    exact = exact && (!b.output || b.tolerance.kind == Tolerance::Kind::exact);
  if (exact && !u.timing_only) row.output_hash = hash_output(outputs.data(), outputs.size());
  row.verified = false;
  if (!row.reason.empty()) {
    row.status = Status::failed;
    return false;
  }
  row.checked_against = compared_with;
  earlier.push_back({me, my_poison, got, 0, {}});
  return true;
}

// A row that was measured before a later lane disputed its outputs: failed, its numbers dropped
// as any failed row's are (the check comes before the measurement for every other failure).
void fail_disputed(const std::string& why, ResultRow& r) {
  r.status = Status::failed;
  r.reason = why;
  r.check = Check::not_recorded;
  r.verified = false;
  r.check_note.clear();
  r.time_ms = Summary{};
  r.gbps_useful = r.gbps_moved = 0.0;
  r.pct_of_ceiling.reset();
  r.stop_reason.clear();
  r.flags.clear();
}

bool names_api(const std::string& against, Api api) {
  return against.rfind(api_name(api), 0) == 0;
}

// After every lane of a point: each comparison named on both of its rows, then each ok row's check
// concluded (row.h's Check): verified where another API or an expected file for every output
// agreed, consistent where only the same API's other binding did, else unchecked. `lanes`: the
// outputs of the point's lanes that passed (LaneReference).
void settle_pair_checks(const KernelModel& u, const std::vector<LaneOutputs>& lanes,
                        std::vector<ResultRow>& rows) {
  // Both rows of a comparison name each other (a later lane compared itself with the earlier),
  // and count the elements compared.
  for (ResultRow& r : rows)
    for (const LaneOutputs& l : lanes)
      if (r.status == Status::ok && l.lane == lane_name_of(r)) r.checked += l.compared_by_later;
  for (ResultRow& r : rows)
    for (const ResultRow& s : rows) {
      if (&r == &s || r.status != Status::ok || s.status != Status::ok) continue;
      const auto& theirs = s.checked_against;
      const std::string mine = lane_name_of(r), their = lane_name_of(s);
      if (std::find(theirs.begin(), theirs.end(), mine) != theirs.end() &&
          std::find(r.checked_against.begin(), r.checked_against.end(), their) ==
              r.checked_against.end())
        r.checked_against.push_back(their);
    }
  std::string no_expected;  // an output without an expected file
  for (const ModelBuffer& b : u.buffers)
    if (b.output && !b.expected && no_expected.empty()) no_expected = b.name;
  for (ResultRow& r : rows) {
    if (r.status != Status::ok) continue;
    const auto& a = r.checked_against;
    const auto l = std::find_if(lanes.begin(), lanes.end(), [&r](const LaneOutputs& x) {
      return x.lane == lane_name_of(r);
    });
    const bool other_api = std::any_of(a.begin(), a.end(), [&r](const std::string& x) {
      return x != "expected file" && !names_api(x, r.api);
    });
    const bool same_api =
        std::any_of(a.begin(), a.end(), [&r](const std::string& x) { return names_api(x, r.api); });
    const bool all_expected =
        no_expected.empty() && std::find(a.begin(), a.end(), "expected file") != a.end();
    if (u.timing_only) {
      r.check = Check::timing_only;
      r.check_note = "the pair is declared timing only (timing_only = true): nothing compared";
    } else if (l != lanes.end() && !l->disputed.empty() && !other_api && !all_expected) {
      fail_disputed(l->disputed, r);  // a later lane differed and no other API agreed
      continue;
    } else if (other_api || all_expected) {
      r.check = Check::verified;
    } else {
      r.check = same_api ? Check::consistent : Check::unchecked;
      r.check_note = (same_api ? "compared only with the same API's other binding"
                               : std::string("nothing to compare with"));
      r.check_note += other_api ? "" : ": no other API ran";
      r.check_note += ", and buffer '" + no_expected + "' has no expected file";
    }
    r.verified = r.check == Check::verified;
  }
}

class LanesChecker final : public OutputChecker {
 public:
  // The buffers' declared contents and expected files, and the store the lanes' outputs are
  // compared through.
  Inputs begin_point(const Plan& plan, std::uint64_t point_seed,
                     std::shared_ptr<HostSlot>) const override {
    const auto t0 = std::chrono::steady_clock::now();
    Inputs in;
    in.declared = plan.declared_contents(point_seed);
    in.reference = std::make_shared<LaneReference>();
    in.made_s.emplace_back(
        "pair contents",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return in;
  }

  // Checked first (the expected files, the other lanes), then measured.
  bool check_lane(const CheckedLane& l, ResultRow& row) const override {
    {
      PhaseTimer t(l.out.phase_s, api_phase(l.lane.state->api, "verify"));
      if (!verify_outputs(l.lane, l.model, l.buffers.got, l.in, row)) return false;
    }
    l.measure(row);
    return true;
  }

  // The comparisons concluded on every row, then the lanes' outputs dropped: only this point
  // compares them.
  void conclude_point(const KernelModel& model, const Inputs& in, std::uint32_t block,
                      std::vector<ResultRow>& rows) const override {
    settle_pair_checks(model, in.reference->by_block[block], rows);
    in.reference->by_block.erase(block);
  }

  bool knows_output_first() const override { return false; }
};

}  // namespace

const OutputChecker& lanes_checker() {
  static const LanesChecker checker;
  return checker;
}

}  // namespace cuvk::runner_detail
