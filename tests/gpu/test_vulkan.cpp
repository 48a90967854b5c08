// Vulkan integration tests: real dispatches on the first Vulkan device (lavapipe in CI) with the
// Khronos validation layer and synchronization validation on; any message fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "backends.h"
#include "catalogue.h"
#include "devices.h"
#include "error.h"
#include "suite_check.h"
#include "validated_vulkan.h"
#include "vk_queue_families.h"
#include "vulkan_backend.h"

using namespace cuvk;

namespace {

// Parameters by name, never by position: a new kernel-visible parameter (params.h) leaves these
// as they are (kernel_params: every sweep axis at its neutral value).
CuvkParams flush_params(std::uint32_t sentinel_bits) {
  CuvkParams p = kernel_params(1024);
  p.aux = sentinel_bits;
  return p;
}

class VulkanValidated : public suite::ValidatedVulkan {
 protected:
  RunOutcome run(const RunConfig& cfg) {
    BackendSet set;
    set.backends[Api::vulkan] = backend_.get();
    return run_suite(cfg, set);
  }
};

}  // namespace

// Issue 19: what `cuvk trace` and `cuvk inspect` find on every Vulkan backend (Backend::find);
// a backend that stopped offering one would leave them printing that it lacks it.
TEST_F(VulkanValidated, OffersTracesExecutableReportsAndPipelineCache) {
  EXPECT_NE(backend_->find<Traces>(), nullptr) << backend_->lacks<Traces>();
  EXPECT_NE(backend_->find<ExecutableReports>(), nullptr) << backend_->lacks<ExecutableReports>();
  EXPECT_NE(backend_->find<PipelineCache>(), nullptr) << backend_->lacks<PipelineCache>();
  EXPECT_EQ(backend_->find<KernelResourceReports>(), nullptr);  // CUDA's alone
}

TEST_F(VulkanValidated, DeviceInfoIsComplete) {
  const DeviceInfo& d = backend_->info();
  EXPECT_EQ(d.api, Api::vulkan);
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.driver.empty());
  EXPECT_NE(format_uuid(d.uuid), format_uuid(Uuid{}));
  EXPECT_GE(d.max_block_size, 256u);
  EXPECT_GT(d.max_buffer_bytes, 0u);
}

TEST_F(VulkanValidated, EveryTestRunsVerifiedWithColdL2) {
  const RunOutcome out = run(suite::small_suite(Api::vulkan));
  suite::expect_all_ok(out, Api::vulkan);
  EXPECT_GT(out.flush_bytes, 0u);
  // Every ok row is compared with this run's wide copy.
  for (const ResultRow& r : out.rows) EXPECT_TRUE(r.pct_of_ceiling.has_value()) << r.kernel;
}

// Both binding modes of every kernel: each point gets a descriptor row and a bda row, both verified
// element by element and bit-identical (same output hash); the copy engine has no bda form.
TEST_F(VulkanValidated, EveryKernelRunsVerifiedInBothBindingModes) {
  if (!backend_->binding_unsupported(Binding::bda).empty())
    GTEST_SKIP() << backend_->binding_unsupported(Binding::bda);
  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.n = 65535;  // not a multiple of any block size: tail threads must do nothing
  cfg.vk_bindings = {Binding::descriptor, Binding::bda};
  const RunOutcome out = run(cfg);
  suite::expect_all_ok(out, Api::vulkan);
  std::size_t descriptor_rows = 0, bda_rows = 0, engine_rows = 0;
  for (const ResultRow& r : out.rows) {
    if (r.binding == Binding::descriptor) {
      ++descriptor_rows;
      engine_rows += r.kernel == kCopyEngine ? 1 : 0;
      continue;
    }
    ASSERT_EQ(r.binding, Binding::bda);
    ++bda_rows;
    EXPECT_NE(r.kernel, kCopyEngine);
    EXPECT_TRUE(r.pct_of_ceiling.has_value()) << r.kernel;  // against the bda copy vec4
    const auto twin = std::find_if(out.rows.begin(), out.rows.end(), [&r](const ResultRow& d) {
      return d.binding == Binding::descriptor && d.kernel == r.kernel && d.axes == r.axes &&
             d.block_size == r.block_size;
    });
    ASSERT_NE(twin, out.rows.end()) << r.kernel;
    EXPECT_EQ(twin->output_hash, r.output_hash) << r.kernel << " " << point_label(r);
  }
  EXPECT_EQ(bda_rows + engine_rows, descriptor_rows);  // every point but the copy engine's
}

// The internal L2-flush kernel in both modes: its store happens only when a vec4 sums to the
// sentinel, so a zeroed scratch with sentinel 0 must write sink[0] = 0 over the poison.
TEST_F(VulkanValidated, FlushKernelBehavesTheSameInBothBindingModes) {
  for (Binding binding : {Binding::descriptor, Binding::bda}) {
    if (!backend_->binding_unsupported(binding).empty()) continue;
    SCOPED_TRACE(binding_name(binding));
    auto scratch = backend_->allocate(1024 * 16);
    auto sink = backend_->allocate(16);
    backend_->fill(*scratch, 0);
    for (std::uint32_t sentinel_bits : {0x3F800000u /* 1.0f: never */, 0u /* 0.0f: always */}) {
      backend_->fill(*sink, kPoisonWord);
      const CuvkParams params = flush_params(sentinel_bits);
      const Launch flush =
          builtin_launch("l2_flush", Geometry{256, 4, 1}, params, *scratch, *sink, binding);
      backend_->run(flush, RunOptions{1, nullptr});
      std::uint32_t word = 0;
      backend_->download(*sink, &word, sizeof word);
      EXPECT_EQ(word, sentinel_bits == 0 ? 0u : kPoisonWord);
    }
  }
}

// The timestamp period applied once, and the right way: the GPU times of a batch cannot add up
// to more than the wall time the batch took from submission to completion (a physical bound,
// not a timing: a faster or slower machine keeps it). A period scaled 2x breaks it on lavapipe,
// whose copies fill nearly all of a batch's wall time. (The arithmetic itself: test_timestamps.)
TEST_F(VulkanValidated, GpuTimesOfABatchFitInItsWallTime) {
  constexpr std::uint32_t n = 4u << 20;  // 16 MiB each way: milliseconds a copy on lavapipe
  auto in = backend_->allocate(n * sizeof(float));
  auto out = backend_->allocate(n * sizeof(float));
  backend_->fill(*in, 0x3F800000u);
  const CuvkParams params = kernel_params(n);
  const Launch copy = builtin_launch("copy", Geometry{256, n / 256, 1}, params, *in, *out);
  backend_->run(copy, RunOptions{1, nullptr});  // pipeline made, memory touched
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> times = backend_->run(copy, RunOptions{20, nullptr});
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(times.size(), 20u);
  const double gpu_ms = std::accumulate(times.begin(), times.end(), 0.0);
  EXPECT_GT(gpu_ms, 0.0);
  EXPECT_LE(gpu_ms, wall_ms) << "20 copies' GPU times add up to more than the wall time";
}

TEST_F(VulkanValidated, BindingModesAreReported) {
  EXPECT_EQ(backend_->binding_unsupported(Binding::descriptor), "");
  EXPECT_NE(backend_->binding_unsupported(Binding::pointer), "");
  bool listed = false;
  for (const auto& [key, value] : backend_->info().properties)
    if (key == "buffer_device_address") {
      listed = true;
      EXPECT_EQ(value.rfind("yes", 0) == 0, backend_->binding_unsupported(Binding::bda).empty());
    }
  EXPECT_TRUE(listed);
  // The catalogue's kernel names only: the `_bda` modules are reached through Launch::binding.
  for (const std::string& k : backend_->kernels())
    EXPECT_EQ(k.find("_bda"), std::string::npos) << k;
}

TEST_F(VulkanValidated, WarmL2SkipsTheFlush) {
  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.tests = {"read_x", "copy"};
  cfg.l2 = L2Mode::warm;
  const RunOutcome out = run(cfg);
  suite::expect_all_ok(out, Api::vulkan);
  EXPECT_EQ(out.flush_bytes, 0u);
}

TEST_F(VulkanValidated, OtherBlockSizesAndTinyProblems) {
  for (std::uint32_t block : {32u, 64u, 1024u}) {
    for (std::uint32_t n : {1u, 33u}) {
      RunConfig cfg = suite::small_suite(Api::vulkan);
      cfg.block_sizes = {block};
      cfg.n = n;
      SCOPED_TRACE("block " + std::to_string(block) + " n " + std::to_string(n));
      suite::expect_all_ok(run(cfg), Api::vulkan);
    }
  }
}

TEST_F(VulkanValidated, FillPoisonsEveryWord) {
  auto in = backend_->allocate(1024 * sizeof(float));
  auto out = backend_->allocate(1024 * sizeof(float));
  // Non-poison content first, so a fill that writes only part of the buffer is seen.
  std::vector<std::uint32_t> host(1024);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i) + 1;
  backend_->upload(*out, host.data(), host.size() * sizeof(std::uint32_t));
  backend_->fill(*out, kPoisonWord);
  std::fill(host.begin(), host.end(), 0u);
  backend_->download(*out, host.data(), host.size() * sizeof(std::uint32_t));
  EXPECT_EQ(std::count(host.begin(), host.end(), kPoisonWord), 1024) << "of 1024 words";
}

TEST_F(VulkanValidated, BlockSizeAboveTheLimitIsRefused) {
  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.block_sizes = {backend_->info().max_block_size + 32};
  EXPECT_THROW(run(cfg), UsageError);
}

TEST(VulkanEnvironment, NoDriverGivesAReasonNotACrash) {
  ::setenv("VK_DRIVER_FILES", "/nonexistent/icd.json", 1);
  ::setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
  try {
    const auto devices = vulkan_devices(BackendOptions{});
    EXPECT_TRUE(devices.empty()) << "a device appeared without a driver";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).size(), 0u);
  }
  const DeviceInventory inv = take_inventory(BackendOptions{});
  EXPECT_TRUE(inv.vulkan.empty());
  EXPECT_FALSE(inv.vulkan_error.empty());
  ::unsetenv("VK_DRIVER_FILES");
  ::unsetenv("VK_ICD_FILENAMES");
}

TEST_F(VulkanValidated, BlockSizeSweepRecordsEveryBlockSize) {
  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.tests = {"read_x", "copy"};
  cfg.block_sizes = {128, 256};
  const RunOutcome out = run(cfg);
  suite::expect_all_ok(out, Api::vulkan);
  std::size_t b128 = 0, b256 = 0;
  for (const ResultRow& r : out.rows) {
    b128 += r.block_size == 128 ? 1 : 0;
    b256 += r.block_size == 256 ? 1 : 0;
    if (r.variant != "engine") {
      EXPECT_EQ(r.geometry.block_size, r.block_size);
    }
  }
  EXPECT_EQ(b128, b256);
  EXPECT_EQ(b128 + b256, out.rows.size());
  EXPECT_GT(b128, 0u);
}

// ---- Copy queues: the copy engine on every queue family that can copy ----

// NVIDIA-like families: graphics, transfer-only, async compute, video decode (no transfer bit),
// video decode with transfer, optical flow, and two that cannot be measured.
TEST(QueueFamilies, CopyFamiliesAreThoseThatCanTransfer) {
  using vk::FamilyProperties;
  const std::vector<FamilyProperties> families = {
      {0x1 | 0x2 | 0x4 | 0x8, 16, 64},  // 0 graphics|compute|transfer|sparse
      {0x4 | 0x8, 2, 64},               // 1 transfer|sparse: the dedicated copy engines
      {0x2 | 0x4 | 0x8, 8, 64},         // 2 compute|transfer|sparse
      {0x20, 1, 64},                    // 3 video_decode: cannot copy buffers
      {0x20 | 0x4, 1, 64},              // 4 video_decode|transfer
      {0x100, 1, 64},                   // 5 optical_flow
      {0x2, 4, 0},                      // 6 compute without timestamps (transfer implied)
      {0x1, 0, 64},                     // 7 graphics without queues
  };
  const std::vector<QueueFamily> copy = vk::copy_families(families, 0);
  std::vector<std::uint32_t> indices;
  for (const QueueFamily& f : copy) indices.push_back(f.index);
  EXPECT_EQ(indices, (std::vector<std::uint32_t>{0, 1, 2, 4, 6, 7}));
  EXPECT_EQ(copy[0].flags, "graphics|compute|transfer|sparse");
  EXPECT_TRUE(copy[0].own && copy[0].compute);
  EXPECT_EQ(copy[1].flags, "transfer|sparse");
  EXPECT_FALSE(copy[1].own || copy[1].compute);
  EXPECT_EQ(copy[1].queue_count, 2u);
  EXPECT_EQ(copy[3].flags, "transfer|video_decode");
  EXPECT_TRUE(vk::measurable(copy[1]));
  EXPECT_FALSE(vk::measurable(copy[4]));  // no timestamps
  EXPECT_FALSE(vk::measurable(copy[5]));  // no queues
  EXPECT_EQ(vk::describe_copy_families({copy[0], copy[1]}),
            "0 graphics|compute|transfer|sparse x16 ts64; 1 transfer|sparse x2 ts64");
  EXPECT_EQ(vk::describe_copy_families({}), "none");
  EXPECT_EQ(vk::queue_flags_text(0), "none");
  EXPECT_EQ(vk::queue_flags_text(0x4 | 0x400), "transfer|0x400");  // unknown bits in hex
  EXPECT_EQ(vk::queue_flags_text(0x10 | 0x40), "protected|video_encode");
}

// The device lists its copy families (its own among them) in its properties and through the
// backend; each gets a verified copy-engine row at every copy_engine size, with its index and
// flags, under the validation layer.
TEST_F(VulkanValidated, EveryCopyQueueFamilyHasVerifiedEngineRows) {
  const std::vector<QueueFamily> families = backend_->copy_queue_families();
  ASSERT_FALSE(families.empty());
  EXPECT_EQ(
      std::count_if(families.begin(), families.end(), [](const QueueFamily& f) { return f.own; }),
      1);
  bool listed = false;
  for (const auto& [key, value] : backend_->info().properties)
    listed = listed ||
             (key == "copy_queue_families" && value.find(families[0].flags) != std::string::npos);
  EXPECT_TRUE(listed);

  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.tests = {"copy", "copy_engine"};
  cfg.variants = {"engine", "scalar"};
  const RunOutcome out = run(cfg);
  for (const QueueFamily& f : families) {
    SCOPED_TRACE("queue family " + std::to_string(f.index) + " " + f.flags);
    std::size_t rows = 0;
    for (const ResultRow& r : out.rows) {
      if (r.kernel != kCopyEngine || r.queue_family != f.index) continue;
      ++rows;
      EXPECT_EQ(r.queue_flags, f.flags);
      if (!vk::measurable(f)) {
        EXPECT_EQ(r.status, Status::unavailable);
        continue;
      }
      EXPECT_EQ(r.status, Status::ok) << r.reason;
      EXPECT_TRUE(r.verified);
      EXPECT_GT(r.checked, 0u);
      EXPECT_GT(r.gbps_useful, 0.0);
    }
    EXPECT_EQ(rows, 1u + cfg.axis_values.at("copy_mib").size());  // copy/engine + each size
  }
}

// A copy-engine launch may name any copy family; an unknown family is an error, not a crash.
TEST_F(VulkanValidated, CopyEngineRunsOnEachFamilyAndRefusesUnknownOnes) {
  constexpr std::size_t kWords = 4096;
  std::vector<std::uint32_t> data(kWords), got(kWords);
  for (std::size_t i = 0; i < kWords; ++i) data[i] = static_cast<std::uint32_t>(i * 2654435761u);
  auto in = backend_->allocate(kWords * 4);
  auto out = backend_->allocate(kWords * 4);
  backend_->upload(*in, data.data(), kWords * 4);
  Launch launch = copy_launch(*in, *out);
  for (const QueueFamily& f : backend_->copy_queue_families()) {
    if (!vk::measurable(f)) continue;
    backend_->fill(*out, 0);
    launch.queue_family = static_cast<std::int32_t>(f.index);
    const std::vector<double> times = backend_->run(launch, RunOptions{3, nullptr});
    EXPECT_EQ(times.size(), 3u);
    backend_->download(*out, got.data(), kWords * 4);
    EXPECT_EQ(got, data) << "queue family " << f.index;
  }
  launch.queue_family = 1000;
  EXPECT_THROW(backend_->run(launch, RunOptions{1, nullptr}), Error);
}

// Issue 33: every Vulkan submission mode of the chain test runs verified (K steps applied) with
// the validation layer's synchronization checks on (the steps' barriers, the submissions of
// submit-each and wait-each), in both binding modes where bda is offered, n not a multiple of the
// block size.
TEST_F(VulkanValidated, EveryChainModeRunsVerified) {
  RunConfig cfg = suite::small_suite(Api::vulkan);
  cfg.tests = {"chain"};
  if (backend_->binding_unsupported(Binding::bda).empty())
    cfg.vk_bindings = {Binding::descriptor, Binding::bda};
  const RunOutcome out = run(cfg);
  suite::expect_all_ok(out, Api::vulkan);
  ASSERT_EQ(out.rows.size(), 4 * cfg.vk_bindings.size());
  for (const ResultRow& r : out.rows) {
    ASSERT_TRUE(r.submission.has_value());
    EXPECT_TRUE(backend_->submission_unsupported(*r.submission).empty());
    ASSERT_TRUE(r.host_us_per_step.has_value());
    EXPECT_GT(*r.host_us_per_step, 0.0);
  }
  for (Submission s : {Submission::stream, Submission::graph, Submission::pdl})
    EXPECT_FALSE(backend_->submission_unsupported(s).empty()) << submission_name(s);
}

// Issue 32: built-in kernels take the one launch model (Launch::buffers + scalars, the run-time
// kernels' binding convention): a launch made by hand runs as builtin_launch's does, in both
// binding modes, and one whose buffer count or scalar bytes are not the kernel's is refused with
// an Error that says what it gave and what the kernel takes (never a validation message or a
// crash). The copy engine takes two buffers, from and to.
TEST_F(VulkanValidated, BuiltinLaunchesAreCheckedLikeRunTimeOnes) {
  constexpr std::uint32_t n = 1000;
  std::vector<float> data(n), got(n);
  std::iota(data.begin(), data.end(), 1.0f);
  auto in = backend_->allocate(n * 4), out = backend_->allocate(n * 4);
  backend_->upload(*in, data.data(), n * 4);
  const CuvkParams params = kernel_params(n);
  const Geometry g{256, (n + 255) / 256, 1};
  const auto expect_refused = [&](const Launch& launch, const std::string& says) {
    try {
      backend_->run(launch, RunOptions{1, nullptr});
      ADD_FAILURE() << "accepted: " << says;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  for (Binding binding : {Binding::descriptor, Binding::bda}) {
    if (!backend_->binding_unsupported(binding).empty()) continue;
    SCOPED_TRACE(binding_name(binding));
    Launch launch;  // by hand: what builtin_launch fills
    launch.kernel = "copy";
    launch.geometry = g;
    launch.binding = binding;
    launch.buffers = {{in.get(), 0, n * 4}, {out.get(), 0, n * 4}};
    launch.scalars.resize(sizeof params);
    std::memcpy(launch.scalars.data(), &params, sizeof params);
    backend_->fill(*out, kPoisonWord);
    backend_->run(launch, RunOptions{1, nullptr});
    backend_->download(*out, got.data(), n * 4);
    EXPECT_EQ(got, data);
    Launch one = launch, three = launch, short_scalars = launch, long_scalars = launch;
    one.buffers.pop_back();
    three.buffers.push_back(launch.buffers[0]);
    short_scalars.scalars.resize(8);
    long_scalars.scalars.resize(sizeof params + 4);
    expect_refused(one, "1 buffers and 16 scalar bytes; the kernel takes 2 and 16");
    expect_refused(three, "3 buffers and 16 scalar bytes; the kernel takes 2 and 16");
    expect_refused(short_scalars, "2 buffers and 8 scalar bytes; the kernel takes 2 and 16");
    expect_refused(long_scalars, "2 buffers and 20 scalar bytes; the kernel takes 2 and 16");
  }
  Launch engine = copy_launch(*in, *out);
  engine.buffers.pop_back();
  expect_refused(engine, "1 buffers; the copy engine takes 2");
  auto small = backend_->allocate(16);
  expect_refused(copy_launch(*small, *out), "the input needs at least as many");
}
