// Host memory the backends copy straight from and into (issue 22): the runner's arrays are
// mapped once, reused from point to point and registered with each backend (CUDA pins them,
// Vulkan imports them with VK_EXT_external_memory_host). Transfers through a registration must
// land exactly where the unregistered ones do; reused slots must hold what fresh ones would.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "catalogue.h"
#include "cuda_backend.h"
#include "error.h"
#include "host_data.h"
#include "host_memory.h"
#include "input_pipeline.h"
#include "vulkan_backend.h"

using namespace cuvk;

namespace {

// Writes a pattern into registered memory, uploads a sub-range at an offset, downloads it into
// another offset of the same memory and into a plain vector: all three must agree.
void round_trip(Backend& b, bool expect_registration) {
  constexpr std::size_t kWords = (std::size_t{3} << 20) + 5;  // not a multiple of any page
  HostMemory mem(2 * kWords + 1024);
  const Span<float> all = mem.touch(mem.capacity());
  std::iota(all.begin(), all.begin() + kWords + 7, 1.0f);
  mem.register_with(b, mem.capacity());
  auto dev = b.allocate(kWords * sizeof(float));
  b.upload(*dev, all.data() + 7, kWords * sizeof(float));  // from inside, not at the start
  float* back = all.data() + kWords + 512;
  std::fill(back, back + kWords, -1.0f);
  b.download(*dev, back, kWords * sizeof(float));
  std::vector<float> plain(kWords, -2.0f);
  b.download(*dev, plain.data(), plain.size() * sizeof(float));  // unregistered: staging / pageable
  for (std::size_t i = 0; i < kWords; i += 4093) {
    ASSERT_EQ(back[i], static_cast<float>(i + 8)) << i;
    ASSERT_EQ(plain[i], static_cast<float>(i + 8)) << i;
  }
  EXPECT_TRUE(std::equal(plain.begin(), plain.end(), back));
  HostMemory other(1 << 20);  // apart: CUDA refuses to pin a range twice
  const std::unique_ptr<HostRegistration> direct =
      b.register_host(other.touch(1 << 20).data(), kHostRegisterAlign);
  EXPECT_EQ(direct != nullptr, expect_registration);
}

// The runner registers the first point's input and download arrays on two threads at once, while
// the input pipeline's thread may drop an older slot's registrations (FirstInputs,
// InputPipeline): a backend's registrations must hold from several threads at a time. A race on
// the backend's list of registrations showed as a crash in CI (the list grew on two threads at
// once): so each round opens a fresh backend, whose list is empty, and its threads, started
// together, register their arrays and drop them. Then every array transfers again, unregistered.
// A race need not show in every run; under AddressSanitizer (CI) a lost or torn entry does.
void registrations_from_threads(const std::function<std::unique_ptr<Backend>()>& open) {
  constexpr int kThreads = 4, kEach = 4, kRounds = 40;
  constexpr std::size_t kWords = kHostRegisterAlign / sizeof(float);
  std::vector<std::unique_ptr<HostMemory>> mems;
  for (int a = 0; a < kThreads * kEach; ++a) {
    mems.push_back(std::make_unique<HostMemory>(kWords));
    const Span<float> s = mems.back()->touch(kWords);
    std::fill(s.begin(), s.end(), static_cast<float>(a + 1));
  }
  for (int round = 0; round < kRounds; ++round) {
    std::unique_ptr<Backend> b = open();
    std::atomic<int> ready{0}, registered{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        std::vector<std::unique_ptr<HostRegistration>> held;
        for (int k = 0; k < kEach; ++k) {
          held.push_back(
              b->register_host(mems[t * kEach + k]->view(kWords).data(), kHostRegisterAlign));
          if (held.back()) registered.fetch_add(1);
        }
      });  // `held` goes here, on each thread
    for (std::thread& th : threads) th.join();
    if (b->info().is_cpu) {
      ASSERT_EQ(registered.load(), kThreads * kEach) << "lavapipe imports every array";
    }
    auto dev = b->allocate(kHostRegisterAlign);
    std::vector<float> back(kWords);
    for (int a = 0; a < kThreads * kEach; ++a) {  // none registered now: the unregistered way
      b->upload(*dev, mems[a]->view(kWords).data(), kHostRegisterAlign);
      b->download(*dev, back.data(), kHostRegisterAlign);
      ASSERT_TRUE(std::all_of(back.begin(), back.end(),
                              [a](float v) { return v == static_cast<float>(a + 1); }))
          << "round " << round << ", array " << a;
    }
  }
}

std::unique_ptr<Backend> open_vulkan() {
  return make_vulkan_backend(0, BackendOptions{});
}
std::unique_ptr<Backend> open_cuda() {
  return make_cuda_backend(0);
}

// The first device's backend after its API's enumeration, or null with `why` (the test skips).
std::unique_ptr<Backend> first_device(bool vulkan, std::string& why) {
  try {
    if (vulkan) {
      vulkan_devices(BackendOptions{});
      return open_vulkan();
    }
    cuda_devices();
    return open_cuda();
  } catch (const std::exception& e) {
    why = std::string(vulkan ? "no Vulkan: " : "no CUDA: ") + e.what();
    return nullptr;
  }
}

}  // namespace

TEST(HostMemory, AlignedForRegistrationAndTouchedOnDemand) {
  HostMemory mem(1000);
  EXPECT_EQ(mem.capacity(), 1000u);
  const Span<float> s = mem.touch(10);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s.data()) % kHostRegisterAlign, 0u);
  EXPECT_EQ(s.size(), 10u);
  s[9] = 3.0f;
  EXPECT_EQ(mem.view(10)[9], 3.0f);
}

TEST(HostMemory, VulkanTransfersThroughAnImportLandWhereStagedOnesDo) {
  std::string why;
  const std::unique_ptr<Backend> b = first_device(true, why);
  if (!b) GTEST_SKIP() << why;
  // lavapipe and NVIDIA offer VK_EXT_external_memory_host; a driver without it still transfers.
  EXPECT_EQ(b->register_host(nullptr, 0), nullptr);
  HostMemory probe(1 << 20);
  const bool imports = b->register_host(probe.touch(1 << 20).data(), 4u << 20) != nullptr;
  if (b->info().is_cpu) {
    EXPECT_TRUE(imports) << "lavapipe offers VK_EXT_external_memory_host";
  }
  round_trip(*b, imports);
}

TEST(HostMemory, VulkanRegistrationsHoldFromSeveralThreadsAtOnce) {
  std::string why;
  if (!first_device(true, why)) GTEST_SKIP() << why;
  registrations_from_threads(open_vulkan);
}

TEST(HostMemory, CudaTransfersFromPinnedMemoryLandWhereOthersDo) {
  std::string why;
  const std::unique_ptr<Backend> b = first_device(false, why);
  if (!b) GTEST_SKIP() << why;
  round_trip(*b, true);
}

TEST(HostMemory, CudaRegistrationsHoldFromSeveralThreadsAtOnce) {
  std::string why;
  if (!first_device(false, why)) GTEST_SKIP() << why;
  registrations_from_threads(open_cuda);
}

// A registration CUDA refuses (here: the same range twice) is caught by HostMemory::register_with
// and the transfers go the unpinned way; the refusal must not linger as the thread's last CUDA
// error, or the next launch's check reports it and the row fails.
TEST(HostMemory, CudaARefusedRegistrationLeavesNoErrorBehind) {
  std::string why;
  const std::unique_ptr<Backend> b = first_device(false, why);
  if (!b) GTEST_SKIP() << why;
  HostMemory mem(kHostRegisterAlign / sizeof(float));
  void* const data = mem.touch(mem.capacity()).data();
  const std::unique_ptr<HostRegistration> first = b->register_host(data, kHostRegisterAlign);
  ASSERT_NE(first, nullptr);
  EXPECT_THROW(b->register_host(data, kHostRegisterAlign), Error);
  auto dev = b->allocate(kHostRegisterAlign);
  EXPECT_NO_THROW(b->fill(*dev, 0x7fc00000u));  // a launch, then cudaGetLastError()
}

TEST(InputPipeline, ReusedSlotsHoldWhatFreshOnesWould) {
  // A large point, a small one, a large one again: slots are reused two points later.
  const TestCase* read_x = find_test("read_x");
  const TestCase* offset = find_test("read_offset");
  ASSERT_NE(read_x, nullptr);
  ASSERT_NE(offset, nullptr);
  const std::uint32_t n = 1u << 16;
  const std::vector<Plan> plans = {read_x->plan(make_point("aos", "scalar", n)),
                                   offset->plan(make_point("", "scalar", n, {{"offset", 7}})),
                                   read_x->plan(make_point("soa", "scalar", n)),
                                   offset->plan(make_point("", "scalar", n, {{"offset", 1}}))};
  std::vector<const Plan*> ptrs;
  for (const Plan& p : plans) ptrs.push_back(&p);
  InputPipeline pipeline(ptrs, 42, true);
  const HostSlot* first_slot = nullptr;
  for (std::size_t j = 0; j < plans.size(); ++j) {
    const Inputs got = pipeline.take(j);
    const Inputs want = prepare_inputs(plans[j], 42, j);
    ASSERT_EQ(got.input.size(), input_words(plans[j].kernel_model()));
    ASSERT_EQ(got.expected.size(), output_words(plans[j].kernel_model()));
    ASSERT_EQ(got.download.size(), output_words(plans[j].kernel_model()));
    EXPECT_TRUE(std::equal(got.input.begin(), got.input.end(), want.input.begin())) << j;
    EXPECT_EQ(hash_output(got.expected.data(), got.expected.size() * 4), want.expected_hash.get())
        << j;
    EXPECT_EQ(got.expected_hash.get(), want.expected_hash.get()) << j;
    if (j == 0) first_slot = got.slot.get();
    if (j == 2) {
      EXPECT_EQ(got.slot.get(), first_slot) << "point 2 reuses point 0's slot";
    }
  }
}
