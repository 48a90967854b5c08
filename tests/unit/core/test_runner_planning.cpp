// The run's plan: a pair side that was not built, backends keyed by API, an interrupt between
// points, layout and variant filters, the phases before the first row, the head's n.
// (Split from tests/test_runner.cpp by concern; the fake backend:
// tests/unit/core/runner_fixture.h.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include "catalogue.h"
#include "error.h"
#include "host_data.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "nvml.h"
#include "runner.h"
#include "runner_fixture.h"

using namespace cuvk;
using namespace cuvk::runner_test;

// Issue 20, found on the H100: a pair whose CUDA side was not compiled (no NVRTC) on a machine
// with a CUDA GPU. The CUDA backend is open but holds no kernel of the pair: its rows say why
// (the note), the run goes on, and nothing is launched for that side.
TEST(Runner, APairSideThatWasNotBuiltIsUnavailableWhereItsDeviceIsOpen) {
  FakeBackend cuda;
  cuda.set_api(Api::cuda);
  TestCase t;
  t.name = "unbuilt_pair";
  t.description = "a pair without its CUDA side";
  t.variants = {"scalar"};
  t.plan = [](const Point&) {
    Plan plan;
    plan.kernel = "pair:unbuilt_pair";  // not in cuda.kernels()
    auto u = std::make_shared<KernelModel>();
    u->file = "unbuilt.toml";
    u->n = 1024;
    ModelBuffer out;
    out.name = "out";
    out.element = ElementType::u32;
    out.count = 1024;
    out.output = out.poisoned = true;
    u->buffers = {out};
    u->notes[Api::cuda] = "not compiled (NVRTC unavailable: none here)";
    u->not_built[Api::cuda] = true;
    u->launch = [](std::uint32_t) { return ModelLaunch{1024, std::nullopt, 0, 4096}; };
    u->contents = [](std::uint64_t) { return ModelContents{{{}}, {{}}}; };
    plan.model = std::move(u);
    return plan;
  };
  register_pair_test(std::move(t));
  RunConfig cfg = config({"unbuilt_pair"});
  cfg.apis = {Api::cuda};
  cfg.block_sizes = {256};
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  const RunOutcome out = run_suite(cfg, set);  // before the fix: "cuda backend lacks kernels"
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::unavailable);
  EXPECT_EQ(out.rows[0].reason,
            "not compiled (NVRTC unavailable: none here), not run: no cuda kernel to launch");
  for (const auto& seen : cuda.launches) EXPECT_NE(seen.kernel, "pair:unbuilt_pair");
}

// Issue 19: BackendSet keeps one backend per API, looked up by the lane's API.
TEST(Runner, EachApiRunsOnTheBackendKeyedByIt) {
  FakeBackend cuda, vulkan;
  cuda.set_api(Api::cuda);
  cuda.copies_input = vulkan.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};  // the kernel the fakes run ("copy"); vec4 and engine would fail
  cfg.apis = {Api::vulkan, Api::cuda};
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  set.backends[Api::vulkan] = &vulkan;
  const RunOutcome out = run_suite(cfg, set);
  EXPECT_EQ(cuda.batch_sizes.empty(), false);
  EXPECT_EQ(vulkan.batch_sizes.empty(), false);
  std::size_t cuda_rows = 0, vulkan_rows = 0;
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::ok) << api_name(r.api) << ": " << r.reason;
    ++(r.api == Api::cuda ? cuda_rows : vulkan_rows);
  }
  EXPECT_EQ(cuda_rows, points(cfg));
  EXPECT_EQ(vulkan_rows, points(cfg));
}

TEST(Runner, AnInterruptStopsAtTheNextMeasurementAndKeepsWhatCompleted) {
  FakeBackend fake;
  fake.copies_input = "stride";
  install_interrupt_handlers();
  raise_interrupt_for_testing(2);
  const RunOutcome out = run(fake, config({"stride"}));
  EXPECT_TRUE(out.interrupted);
  EXPECT_TRUE(out.rows.empty());
  install_interrupt_handlers();  // clears the flag for the other tests
}

TEST(Runner, LayoutAndVariantFiltersSelectPoints) {
  FakeBackend fake;
  RunConfig cfg = config({"read_x", "copy"});
  cfg.layouts = {"soa"};
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kernel, "read_x_soa");
  EXPECT_EQ(out.rows[1].kernel, "copy");
}

// What the first row waited for: the phases as they stood when it went out (a prefix of the run's
// phases, none larger than at the end), and the first point's inputs and registration beside the
// settling.
TEST(RunnerFirstRow, PhasesBeforeTheFirstRowAreRecorded) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.sleep_ms_per_rep = 0.2;
  RunConfig cfg = config({"copy", "read_x"});
  cfg.variants = {"scalar"};  // copy scalar first: the one kernel the fake runs
  cfg.settle_ms = 5.0;
  const RunOutcome out = run(fake, cfg);
  ASSERT_GT(out.rows.size(), 2u);
  ASSERT_FALSE(out.first_row_phase_s.empty());
  EXPECT_LT(out.first_row_phase_s.size(), out.phase_s.size() + 1);
  double first = 0.0, all = 0.0;
  for (std::size_t i = 0; i < out.first_row_phase_s.size(); ++i) {
    EXPECT_EQ(out.first_row_phase_s[i].first, out.phase_s[i].first);
    EXPECT_LE(out.first_row_phase_s[i].second, out.phase_s[i].second);
    first += out.first_row_phase_s[i].second;
  }
  for (const auto& p : out.phase_s) all += p.second;
  EXPECT_LT(first, all);  // later rows took time too
  const auto has = [](const std::vector<std::pair<std::string, double>>& v, const char* name) {
    return std::any_of(v.begin(), v.end(), [name](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(has(out.first_row_phase_s, "settle"));
  EXPECT_TRUE(has(out.first_row_phase_s, "vulkan measure"));
  EXPECT_TRUE(has(out.first_row_background_s, "first inputs (beside settling)"));
  EXPECT_TRUE(has(out.first_row_background_s, "vulkan register input (beside settling)"));
  EXPECT_TRUE(has(out.first_row_background_s, "vulkan register download (beside settling)"));
}

// Issue 36: the head's n (settings.n) is the n the rows ran at. A run of one pair: the pair's n
// and rule (it said "n = 1048576 (default for CPU devices)" while saxpy ran at 16M); with built-in
// tests too, the built-ins' n, the pairs' sizes said beside it.
TEST(Runner, TheHeadsNIsThePairsWhereOnlyPairsRun) {
  KernelModel saxpy, transpose;
  saxpy.n = 1u << 20;
  saxpy.n_rule = "saxpy.toml's n = 16777216 scaled down for CPU devices to 8 MiB of buffers";
  transpose.n = 1024;
  transpose.n_rule = "declared in transpose.toml";
  const auto one =
      cuvk::run_n(1u << 20, "default for CPU devices", false, {{"saxpy", {saxpy.n, saxpy.n_rule}}});
  EXPECT_EQ(one.first, 1u << 20);
  EXPECT_EQ(one.second, saxpy.n_rule);
  saxpy.n = 16u << 20;
  saxpy.n_rule = "declared in saxpy.toml";
  const auto alone =
      cuvk::run_n(1u << 20, "default for CPU devices", false, {{"saxpy", {saxpy.n, saxpy.n_rule}}});
  EXPECT_EQ(alone, std::make_pair(16u << 20, std::string("declared in saxpy.toml")));
  const auto mixed = cuvk::run_n(
      1u << 20, "default for CPU devices", true,
      {{"saxpy", {saxpy.n, saxpy.n_rule}}, {"transpose", {transpose.n, transpose.n_rule}}});
  EXPECT_EQ(mixed.first, 1u << 20);
  EXPECT_EQ(mixed.second,
            "default for CPU devices; pairs: saxpy at 16777216 (declared in saxpy.toml), transpose "
            "at 1024 (declared in transpose.toml)");
  EXPECT_EQ(cuvk::run_n(64, "--n", true, {}), std::make_pair(64u, std::string("--n")));
}
