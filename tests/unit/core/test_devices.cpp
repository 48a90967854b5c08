// Pairing CUDA devices with their Vulkan twins by UUID (issue 15's single-machine part): on a
// multi-GPU node CUDA's order (CUDA_VISIBLE_DEVICES, PCI order) and Vulkan's enumeration order can
// differ; the pair must follow the UUID, never the index.
#include <gtest/gtest.h>

#include "devices.h"
#include "error.h"

namespace {

using cuvk::Api;
using cuvk::DeviceInfo;
using cuvk::DeviceInventory;

DeviceInfo gpu(Api api, int index, std::uint8_t id, const std::string& name, bool cpu = false) {
  DeviceInfo d;
  d.api = api;
  d.index = index;
  d.name = name;
  d.uuid.fill(0);
  d.uuid[0] = id;
  d.uuid[15] = id;
  d.is_cpu = cpu;
  return d;
}

// Three GPUs: CUDA sees them as A, B, C; Vulkan enumerates C, lavapipe, A, B.
DeviceInventory node() {
  DeviceInventory inv;
  inv.cuda = {gpu(Api::cuda, 0, 0xA, "GPU A"), gpu(Api::cuda, 1, 0xB, "GPU B"),
              gpu(Api::cuda, 2, 0xC, "GPU C")};
  inv.vulkan = {gpu(Api::vulkan, 0, 0xC, "GPU C"), gpu(Api::vulkan, 1, 0xF, "llvmpipe", true),
                gpu(Api::vulkan, 2, 0xA, "GPU A"), gpu(Api::vulkan, 3, 0xB, "GPU B")};
  return inv;
}

}  // namespace

TEST(DevicePairing, EachCudaIndexPairsWithItsUuidTwinWhateverTheVulkanOrder) {
  const DeviceInventory inv = node();
  const int expected_vulkan[] = {2, 3, 0};
  for (int k = 0; k < 3; ++k) {
    const cuvk::DeviceChoice c = cuvk::choose_devices(inv, std::to_string(k));
    ASSERT_TRUE(c.cuda && c.vulkan) << k;
    EXPECT_TRUE(c.same_gpu);
    EXPECT_EQ(c.cuda->uuid, c.vulkan->uuid);
    EXPECT_EQ(c.vulkan->index, expected_vulkan[k]);
    EXPECT_EQ(c.cuda->name, c.vulkan->name);
  }
}

TEST(DevicePairing, ReorderingCudaDevicesDoesNotChangeTheTwins) {
  // CUDA_VISIBLE_DEVICES=2,0,1: CUDA's indices change, every pair stays by UUID.
  DeviceInventory inv = node();
  inv.cuda = {gpu(Api::cuda, 0, 0xC, "GPU C"), gpu(Api::cuda, 1, 0xA, "GPU A"),
              gpu(Api::cuda, 2, 0xB, "GPU B")};
  for (int k = 0; k < 3; ++k) {
    const cuvk::DeviceChoice c = cuvk::choose_devices(inv, std::to_string(k));
    ASSERT_TRUE(c.cuda && c.vulkan);
    EXPECT_EQ(c.cuda->uuid, c.vulkan->uuid) << k;
  }
}

TEST(DevicePairing, UuidPrefixPicksThatGpuOnBothApis) {
  const DeviceInventory inv = node();
  const cuvk::DeviceChoice c = cuvk::choose_devices(inv, cuvk::format_uuid(inv.cuda[1].uuid).substr(0, 8));
  ASSERT_TRUE(c.cuda && c.vulkan);
  EXPECT_EQ(c.cuda->index, 1);
  EXPECT_EQ(c.vulkan->index, 3);
}

TEST(DevicePairing, AutomaticChoicePrefersACudaDeviceWithATwinAndNeverTheCpu) {
  DeviceInventory inv = node();
  inv.vulkan.erase(inv.vulkan.begin() + 2);  // GPU A has no Vulkan twin (e.g. no ICD for it)
  const cuvk::DeviceChoice c = cuvk::choose_devices(inv, "");
  ASSERT_TRUE(c.cuda && c.vulkan);
  EXPECT_EQ(c.cuda->name, "GPU B");
  EXPECT_FALSE(c.vulkan->is_cpu);
  EXPECT_EQ(c.cuda->uuid, c.vulkan->uuid);
}

TEST(DevicePairing, CudaDeviceWithoutTwinRunsCudaOnlyAndSaysWhy) {
  DeviceInventory inv = node();
  inv.vulkan.erase(inv.vulkan.begin() + 2);
  const cuvk::DeviceChoice c = cuvk::choose_devices(inv, "0");
  ASSERT_TRUE(c.cuda);
  EXPECT_FALSE(c.vulkan);
  EXPECT_FALSE(c.same_gpu);
  EXPECT_NE(c.vulkan_reason.find("no Vulkan device has the CUDA device's UUID"), std::string::npos);
  // The same, asked by API (issue 19: code that goes over the APIs).
  EXPECT_EQ(c.device(cuvk::Api::cuda)->index, 0);
  EXPECT_FALSE(c.device(cuvk::Api::vulkan));
  EXPECT_EQ(c.reason(cuvk::Api::vulkan), c.vulkan_reason);
  EXPECT_EQ(c.reason(cuvk::Api::cuda), "");
}

TEST(DevicePairing, IndexBeyondTheNodeIsAUsageError) {
  EXPECT_THROW(cuvk::choose_devices(node(), "3"), cuvk::UsageError);
}

namespace {

// The UsageError's message of choose_devices(inv, spec), "" when it chose.
std::string refusal(const DeviceInventory& inv, const std::string& spec) {
  try {
    cuvk::choose_devices(inv, spec);
  } catch (const cuvk::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Issue 49, item 2: one rule for numbers. Digits below the device count are an index; otherwise
// a UUID prefix of at least 4 hex digits; a token that could be both is refused naming both.
TEST(DeviceToken, DigitsPastTheCountAreAUuidPrefixOfAtLeastFourDigits) {
  DeviceInventory inv = node();
  inv.cuda[2].uuid[0] = 0x12;  // GPU C's UUID starts 12000000-: "1200" names it
  inv.vulkan[0].uuid[0] = 0x12;
  const cuvk::DeviceChoice c = cuvk::choose_devices(inv, "1200");
  ASSERT_TRUE(c.cuda && c.vulkan);
  EXPECT_EQ(c.cuda->name, "GPU C");
  EXPECT_TRUE(c.same_gpu);
  EXPECT_EQ(cuvk::choose_devices(inv, "2").cuda->name, "GPU C");  // below the count: an index
  EXPECT_EQ(refusal(inv, "12"), "--device 12: there are 3 CUDA devices (0..2)");  // too short
  EXPECT_EQ(refusal(inv, "9999"),
            "--device 9999: there are 3 CUDA devices (0..2), and no CUDA or Vulkan device has a "
            "UUID starting so");
}

TEST(DeviceToken, ATokenThatIsBothAnIndexAndAUuidPrefixIsRefusedNamingBoth) {
  DeviceInventory inv;
  for (int k = 0; k < 1300; ++k) inv.cuda.push_back(gpu(Api::cuda, k, 0, "GPU"));
  inv.cuda[7].uuid[0] = 0x12;  // UUID 12000000-...: "1200" is its prefix and index 1200
  const std::string why = refusal(inv, "1200");
  EXPECT_NE(why.find("is both CUDA device index 1200 and a UUID prefix of CUDA device 7 "
                     "(12000000-"),
            std::string::npos)
      << why;
  EXPECT_EQ(cuvk::choose_devices(inv, "1201").cuda->index, 1201);
}

TEST(DeviceToken, AUuidPrefixHasAtLeastFourHexDigits) {
  const DeviceInventory inv = node();  // GPU A's UUID starts 0a000000-
  EXPECT_EQ(refusal(inv, "0a"), "--device '0a': a UUID prefix needs at least 4 hex digits");
  EXPECT_EQ(cuvk::choose_devices(inv, "0a00").cuda->name, "GPU A");
  EXPECT_EQ(refusal(inv, "zz"), "--device 'zz' is neither a device index nor a UUID prefix");
}
