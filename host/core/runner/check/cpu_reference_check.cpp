// The check by the CPU reference (CheckBy::cpu_reference: a built-in test's; output_checker.h):
// the point's fresh random input and the CPU's own computation of the expected output (poisoned
// where the kernel must not write) are made before its lanes run, and every element each lane
// wrote is compared with it bit for bit; the output hash of a matching lane is the expected
// output's.
#include <algorithm>
#include <chrono>
#include <future>
#include <string>

#include <fmt/format.h>

#include "host_data.h"
#include "output_checker.h"

namespace cuvk::runner_detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_from(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The verdict on the downloaded output (verify() has filled the row's checked, mismatches,
// verified): its hash, and on a mismatch the row failed. Returns whether every element matched.
bool conclude_check(const CheckedLane& l, ResultRow& row) {
  const Span<float> got = l.in.download;
  PhaseTimer t(l.out.phase_s, api_phase(l.lane.state->api, "hash"));
  // Bit-identical to the expected output, so the same hash; only a wrong output is hashed anew.
  row.output_hash =
      row.verified ? l.in.expected_hash.get() : hash_output(got.data(), got.size() * sizeof(float));
  if (row.verified) {  // every element equal to the CPU's own computation of the test
    row.check = Check::verified;
    row.checked_against = {"cpu reference"};
    return true;
  }
  row.status = Status::failed;
  row.reason = fmt::format("{} of {} elements wrong, first at index {}", row.mismatches,
                           row.checked, *row.first_bad_index);
  return false;
}

class CpuReferenceChecker final : public OutputChecker {
 public:
  // The point's random input, the expected output and its hash (on a thread of its own, beside
  // the upload), and the array each lane downloads into.
  Inputs begin_point(const Plan& plan, std::uint64_t point_seed,
                     std::shared_ptr<HostSlot> slot) const override {
    Inputs in;
    auto t0 = Clock::now();
    const KernelModel& m = plan.kernel_model();
    const std::uint64_t in_words = input_words(m), out_words = output_words(m);
    if (!slot || slot->input.capacity() < in_words || slot->expected.capacity() < out_words)
      slot = std::make_shared<HostSlot>(in_words, out_words);
    const Span<float> input = slot->input.touch(in_words);
    random_input_into(input, point_seed);
    in.made_s.emplace_back("random inputs", seconds_from(t0));
    t0 = Clock::now();
    const Span<float> expected = slot->expected.touch(out_words);
    std::fill(expected.begin(), expected.end(), poison_float());
    m.reference(input, expected);
    in.made_s.emplace_back("references", seconds_from(t0));
    t0 = Clock::now();
    in.download = slot->download.touch(out_words);
    in.made_s.emplace_back("download buffers", seconds_from(t0));
    in.input = input;
    in.expected = expected;
    in.slot = std::move(slot);
    const float* data = expected.data();  // the slot outlives the hash: Inputs holds both
    const std::size_t bytes = expected.size() * sizeof(float);
    in.expected_hash =
        std::async(std::launch::async, [data, bytes] { return hash_output(data, bytes); }).share();
    return in;
  }

  // On a CPU device checked first, then measured; on a GPU checked on the host's cores while the
  // GPU measures.
  bool check_lane(const CheckedLane& l, ResultRow& row) const override {
    const Api api = l.lane.state->api;
    if (l.lane.state->backend->info().is_cpu) {  // the device is the host's cores
      {
        PhaseTimer t(l.out.phase_s, api_phase(api, "verify"));
        verify(l.in.download, l.in.expected, row);
      }
      const bool verified = conclude_check(l, row);
      if (verified) l.measure(row);
      return verified;
    }
    // Every element is checked on the host's cores while the GPU measures (host work as the next
    // point's inputs are): the timings count only once all have matched; a mismatch fails the row
    // and drops them. The next lane downloads only after this check.
    ResultRow timed = row;
    std::future<double> checking = std::async(std::launch::async, [&l, &row] {
      const auto t0 = Clock::now();
      verify(l.in.download, l.in.expected, row);
      return seconds_from(t0);
    });
    l.measure(timed);
    {
      PhaseTimer t(l.out.phase_s, api_phase(api, "verify"));  // what measuring left to wait
      add_phase(l.out.background_s, "verify (beside measuring)", checking.get());
    }
    const bool verified = conclude_check(l, row);
    if (verified) {
      timed.verified = row.verified;
      timed.check = row.check;
      timed.checked_against = row.checked_against;
      timed.mismatches = row.mismatches;
      timed.checked = row.checked;
      timed.first_bad_index = row.first_bad_index;
      timed.output_hash = row.output_hash;
      row = std::move(timed);
    }
    return verified;
  }

  // Each lane concluded its own row.
  void conclude_point(const KernelModel&, const Inputs&, std::uint32_t,
                      std::vector<ResultRow>&) const override {}

  bool knows_output_first() const override { return true; }
};

}  // namespace

const OutputChecker& cpu_reference_checker() {
  static const CpuReferenceChecker checker;
  return checker;
}

const OutputChecker& output_checker(const KernelModel& model) {
  return model.check == CheckBy::cpu_reference ? cpu_reference_checker() : lanes_checker();
}

}  // namespace cuvk::runner_detail
