// Issue 19 (capab): backends by capability. What only some backends can do is an interface a
// caller finds at run time (Backend::find), and a backend without one says so (Backend::lacks);
// what is kept per API is looked up by the API (PerApi).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

using namespace cuvk;

namespace {

// Every backend's part, doing nothing: a backend with no optional capability.
class Plain : public Backend {
 public:
  Plain() { info_.api = Api::vulkan; }
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t) override { return nullptr; }
  void upload(DeviceBuffer&, const void*, std::size_t) override {}
  void download(const DeviceBuffer&, void*, std::size_t) override {}
  void fill(DeviceBuffer&, std::uint32_t) override {}
  std::uint64_t free_memory_bytes() const override { return 0; }
  std::vector<std::string> kernels() const override { return {}; }
  std::vector<double> run(const Launch&, const RunOptions&) override { return {}; }
  HostCostSamples host_cost(const Launch&, int) override { return {}; }
  std::vector<std::pair<std::string, double>> startup_ms() const override { return {}; }

 private:
  DeviceInfo info_;
};

// The same with dispatch traces.
class Tracing final : public Plain, public Traces {
 public:
  TraceSupport trace_support() const override {
    TraceSupport s;
    s.clock = "a test clock";
    return s;
  }

 protected:
  Capability* capability(std::type_index type) override { return offer<Traces>(this, type); }
};

}  // namespace

TEST(BackendCapabilities, ABackendWithoutOneFindsNoneAndSaysWhy) {
  Plain b;
  EXPECT_EQ(b.find<Traces>(), nullptr);
  EXPECT_EQ(b.find<ExecutableReports>(), nullptr);
  EXPECT_EQ(b.find<KernelResourceReports>(), nullptr);
  EXPECT_EQ(b.find<PipelineCache>(), nullptr);
  // The messages `cuvk inspect` and `cuvk trace` print where a backend lacks one.
  EXPECT_EQ(b.lacks<Traces>(), "vulkan backend cannot trace dispatches");
  EXPECT_EQ(b.lacks<ExecutableReports>(),
            "vulkan backend offers no pipeline executable statistics");
  EXPECT_EQ(b.lacks<KernelResourceReports>(), "vulkan backend reports no kernel resources");
  EXPECT_EQ(b.lacks<PipelineCache>(), "vulkan backend offers no pipeline cache");
}

TEST(BackendCapabilities, ABackendFindsWhatItOffersAndNothingElse) {
  Tracing b;
  Traces* traces = b.find<Traces>();
  ASSERT_NE(traces, nullptr);
  EXPECT_EQ(traces->trace_support().clock, "a test clock");
  const Backend& as_const = b;
  ASSERT_NE(as_const.find<Traces>(), nullptr);
  EXPECT_EQ(as_const.find<Traces>()->trace_support().clock, "a test clock");
  EXPECT_EQ(b.find<PipelineCache>(), nullptr);  // a Backend of its own is no capability
  EXPECT_EQ(b.find<ExecutableReports>(), nullptr);
}

TEST(PerApi, EachApiHasItsOwnSlot) {
  PerApi<std::string> reasons;
  EXPECT_EQ(reasons[Api::cuda], "");
  reasons[Api::cuda] = "no CUDA driver";
  EXPECT_EQ(reasons[Api::vulkan], "");
  reasons[Api::vulkan] = "no Vulkan loader";
  const PerApi<std::string>& r = reasons;
  EXPECT_EQ(r[Api::cuda], "no CUDA driver");
  EXPECT_EQ(r[Api::vulkan], "no Vulkan loader");
  PerApi<Backend*> backends;  // pointers start null
  for (Api a : kApis) EXPECT_EQ(backends[a], nullptr);
  EXPECT_EQ(kApis.size(), 2u);
}

// What a program says of an API in prose comes from the API list (parity's reasons, p2p's rows),
// not a `api == Api::cuda ? "CUDA" : "Vulkan"` at each use: a third API names itself.
TEST(PerApi, EachApiHasItsNameAndItsDisplayName) {
  EXPECT_STREQ(api_display_name(Api::cuda), "CUDA");
  EXPECT_STREQ(api_display_name(Api::vulkan), "Vulkan");
  EXPECT_STREQ(api_display_name(Api::host), "host");
  EXPECT_STREQ(api_name(Api::host), "host");
}
