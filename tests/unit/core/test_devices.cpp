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
