// CUDA integration tests: every test on the first CUDA device; skipped, with the reason, where
// there is no CUDA device (CI) or the binary was built without CUDA.
#include <gtest/gtest.h>

#include "cuda_backend.h"
#include "suite_check.h"

using namespace cuvk;

namespace {
std::unique_ptr<Backend> cuda_or_skip(std::string& why) {
  try {
    cuda_devices();
    return make_cuda_backend(0);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
}
}  // namespace

TEST(Cuda, EveryTestRunsVerified) {
  std::string why;
  auto backend = cuda_or_skip(why);
  if (!backend) GTEST_SKIP() << "no CUDA: " << why;
  BackendSet set;
  set.backends[Api::cuda] = backend.get();
  suite::expect_all_ok(run_suite(suite::small_suite(Api::cuda), set), Api::cuda);
}

TEST(Cuda, DeviceInfoHasUuidAndL2) {
  std::string why;
  auto backend = cuda_or_skip(why);
  if (!backend) GTEST_SKIP() << "no CUDA: " << why;
  EXPECT_GT(backend->info().l2_bytes, 0u);
  EXPECT_NE(format_uuid(backend->info().uuid), format_uuid(Uuid{}));
}

// Issue 19: what `cuvk trace` and `cuvk inspect` find on the CUDA backend (Backend::find).
TEST(Cuda, OffersTracesAndKernelResourceReports) {
  std::string why;
  auto backend = cuda_or_skip(why);
  if (!backend) GTEST_SKIP() << "no CUDA: " << why;
  EXPECT_NE(backend->find<Traces>(), nullptr) << backend->lacks<Traces>();
  EXPECT_NE(backend->find<KernelResourceReports>(), nullptr)
      << backend->lacks<KernelResourceReports>();
  EXPECT_EQ(backend->find<PipelineCache>(), nullptr);  // Vulkan's alone
  EXPECT_EQ(backend->find<ExecutableReports>(), nullptr);
}

TEST(Cuda, UnavailableCudaHasAReason) {
  try {
    cuda_devices();
    GTEST_SKIP() << "CUDA is available here";
  } catch (const std::exception& e) {
    EXPECT_GT(std::string(e.what()).size(), 10u);
  }
}
