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

// Issue 33: every CUDA submission mode of the chain test (stream, graph, pdl, wait-each) runs
// verified against the K-step reference; pdl only where the device has it (compute capability
// 9.0), else its row is unavailable saying why. The Vulkan modes are not CUDA's.
TEST(Cuda, EveryChainModeRunsVerified) {
  std::string why;
  auto backend = cuda_or_skip(why);
  if (!backend) GTEST_SKIP() << "no CUDA: " << why;
  BackendSet set;
  set.backends[Api::cuda] = backend.get();
  RunConfig cfg = suite::small_suite(Api::cuda);
  cfg.tests = {"chain"};
  RunOutcome out = run_suite(cfg, set);
  ASSERT_EQ(out.rows.size(), 4u);
  std::vector<ResultRow> ran;
  for (const ResultRow& r : out.rows) {
    ASSERT_TRUE(r.submission.has_value());
    const std::string unsupported = backend->submission_unsupported(*r.submission);
    if (*r.submission == Submission::pdl && !unsupported.empty()) {
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_EQ(r.reason, unsupported);
      continue;
    }
    EXPECT_EQ(unsupported, "") << submission_name(*r.submission);
    ASSERT_TRUE(r.host_us_per_step.has_value());
    ran.push_back(r);
  }
  out.rows = ran;
  suite::expect_all_ok(out, Api::cuda);
  for (Submission s : {Submission::recorded, Submission::rerecorded, Submission::submit_each})
    EXPECT_FALSE(backend->submission_unsupported(s).empty()) << submission_name(s);
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
