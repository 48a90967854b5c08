// Issue 37, class 1: nothing made on a device that hung is destroyed (vulkan/vk_raii.h). A
// timed-out submission may still run (on lavapipe another host thread reads and writes the
// device's memory): freeing a row's buffers or a pipeline under it crashed one run in five.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "vk_raii.h"

namespace {

int g_destroyed = 0;
void VKAPI_CALL count_destroy(VkDevice, VkBuffer, const VkAllocationCallbacks*) {
  ++g_destroyed;
}

VkDevice fake_device(std::uintptr_t n) {
  return reinterpret_cast<VkDevice>(n);
}
VkBuffer fake_buffer(std::uint64_t n) {
  VkBuffer b{};
  static_assert(sizeof(b) == sizeof(n));
  std::memcpy(&b, &n, sizeof(n));
  return b;
}

TEST(VulkanHung, ADeviceThatHungKeepsWhatWasMadeOnItOthersStillFree) {
  VolkDeviceTable table{};
  table.vkDestroyBuffer = count_destroy;
  const VkDevice healthy = fake_device(0x1000);
  const VkDevice hung = fake_device(0x2000);
  g_destroyed = 0;
  { const cuvk::vk::Buffer before(&table, hung, fake_buffer(1)); }
  EXPECT_EQ(g_destroyed, 1) << "a device that has not hung frees its buffers";
  ASSERT_FALSE(cuvk::vk::device_hung(hung));
  cuvk::vk::Buffer made_before(&table, hung, fake_buffer(2));
  cuvk::vk::mark_device_hung(hung);
  EXPECT_TRUE(cuvk::vk::device_hung(hung));
  EXPECT_FALSE(cuvk::vk::device_hung(healthy));
  g_destroyed = 0;
  made_before.reset();
  { const cuvk::vk::Buffer after(&table, hung, fake_buffer(3)); }
  EXPECT_EQ(g_destroyed, 0) << "a buffer of the hung device was destroyed under its work";
  { const cuvk::vk::Buffer other(&table, healthy, fake_buffer(4)); }
  EXPECT_EQ(g_destroyed, 1) << "another device's buffer must still be freed";
}

}  // namespace
