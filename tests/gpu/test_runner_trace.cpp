// `cuvk trace` in the runner (RunConfig::trace, host/core/runner/runner_trace.cpp) and `cuvk explain`'s
// chain experiment (RunConfig::dispatch_chain) on a real Vulkan device (lavapipe in CI) with the
// validation layer on; any message fails the test. The traced
// point is the run's own: its sweep-axis values reach the traced launch, whose output is verified
// against that point's reference, and the trace sits beside its row.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runner.h"
#include "trace_file.h"
#include "validated_vulkan.h"
#include "vulkan_backend.h"

using namespace cuvk;

namespace {

class RunnerTrace : public suite::ValidatedVulkan {
 protected:
  RunnerTrace() { options_.trace = true; }

  // A short run of read_offset at offset 7 on Vulkan, traced or not.
  RunOutcome run(bool trace) {
    RunConfig cfg;
    cfg.tests = {"read_offset"};
    cfg.apis = {Api::cuda, Api::vulkan};  // CUDA without a backend: its row says why
    cfg.vk_bindings = {Binding::descriptor, Binding::bda};
    cfg.n = 4096;
    cfg.axis_values["offset"] = {7};
    cfg.block_sizes = {64};
    cfg.reps = 3;
    cfg.warmup = 1;
    cfg.max_time_s = 0.02;
    cfg.settle_ms = 1.0;
    cfg.host_cost_samples = 0;
    cfg.trace = trace;
    BackendSet set;
    set.backends[Api::vulkan] = backend_.get();
    set.reasons[Api::cuda] = "not selected";
    return run_suite(cfg, set);
  }
};

TEST_F(RunnerTrace, TheTracedLaunchRunsAtThePointsSweepValue) {
  const RunOutcome out = run(true);
  ASSERT_EQ(out.rows.size(), 3u);  // CUDA (not selected), Vulkan descriptor and bda
  ASSERT_EQ(out.traces.size(), 2u);
  for (std::size_t i = 0; i < out.traces.size(); ++i) {
    const TraceLane& lane = out.traces[i];
    SCOPED_TRACE(binding_name(lane.binding));
    EXPECT_EQ(lane.binding, i == 0 ? Binding::descriptor : Binding::bda);
    EXPECT_EQ(lane.unavailable, "");
    EXPECT_EQ(lane.params.offset, 7u);  // the run's point, not offset 0
    EXPECT_TRUE(lane.verified);         // against offset 7's reference
    EXPECT_EQ(lane.checked, 4096u);
    EXPECT_EQ(lane.trace_error, "");
    EXPECT_EQ(lane.geometry.block_size, 64u);
    EXPECT_EQ(lane.blocks.size(), std::size_t{lane.geometry.grid_x} * lane.geometry.grid_y);
    EXPECT_GE(lane.traced_ms.samples, 3u);  // timed as the row: at least one batch of --reps
    EXPECT_GT(lane.recorded_ms, 0.0);
  }
  RunDocument doc;
  doc.outcome = out;
  const TraceDocument trace = trace_document(doc);
  EXPECT_EQ(trace.point, "offset=7");
  EXPECT_EQ(trace.axes.get("offset"), 7u);
  ASSERT_EQ(trace.lanes.size(), 3u);
  EXPECT_EQ(trace.lanes[0].unavailable, "not selected");  // the CUDA row's reason
  EXPECT_EQ(trace.lanes[2].binding, Binding::bda);
  EXPECT_TRUE(lane_ok(trace.lanes[1]) && lane_ok(trace.lanes[2]));
}

TEST_F(RunnerTrace, AnUntracedRunRecordsNoTrace) {
  const RunOutcome out = run(false);
  EXPECT_EQ(out.rows.size(), 3u);
  EXPECT_TRUE(out.traces.empty());
}

// RunConfig::dispatch_chain: the point's kernel 32 times in one recorded command buffer, a barrier
// between dispatches (the validation layer's synchronization checks would name a missing one),
// verified; its time is per dispatch: within 4x of one dispatch's (not 32x, nor 1/32).
class DispatchChain : public suite::ValidatedVulkan {
 protected:
  RunOutcome run(std::uint32_t chain) {
    RunConfig cfg;
    cfg.tests = {"copy"};
    cfg.variants = {"scalar"};
    cfg.apis = {Api::vulkan};
    cfg.vk_bindings = {Binding::descriptor};
    cfg.n = 1u << 16;
    cfg.block_sizes = {256};
    cfg.reps = 5;
    cfg.warmup = 1;
    cfg.max_time_s = 0.05;
    cfg.settle_ms = 1.0;
    cfg.host_cost_samples = 0;
    cfg.dispatch_chain = chain;
    BackendSet set;
    set.backends[Api::vulkan] = backend_.get();
    return run_suite(cfg, set);
  }
};

TEST_F(DispatchChain, AChainOfTheKernelIsVerifiedAndTimedPerDispatch) {
  const RunOutcome single = run(0), chained = run(32);
  ASSERT_EQ(single.rows.size(), 1u);
  ASSERT_EQ(chained.rows.size(), 1u);
  const ResultRow& r = chained.rows[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.checked, std::uint64_t{1} << 16);
  EXPECT_NE(std::find(r.flags.begin(), r.flags.end(), "dispatch_chain"), r.flags.end());
  EXPECT_EQ(std::find(single.rows[0].flags.begin(), single.rows[0].flags.end(), "dispatch_chain"),
            single.rows[0].flags.end());
  const double ratio = r.time_ms.median / single.rows[0].time_ms.median;
  EXPECT_GT(ratio, 0.25) << "a chain of 32 timed as if it ran once";
  EXPECT_LT(ratio, 4.0) << "the chain's span not divided by its dispatches";
}

}  // namespace
