// Issue 32, "one kernel model": what the runner asks of a planned point (catalogue.h, Plan), a
// built-in test's and a kernel pair's alike; the element types and tolerance of one layer
// (element.h); a pair's phases named per API as a built-in row's. No device needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catalogue.h"
#include "element.h"
#include "error.h"
#include "launch_geometry.h"
#include "row.h"
#include "runner.h"
#include "runner_fixture.h"

namespace {

using namespace cuvk;
using namespace cuvk::runner_test;

Plan copy_plan() {
  const TestCase* copy = find_test("copy");
  EXPECT_NE(copy, nullptr);
  return copy->plan(make_point("", "scalar", 1u << 16));
}

// A two-step pair of 4096 u32 elements: its own block size 64, its CUDA side not built.
Plan pair_plan() {
  Plan plan;
  plan.kernel = "pair:two_steps";
  auto u = std::make_shared<KernelModel>();
  u->file = "two_steps.toml";
  u->n = 4096;
  u->n_rule = "declared in two_steps.toml";
  ModelBuffer out;
  out.name = "out";
  out.element = ElementType::u32;
  out.count = 4096;
  out.output = out.poisoned = true;
  u->buffers = {out};
  u->block_sizes = {64};
  u->not_built[Api::cuda] = true;
  u->launch = [](std::uint32_t) { return ModelLaunch{4096, std::nullopt, 0, 16384}; };
  for (const char* k : {"pair:two_steps:0", "pair:two_steps:1"})
    u->steps.push_back({k, std::string("step '") + k + "'", 0, u->launch});
  plan.model = std::move(u);
  return plan;
}

TEST(Plan, ABuiltInTestAnswersFromItsKernelAndBuffers) {
  const Plan plan = copy_plan();
  const DeviceLimits lim;
  EXPECT_TRUE(plan.has_cpu_reference());
  EXPECT_FALSE(plan.is_sequence());
  EXPECT_FALSE(plan.own_size().has_value());
  EXPECT_EQ(plan.block_sizes({128, 256}), (std::vector<std::uint32_t>{128, 256}));
  EXPECT_EQ(plan.required_kernels(Api::cuda), std::vector<std::string>{plan.kernel});
  const BuiltinPlan b = find_test("copy")->builtin(make_point("", "scalar", 1u << 16));
  EXPECT_EQ(plan.device_bytes(), (b.in_words + b.out_words) * sizeof(float));
  const Geometry g = plan.geometry(256, lim);
  const Geometry want = launch_geometry(b.params.n, 256, lim.max_x, lim.max_y);
  EXPECT_EQ(g.block_size, want.block_size);
  EXPECT_EQ(g.grid_x, want.grid_x);
  EXPECT_EQ(g.grid_y, want.grid_y);
  DeviceLimits small;
  small.max_buffer = 1024;
  EXPECT_THROW(plan.check_limits("copy", 1u << 16, {256}, small), UsageError);
}

// Issue 32: a built-in test is one kernel model, as a pair is: every catalogue entry's plan
// carries its two buffers (the point's random input; a poisoned output, unguarded as measured),
// the CuvkParams block as its scalars, its threads and useful bytes, checked by the CPU reference.
TEST(Plan, EveryBuiltInTestIsOneKernelModel) {
  for (const TestCase& t : catalogue()) {
    const std::vector<Point> points = points_of(t, 4096, {{"copy_mib", {1}}}, {}, {});
    ASSERT_FALSE(points.empty()) << t.name;
    const Plan plan = t.plan(points.front());
    const BuiltinPlan b = t.builtin(points.front());  // what its plan_* says
    ASSERT_NE(plan.model, nullptr) << t.name;
    EXPECT_EQ(plan.kernel, b.kernel) << t.name;
    const KernelModel& m = *plan.model;
    EXPECT_EQ(m.check, CheckBy::cpu_reference) << t.name;
    ASSERT_EQ(m.buffers.size(), 2u) << t.name;
    const ModelBuffer& in = m.buffers[0];
    const ModelBuffer& out = m.buffers[1];
    EXPECT_TRUE(in.point_input && !in.output && !in.poisoned && !in.guarded) << t.name;
    EXPECT_TRUE(out.output && out.poisoned && !out.point_input && !out.guarded) << t.name;
    EXPECT_EQ(in.bytes(), b.in_words * sizeof(float)) << t.name;
    EXPECT_EQ(out.bytes(), b.out_words * sizeof(float)) << t.name;
    ASSERT_EQ(m.scalars.size(), sizeof(CuvkParams)) << t.name;
    CuvkParams p{};
    std::memcpy(&p, m.scalars.data(), sizeof p);
    EXPECT_EQ(std::memcmp(&p, &b.params, sizeof p), 0) << t.name;
    const ModelLaunch l = m.launch(256);
    EXPECT_EQ(l.threads, b.launch_threads ? b.launch_threads : b.params.n) << t.name;
    EXPECT_FALSE(l.grid.has_value()) << t.name;
    EXPECT_EQ(l.useful_bytes, b.traffic.useful_bytes) << t.name;
    EXPECT_EQ(m.chain_steps, b.chain_steps) << t.name;
    EXPECT_EQ(static_cast<bool>(m.reference), static_cast<bool>(b.reference)) << t.name;
    EXPECT_EQ(plan.device_bytes(),
              (b.in_words + b.out_words * (b.chain_steps ? 2 : 1)) * sizeof(float))
        << t.name;
  }
}

TEST(Plan, APairAnswersFromItsDeclaration) {
  const Plan plan = pair_plan();
  EXPECT_FALSE(plan.has_cpu_reference());
  EXPECT_TRUE(plan.is_sequence());
  ASSERT_TRUE(plan.own_size().has_value());
  EXPECT_EQ(plan.own_size()->n, 4096u);
  EXPECT_EQ(plan.own_size()->n_rule, "declared in two_steps.toml");
  EXPECT_EQ(plan.block_sizes({128, 256}), std::vector<std::uint32_t>{64});  // its own
  EXPECT_TRUE(plan.required_kernels(Api::cuda).empty());                    // not built: no lane
  EXPECT_EQ(plan.required_kernels(Api::vulkan),
            (std::vector<std::string>{"pair:two_steps:0", "pair:two_steps:1"}));
  EXPECT_GT(plan.device_bytes(), 4096u * 4);  // its buffer and guard bands
  const Geometry g = plan.geometry(64, DeviceLimits{});
  EXPECT_EQ(g.block_size, 64u);
  EXPECT_EQ(g.grid_x, 64u);
  DeviceLimits small;
  small.max_block = 32;  // its own block size 64 is past it, whatever the run's sweep
  try {
    plan.check_limits("two_steps", 4096, {16}, small);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("two_steps.toml"), std::string::npos) << e.what();
  }
}

// A row's work, label and unavailable sides come from the plan: a built-in test's sector model and
// grid-stride threads, a pair's declaration (its n, useful = moved bytes, its grid's threads).
TEST(Plan, ARowsWorkAndSidesComeFromThePlan) {
  const Plan copy = copy_plan();
  const Geometry g = copy.geometry(256, DeviceLimits{});
  ResultRow row;
  row.n = 1u << 16;
  copy.describe_row(g, row);
  EXPECT_EQ(row.n, 1u << 16);
  EXPECT_EQ(row.threads, find_test("copy")->builtin(make_point("", "scalar", 1u << 16)).params.n);
  EXPECT_EQ(row.useful_bytes, copy.traffic.useful_bytes);
  EXPECT_EQ(row.moved_bytes, copy.traffic.moved_bytes);
  EXPECT_FALSE(copy.n_in_label(false, 0));
  EXPECT_TRUE(copy.n_in_label(true, 0));   // the run has several sizes
  EXPECT_TRUE(copy.n_in_label(false, 1));  // the test its own (the chain's)
  EXPECT_TRUE(copy.side_built(Api::cuda));
  EXPECT_EQ(copy.side_note(Api::cuda), "");

  Plan pair = pair_plan();
  auto u = std::make_shared<KernelModel>(*pair.model);
  u->notes[Api::cuda] = "compiled for sm_90";
  pair.model = u;
  const Geometry pg = pair.geometry(64, DeviceLimits{});
  ResultRow prow;
  prow.n = 1u << 20;  // the run's n: a pair reports its own
  pair.describe_row(pg, prow);
  EXPECT_EQ(prow.n, 4096u);
  EXPECT_EQ(prow.threads, 4096u);
  EXPECT_EQ(prow.useful_bytes, 16384u);
  EXPECT_EQ(prow.moved_bytes, 16384u);
  EXPECT_FALSE(pair.n_in_label(true, 1));  // one size of its own
  EXPECT_TRUE(pair.n_in_label(false, 2));  // --n with several
  EXPECT_FALSE(pair.side_built(Api::cuda));
  EXPECT_TRUE(pair.side_built(Api::vulkan));
  EXPECT_EQ(pair.side_note(Api::cuda), "compiled for sm_90");

  // A pair of [[step]]s has no launch shape of its own (threads 0): its row's threads are the
  // geometry's, which its first step gives (found in review: rows said 0).
  u->launch = [](std::uint32_t) { return ModelLaunch{0, std::nullopt, 0, 16384}; };
  ResultRow srow;
  pair.describe_row(pg, srow);
  EXPECT_EQ(srow.threads, 4096u);
}

// A plan without a kernel model (a hand-made Plan, a pair's plan function that set none) is an
// error that says so, not a crash.
TEST(Plan, APlanWithoutAKernelModelIsAnErrorThatSaysSo) {
  Plan plan;
  plan.kernel = "read_x4";
  try {
    static_cast<void>(plan.has_cpu_reference());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("make_plan()"), std::string::npos) << e.what();
  }
}

TEST(Plan, TheElementTypesHaveTheDeclarationsNames) {
  EXPECT_STREQ(element_type_name(ElementType::f32), "f32");
  EXPECT_STREQ(element_type_name(ElementType::raw16), "raw16");
  EXPECT_STREQ(element_type_name(ElementType::bytes), "struct");
  EXPECT_EQ(Tolerance{}.kind, Tolerance::Kind::exact);  // bit for bit unless declared
}

// The issue: a pair's lanes named their phases "upload", "verify" where a built-in row's say
// "vulkan upload", "vulkan verify".
TEST(Plan, APairsPhasesNameTheApi) {
  FakeBackend vulkan;
  TestCase t;
  t.name = "phase_pair";
  t.description = "a pair whose phases are named";
  t.variants = {"scalar"};
  t.plan = [](const Point&) {
    Plan plan = pair_plan();
    auto u = std::make_shared<KernelModel>(*plan.model);
    u->steps.clear();
    u->contents = [](std::uint64_t) { return ModelContents{{{}}, {{}}}; };
    plan.kernel = "copy";  // one the fake backend has (it runs nothing: the row fails)
    plan.model = std::move(u);
    return plan;
  };
  register_pair_test(std::move(t));
  RunConfig cfg = config({"phase_pair"});
  cfg.dispatch_chain = 64;  // built-in kernels only: a pair's may update its buffers in place
  BackendSet set;
  set.backends[Api::vulkan] = &vulkan;
  const RunOutcome out = run_suite(cfg, set);
  unregister_pair_tests();
  ASSERT_EQ(out.rows.size(), 1u);
  const std::vector<std::string>& flags = out.rows[0].flags;
  EXPECT_EQ(std::find(flags.begin(), flags.end(), "dispatch_chain"), flags.end());
  std::vector<std::string> names;
  for (const auto& p : out.phase_s) names.push_back(p.first);
  for (const char* phase : {"upload", "correctness run", "download", "verify"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), std::string("vulkan ") + phase), names.end())
        << phase;
    EXPECT_EQ(std::find(names.begin(), names.end(), phase), names.end()) << phase;
  }
}

}  // namespace
