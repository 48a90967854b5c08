// The test-only API end to end (docs/ADDING_AN_API.md): registered in the factory's table by this
// test program alone, opened through the factory, run by the real runner (run_suite, as `cuvk run`
// runs CUDA and Vulkan) and verified element by element against the CPU reference.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends.h"
#include "cpu_kernels.h"
#include "error.h"
#include "host_backend.h"
#include "parity.h"
#include "runner.h"

namespace cuvk {
namespace {

// The factory's table entry of the test API: what a third API adds to host/factory/backends.cpp.
void register_host_api() {
  static const bool registered = [] {
    register_backend(
        {Api::host, api_name(Api::host),
         [](const BackendOptions&) { return host_api::host_devices(); },
         [](int index, const BackendOptions&) { return host_api::make_host_backend(index); },
         [] { return host_api::host_kernel_names(); }});
    return true;
  }();
  static_cast<void>(registered);
}

RunConfig host_config(std::vector<std::string> tests) {
  RunConfig cfg;
  cfg.tests = std::move(tests);
  cfg.apis = {Api::host};
  cfg.variants = {"scalar"};
  cfg.n = 1u << 16;
  cfg.reps = 5;
  cfg.warmup = 1;
  cfg.settle_ms = 0.0;
  cfg.host_cost_samples = 5;
  return cfg;
}

RunOutcome run_host(const RunConfig& cfg) {
  register_host_api();
  const std::unique_ptr<Backend> backend = make_backend(Api::host, 0, BackendOptions{});
  BackendSet set;
  set.backends[Api::host] = backend.get();
  return run_suite(cfg, set);
}

void expect_verified_with_times(const ResultRow& r, std::uint32_t n) {
  EXPECT_EQ(r.api, Api::host);
  EXPECT_EQ(r.binding, Binding::pointer);
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.check, Check::verified);
  EXPECT_EQ(r.checked, n);  // every element against the CPU reference
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_GE(r.time_ms.samples, 5u);
  EXPECT_GT(r.time_ms.median, 0.0);
}

TEST(HostApi, NoBinaryTableHoldsItUnlessATestRegistersIt) {
  std::vector<Api> built;
  for (const BackendEntry& e : backend_table()) built.push_back(e.api);
  EXPECT_EQ(built, std::vector<Api>(kApis.begin(), kApis.end()));
  EXPECT_THROW(make_backend(Api::host, 0, BackendOptions{}), Error);
  register_host_api();
  EXPECT_EQ(backend_table().back().api, Api::host);
  EXPECT_THROW(register_backend({Api::host, "host", {}, {}, {}}), Error);  // once only
}

TEST(HostApi, TheFactoryOpensItsOneDevice) {
  register_host_api();
  const std::unique_ptr<Backend> b = make_backend(Api::host, 0, BackendOptions{});
  EXPECT_EQ(b->info().api, Api::host);
  EXPECT_TRUE(b->info().is_cpu);
  EXPECT_EQ(b->info().uuid, host_api::kHostUuid);
  EXPECT_NE(b->info().timer.source.find("host clock"), std::string::npos);
  EXPECT_THROW(make_backend(Api::host, 1, BackendOptions{}), Error);
  // A launch not of the kernel's shape is refused, as the contract asks (backend.h, Launch).
  auto in = b->allocate(1024), out = b->allocate(1024);
  CuvkParams p{};
  p.n = 256;
  Launch ok = builtin_launch("copy", Geometry{256, 1, 1}, p, *in, *out);
  EXPECT_EQ(b->run(ok, RunOptions{1, nullptr}).size(), 1u);
  Launch no_scalars = ok;
  no_scalars.scalars.clear();
  EXPECT_THROW(b->run(no_scalars, RunOptions{1, nullptr}), Error);
  Launch one_buffer = ok;
  one_buffer.buffers.pop_back();
  EXPECT_THROW(b->run(one_buffer, RunOptions{1, nullptr}), Error);
  const std::vector<std::string> kernels = built_kernels(Api::host);
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), "copy"), kernels.end());
}

TEST(HostApi, CopyRowsComeOutVerifiedWithHostClockTimes) {
  const RunConfig cfg = host_config({"copy"});
  const RunOutcome out = run_host(cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  expect_verified_with_times(out.rows.front(), cfg.n);
  ASSERT_EQ(out.calibration.size(), 1u);  // the empty dispatch ran on it too
  ASSERT_EQ(out.host.size(), 1u);
  EXPECT_EQ(out.host.front().api, Api::host);
}

TEST(HostApi, ReadXRowsComeOutVerified) {
  const RunConfig cfg = host_config({"read_x"});
  const RunOutcome out = run_host(cfg);
  ASSERT_EQ(out.rows.size(), 2u);  // aos and soa
  for (const ResultRow& r : out.rows) expect_verified_with_times(r, cfg.n);
}

TEST(HostApi, ABrokenCpuKernelFailsTheRow) {
  host_api::break_copy_at(7);
  const RunOutcome out = run_host(host_config({"copy"}));
  host_api::break_copy_at(std::nullopt);
  ASSERT_EQ(out.rows.size(), 1u);
  const ResultRow& r = out.rows.front();
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_EQ(r.first_bad_index, std::optional<std::uint64_t>(7));
}

TEST(HostApi, ItsRowsAreListedWithoutParity) {
  const RunOutcome out = run_host(host_config({"copy"}));
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_TRUE(pair_apis(out.rows).empty());  // parity pairs CUDA with Vulkan only
}

}  // namespace
}  // namespace cuvk
