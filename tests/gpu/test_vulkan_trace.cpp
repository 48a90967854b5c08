// Traced twins on a real Vulkan device (lavapipe in CI) with the validation layer on; any message
// fails the test: every catalogue kernel, both binding modes, traced output verified against the
// CPU reference and one sound record per workgroup.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalogue.h"
#include "error.h"
#include "host_data.h"
#include "params.h"
#include "runner.h"
#include "trace_summary.h"
#include "validated_vulkan.h"
#include "vulkan_backend.h"

using namespace cuvk;

namespace {

// What a Vulkan backend's traced launches record: every Vulkan backend offers Traces.
TraceSupport support_of(const Backend& b) {
  const Traces* traces = b.find<Traces>();
  if (traces == nullptr) throw Error(b.lacks<Traces>());
  return traces->trace_support();
}

class VulkanTraced : public suite::ValidatedVulkan {
 protected:
  VulkanTraced() { options_.trace = true; }

  // One traced launch of `point`'s kernel: output verified, records checked and returned.
  TraceRecords trace(const TestCase& t, const Point& point, Binding binding) {
    const BuiltinPlan plan = t.builtin(point);
    const DeviceInfo& d = backend_->info();
    const Geometry g = launch_geometry(plan_launch_threads(make_plan(plan, point)), 128,
                                       d.max_grid_x, d.max_grid_y);
    const std::size_t blocks = std::size_t{g.grid_x} * g.grid_y;
    const auto in = backend_->allocate(plan.in_words * 4);
    const auto out = backend_->allocate(plan.out_words * 4);
    const auto records = backend_->allocate(blocks * CUVK_TRACE_WORDS * 4);
    const std::vector<float> input = random_input(plan.in_words, 7);
    std::vector<float> expected(plan.out_words, poison_float()), got(plan.out_words);
    if (plan.chain_steps > 0) chain_reference(input, expected, 1);  // one traced step of a chain
    else plan.reference(input, expected);
    backend_->upload(*in, input.data(), input.size() * 4);
    backend_->fill(*out, kPoisonWord);
    backend_->fill(*records, 0);
    Launch launch = builtin_launch(plan.kernel, g, plan.params, *in, *out, binding);
    launch.trace = records.get();
    EXPECT_EQ(backend_->run(launch, RunOptions{1, nullptr}).size(), 1u);
    backend_->download(*out, got.data(), got.size() * 4);
    ResultRow row;
    verify(got, expected, row);
    EXPECT_TRUE(row.verified) << plan.kernel << ": " << row.mismatches << " wrong";
    std::vector<std::uint32_t> words(blocks * CUVK_TRACE_WORDS);
    backend_->download(*records, words.data(), words.size() * 4);
    const TraceSupport s = support_of(*backend_);
    return parse_trace(words, blocks, s.ticks_per_ns, s.sm_ids, 0);
  }
};

}  // namespace

TEST_F(VulkanTraced, SupportSaysWhatTheRecordsHold) {
  const TraceSupport s = support_of(*backend_);
  if (!s.unavailable.empty()) GTEST_SKIP() << s.unavailable;
  EXPECT_NE(s.clock.find("shader_clock"), std::string::npos);
  if (!s.sm_ids) {
    EXPECT_NE(s.sm_ids_unavailable.find("VK_NV_shader_sm_builtins"), std::string::npos);
  }
}

TEST_F(VulkanTraced, EveryKernelTracesVerifiedInBothBindingModes) {
  if (!support_of(*backend_).unavailable.empty()) GTEST_SKIP() << support_of(*backend_).unavailable;
  for (const TestCase& t : catalogue()) {
    for (const Point& p : points_of(t, 3000, {}, {}, {})) {
      if (t.plan(p).kernel == kCopyEngine) continue;  // the driver's copy: nothing to trace
      for (Binding b : {Binding::descriptor, Binding::bda}) {
        if (!backend_->binding_unsupported(b).empty()) continue;
        const TraceRecords r = trace(t, p, b);
        EXPECT_EQ(r.error, "") << t.plan(p).kernel << " " << binding_name(b);
        const TraceSummary s = summarize_trace(r.blocks);
        EXPECT_EQ(s.blocks, r.blocks.size());
        EXPECT_EQ(s.sm_known, support_of(*backend_).sm_ids);
        EXPECT_GE(s.span_ns, 0.0);
      }
    }
  }
}

TEST_F(VulkanTraced, ABackendMadeWithoutTraceSaysWhy) {
  BackendOptions plain;
  const std::unique_ptr<Backend> b = make_vulkan_backend(0, plain);
  EXPECT_NE(support_of(*b).unavailable.find("without BackendOptions::trace"), std::string::npos);
}
