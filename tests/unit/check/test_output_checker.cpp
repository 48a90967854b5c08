// Issue 45, "output checking in one room": the two output checkers through the interface the runner
// asks (host/core/runner/check/output_checker.h), without a device: the kernel model chooses the checker;
// the CPU reference begins a point with its expected output and checks every element before any
// timing counts; the point's lanes are compared with each other, and the point's end concludes
// what each row was compared with.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catalogue.h"
#include "host_data.h"
#include "output_check.h"
#include "output_checker.h"
#include "runner_fixture.h"

namespace {

using namespace cuvk;
using namespace cuvk::runner_detail;
using cuvk::runner_test::FakeBackend;

constexpr std::uint32_t kBlock = 64;

Plan copy_plan() {
  return find_test("copy")->plan(make_point("", "scalar", 4096));
}

// A pair's model: one u32 output of `count` elements between guard bands, checked by its lanes.
std::shared_ptr<KernelModel> pair_model(std::uint64_t count) {
  auto m = std::make_shared<KernelModel>();
  m->file = "pair.toml";
  m->check = CheckBy::lanes;
  ModelBuffer out;
  out.name = "out";
  out.element = ElementType::u32;
  out.count = count;
  out.output = out.poisoned = true;
  m->buffers = {out};
  return m;
}

// One API's state over a fake backend, and its lane.
struct FakeLane {
  explicit FakeLane(Api api, bool gpu = false) {
    fake.set_api(api);
    if (gpu) fake.set_gpu();
    state.api = api;
    state.backend = &fake;
  }
  Lane lane() { return {&state, native_binding(state.api)}; }
  FakeBackend fake;
  ApiState state{};
};

// The lane's check, with a measurement that records that it ran and leaves a time in the row.
struct Checked {
  bool passed = false;
  int measured = 0;
  ResultRow row;
};
Checked check(const OutputChecker& checker, Lane lane, const KernelModel& m, const LaneBuffers& lb,
              const Inputs& in) {
  RunOutcome out;
  Checked c;
  c.row.block_size = kBlock;
  c.row.api = lane.state->api;
  c.row.binding = lane.binding;
  const CheckedLane checked{lane, m, lb, in, out, [&c](ResultRow& r) {
                              ++c.measured;
                              r.time_ms.median = 1.0;
                              r.status = Status::ok;
                            }};
  c.passed = checker.check_lane(checked, c.row);
  return c;
}

// Lane buffers holding `values` in the pair's one guarded output, as downloaded whole.
LaneBuffers downloaded(const KernelModel& m, const std::vector<std::uint32_t>& values) {
  LaneBuffers lb;
  lb.got.push_back(guarded_image(m.buffers[0], {}, 0));
  std::memcpy(lb.got[0].data() + kGuardBytes, values.data(), values.size() * sizeof(values[0]));
  return lb;
}

TEST(OutputChecker, TheKernelModelChoosesTheChecker) {
  const Plan copy = copy_plan();
  EXPECT_EQ(&output_checker(copy.kernel_model()), &cpu_reference_checker());
  EXPECT_TRUE(output_checker(copy.kernel_model()).knows_output_first());
  const auto pair = pair_model(16);
  EXPECT_EQ(&output_checker(*pair), &lanes_checker());
  EXPECT_FALSE(output_checker(*pair).knows_output_first());
}

TEST(OutputChecker, TheCpuReferenceBeginsAPointWithItsExpectedOutputAndItsHash) {
  const Plan copy = copy_plan();
  const Inputs in = cpu_reference_checker().begin_point(copy, 12345, nullptr);
  ASSERT_EQ(in.input.size(), 4096u);
  ASSERT_EQ(in.expected.size(), 4096u);
  EXPECT_EQ(in.download.size(), 4096u);
  for (std::size_t i = 0; i < in.input.size(); ++i) {
    EXPECT_NE(in.input[i], 0.0f) << i;  // fresh non-zero inputs
    EXPECT_EQ(std::memcmp(&in.input[i], &in.expected[i], sizeof(float)), 0) << i;  // copy
  }
  EXPECT_EQ(in.expected_hash.get(),
            hash_output(in.expected.data(), in.expected.size() * sizeof(float)));
  // The same seed gives the same inputs; another seed others.
  const Inputs again = cpu_reference_checker().begin_point(copy, 12345, nullptr);
  const Inputs other = cpu_reference_checker().begin_point(copy, 54321, nullptr);
  EXPECT_EQ(std::memcmp(in.input.data(), again.input.data(), 4096 * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(in.input.data(), other.input.data(), 4096 * sizeof(float)), 0);
}

TEST(OutputChecker, TheCpuReferenceChecksEveryElementAndTimesOnlyAMatchingLane) {
  const Plan copy = copy_plan();
  const KernelModel& m = copy.kernel_model();
  for (bool gpu : {false, true}) {  // a CPU device checks first; a GPU measures beside the check
    SCOPED_TRACE(gpu ? "gpu" : "cpu");
    FakeLane f(Api::vulkan, gpu);
    const Inputs in = cpu_reference_checker().begin_point(copy, 7, nullptr);
    std::memcpy(in.download.data(), in.expected.data(), in.expected.size() * sizeof(float));
    const Checked good = check(cpu_reference_checker(), f.lane(), m, LaneBuffers{}, in);
    EXPECT_TRUE(good.passed);
    EXPECT_EQ(good.measured, 1);
    EXPECT_EQ(good.row.check, cuvk::Check::verified);
    EXPECT_EQ(good.row.checked, 4096u);
    EXPECT_EQ(good.row.checked_against, std::vector<std::string>{"cpu reference"});
    EXPECT_EQ(good.row.output_hash, in.expected_hash.get());
    EXPECT_EQ(good.row.time_ms.median, 1.0);

    std::uint32_t word;
    std::memcpy(&word, &in.download[7], 4);
    word ^= 1u;  // element 7's lowest bit
    std::memcpy(&in.download[7], &word, 4);
    const Checked bad = check(cpu_reference_checker(), f.lane(), m, LaneBuffers{}, in);
    EXPECT_FALSE(bad.passed);
    EXPECT_EQ(bad.row.status, Status::failed);
    EXPECT_EQ(bad.row.reason, "1 of 4096 elements wrong, first at index 7");
    EXPECT_EQ(bad.measured, gpu ? 1 : 0);    // a GPU measured beside the check ...
    EXPECT_EQ(bad.row.time_ms.median, 0.0);  // ... and its timings were dropped
    EXPECT_NE(bad.row.output_hash, in.expected_hash.get());
  }
}

TEST(OutputChecker, ThePointsLanesAreComparedAndTheEndConcludesWhatEachWasComparedWith) {
  const auto m = pair_model(64);
  Plan plan;
  plan.kernel = "pair:p";
  plan.model = m;
  const OutputChecker& checker = lanes_checker();
  const Inputs in = checker.begin_point(plan, 1, nullptr);
  ASSERT_NE(in.reference, nullptr);
  std::vector<std::uint32_t> values(64);
  for (std::uint32_t i = 0; i < 64; ++i) values[i] = 3 * i + 1;

  FakeLane cuda(Api::cuda), vulkan(Api::vulkan);
  std::vector<ResultRow> rows;
  const Checked first = check(checker, cuda.lane(), *m, downloaded(*m, values), in);
  EXPECT_TRUE(first.passed);
  EXPECT_EQ(first.measured, 1);
  EXPECT_TRUE(first.row.checked_against.empty());  // nothing before it
  rows.push_back(first.row);
  const Checked second = check(checker, vulkan.lane(), *m, downloaded(*m, values), in);
  EXPECT_TRUE(second.passed);
  EXPECT_EQ(second.row.checked_against, std::vector<std::string>{"cuda"});
  rows.push_back(second.row);
  checker.conclude_point(*m, in, kBlock, rows);
  for (const ResultRow& r : rows) {
    EXPECT_EQ(r.check, cuvk::Check::verified) << api_name(r.api);
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.checked, 64u);
  }
  EXPECT_EQ(rows[0].checked_against, std::vector<std::string>{"vulkan descriptor"});
  EXPECT_TRUE(in.reference->by_block.empty());  // the lanes' outputs dropped with the point
}

TEST(OutputChecker, ALaneThatDiffersFromAnEarlierOneFailsUntimedNamingTheElement) {
  const auto m = pair_model(64);
  Plan plan;
  plan.kernel = "pair:p";
  plan.model = m;
  const OutputChecker& checker = lanes_checker();
  const Inputs in = checker.begin_point(plan, 1, nullptr);
  std::vector<std::uint32_t> values(64, 5);
  FakeLane cuda(Api::cuda), vulkan(Api::vulkan);
  ASSERT_TRUE(check(checker, cuda.lane(), *m, downloaded(*m, values), in).passed);
  values[9] = 6;
  const Checked differs = check(checker, vulkan.lane(), *m, downloaded(*m, values), in);
  EXPECT_FALSE(differs.passed);
  EXPECT_EQ(differs.measured, 0);
  EXPECT_EQ(differs.row.status, Status::failed);
  EXPECT_EQ(differs.row.first_bad_index, 9u);
  EXPECT_EQ(differs.row.reason.rfind("disagree: 1 of 64 elements differ from the cuda lane, "
                                     "first buffer 'out' element 9: vulkan descriptor 6, cuda 5",
                                     0),
            0u)
      << differs.row.reason;
  EXPECT_NE(differs.row.reason.find("neither is known right"), std::string::npos);

  // A write past the buffer's end lands in its guard band: the row fails naming the offset.
  LaneBuffers past = downloaded(*m, std::vector<std::uint32_t>(64, 5));
  past.got[0][kGuardBytes + 64 * 4] ^= 0xFF;
  const Checked guard = check(checker, vulkan.lane(), *m, past, in);
  EXPECT_FALSE(guard.passed);
  EXPECT_NE(guard.row.reason.find("out-of-bounds write at byte offset 256"), std::string::npos)
      << guard.row.reason;
}

// Issue 47: two APIs whose outputs differ where no expected file decides. The Vulkan lane failed
// as it was checked; at the point's end the CUDA row, measured before, fails too with the same
// kind of reason (it said "ok, unchecked: nothing to compare with: no other API ran"). With a
// third lane that agrees with CUDA, CUDA stays verified and only the odd lane fails.
TEST(OutputChecker, LanesThatDisagreeBothFailUnlessAnotherApiAgrees) {
  const auto m = pair_model(64);
  Plan plan;
  plan.kernel = "pair:p";
  plan.model = m;
  const OutputChecker& checker = lanes_checker();
  std::vector<std::uint32_t> right(64, 5), odd(64, 5);
  odd[9] = 6;
  FakeLane cuda(Api::cuda), vulkan(Api::vulkan), host(Api::host);
  {
    const Inputs in = checker.begin_point(plan, 1, nullptr);
    std::vector<ResultRow> rows{check(checker, cuda.lane(), *m, downloaded(*m, right), in).row,
                                check(checker, vulkan.lane(), *m, downloaded(*m, odd), in).row};
    ASSERT_EQ(rows[0].status, Status::ok);
    checker.conclude_point(*m, in, kBlock, rows);
    for (const ResultRow& r : rows) {
      EXPECT_EQ(r.status, Status::failed) << api_name(r.api);
      EXPECT_FALSE(r.verified);
      EXPECT_EQ(r.reason.rfind("disagree: 1 of 64 elements differ from the ", 0), 0u) << r.reason;
      EXPECT_EQ(r.reason.find("no other API ran"), std::string::npos);
    }
    EXPECT_NE(rows[0].reason.find("from the vulkan descriptor lane"), std::string::npos);
    EXPECT_EQ(rows[0].time_ms.median, 0.0);  // its numbers dropped as a failed row's are
  }
  {
    const Inputs in = checker.begin_point(plan, 1, nullptr);
    std::vector<ResultRow> rows{check(checker, cuda.lane(), *m, downloaded(*m, right), in).row,
                                check(checker, host.lane(), *m, downloaded(*m, right), in).row,
                                check(checker, vulkan.lane(), *m, downloaded(*m, odd), in).row};
    checker.conclude_point(*m, in, kBlock, rows);
    EXPECT_EQ(rows[0].status, Status::ok);
    EXPECT_EQ(rows[0].check, cuvk::Check::verified);
    EXPECT_EQ(rows[1].check, cuvk::Check::verified);
    EXPECT_EQ(rows[2].status, Status::failed);
  }
}

}  // namespace
