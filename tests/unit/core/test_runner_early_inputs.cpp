// The first point's inputs made before the devices open (start_first_inputs).
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

TEST(EarlyInputs, TakenOnlyForThePlanAndSeedTheyWereMadeFor) {
  RunConfig cfg = config({"copy"});
  const std::shared_ptr<EarlyInputs> early = start_first_inputs(validate_config(cfg), false);
  ASSERT_NE(early, nullptr);
  const Plan copy_scalar = find_test("copy")->plan(make_point("", "scalar", cfg.n));
  EXPECT_FALSE(early->take_for(copy_scalar, cfg.seed).has_value());  // the ceiling is vec4
  const Point ceiling = make_point("", suite_kernels().ceiling_variant, cfg.n);
  const Plan first = find_test("copy")->plan(ceiling);
  EXPECT_FALSE(early->take_for(first, cfg.seed + 1).has_value());
  // The same kernel and buffers with other scalars (another parameter block), or other buffer
  // words: not the inputs they were made for.
  Plan other_scalars = first;
  auto m = std::make_shared<KernelModel>(first.kernel_model());
  m->scalars[4] ^= 1u;
  other_scalars.model = m;
  EXPECT_FALSE(early->take_for(other_scalars, cfg.seed).has_value());
  Plan other_words = first;
  auto w = std::make_shared<KernelModel>(first.kernel_model());
  w->buffers[0].count += 4;
  other_words.model = w;
  EXPECT_FALSE(early->take_for(other_words, cfg.seed).has_value());
  std::optional<std::future<Inputs>> taken = early->take_for(first, cfg.seed);
  ASSERT_TRUE(taken.has_value());
  EXPECT_FALSE(early->take_for(first, cfg.seed).has_value());  // once
  const Inputs got = taken->get();
  const Inputs want = prepare_inputs(first, cfg.seed, 0);
  EXPECT_TRUE(std::equal(got.input.begin(), got.input.end(), want.input.begin(), want.input.end()));
  EXPECT_EQ(hash_output(got.expected.data(), got.expected.size() * 4), want.expected_hash.get());
  // A configuration that does not plan starts nothing: run_suite gives the reason.
  cfg.tests = {"no_such_test"};
  EXPECT_EQ(start_first_inputs(validate_config(cfg), false), nullptr);
}

TEST(EarlyInputs, ARunWithThemMeasuresWhatARunWithoutThemDoes) {
  FakeBackend with, without;
  with.copies_input = without.copies_input = "copy_vec4";
  RunConfig cfg = config({"copy"});
  const RunOutcome plain = run(without, cfg);
  // The fake is a CPU device.
  const std::shared_ptr<EarlyInputs> first = start_first_inputs(validate_config(cfg), false);
  const RunOutcome early = run(with, cfg, {}, first);
  ASSERT_EQ(early.rows.size(), plain.rows.size());
  ASSERT_EQ(plain.rows.size(), points(cfg));
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    EXPECT_EQ(early.rows[i].status, plain.rows[i].status) << i;
    EXPECT_EQ(early.rows[i].output_hash, plain.rows[i].output_hash) << i;
  }
  EXPECT_EQ(early.rows[0].variant, "vec4");
  EXPECT_TRUE(early.rows[0].verified);
  const Plan first_plan = find_test("copy")->plan(make_point("", "vec4", cfg.n));
  EXPECT_FALSE(first->take_for(first_plan, cfg.seed)) << "the run did not take the early inputs";
}
