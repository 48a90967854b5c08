// The node view's GPU health (host/core/node/gpu_health.h) read through a stand-in NVML
// (tests/unit/core/fake_nvml.cpp, FAKE_NVML_PATH), and the host thread's placement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "gpu_health.h"

namespace cuvk {
namespace {

Uuid uuid_of(unsigned char first) {
  Uuid u{};
  u[0] = first;
  return u;
}

TEST(GpuHealth, EveryFieldIsReadFromNvmlAndWhatItLacksIsSaid) {
  setenv("CUVK_NVML_LIB", FAKE_NVML_PATH, 1);
  const GpuHealth h = read_gpu_health(uuid_of(0x12));
  ASSERT_TRUE(h.available) << h.why;
  std::map<std::string, std::string> f(h.fields.begin(), h.fields.end());
  EXPECT_EQ(f["ecc_uncorrected_volatile"], "2");
  EXPECT_EQ(f["ecc_corrected_volatile"], "11");
  EXPECT_EQ(f["ecc_uncorrected_aggregate"], "7");
  EXPECT_EQ(f["retired_pages"], "4 (3 multiple single-bit, 1 double-bit)");
  EXPECT_EQ(f["remapped_rows"], "not supported");
  EXPECT_EQ(f["pcie"], "gen 4 x16 (max gen 5 x16) BELOW ITS MAXIMUM");
  EXPECT_EQ(f["clocks_mhz"], "sm 1755 (max 1980), memory 2619 (max 2619)");
  EXPECT_EQ(f["power_w"], "72.3 of 700 limit");
  EXPECT_EQ(f["temperature_c"], "31");
  EXPECT_EQ(f["clock_event_reasons"], "sw_power_cap");
  EXPECT_EQ(f["numa_node"], "not in this NVML (nvmlDeviceGetNumaNodeId)");
  EXPECT_EQ(h.fields.size(), 11u);
  unsetenv("CUVK_NVML_LIB");
}

TEST(GpuHealth, NoNvmlOrNoSuchGpuIsSaidNotGuessed) {
  setenv("CUVK_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
  GpuHealth h = read_gpu_health(uuid_of(0x12));
  EXPECT_FALSE(h.available);
  EXPECT_EQ(h.why, "NVML (libnvidia-ml.so.1) not found");
  setenv("CUVK_NVML_LIB", FAKE_NVML_PATH, 1);
  Uuid dead{};
  dead[0] = 0xde;
  dead[1] = 0xad;
  h = read_gpu_health(dead);
  EXPECT_FALSE(h.available);
  EXPECT_NE(h.why.find("NVML has no device with UUID GPU-dead"), std::string::npos) << h.why;
  unsetenv("CUVK_NVML_LIB");
}

TEST(GpuHealth, TheHostThreadKnowsWhereItRuns) {
  const HostPlacement p = host_placement();
  EXPECT_GE(p.cpu, 0);
  EXPECT_GE(p.numa_node, 0);
  EXPECT_GE(p.allowed_cpus, 1);
  EXPECT_EQ(pci_numa_node("not a pci address"), -1);
}

// `cuvk p2p`'s probe of how two GPUs are linked, through the stand-in NVML; and its absence said.
TEST(GpuHealth, TheLinkBetweenTwoGpusIsReadFromNvml) {
  setenv("CUVK_NVML_LIB", FAKE_NVML_PATH, 1);
  EXPECT_EQ(read_gpu_link(uuid_of(0x12), uuid_of(0x34)),
            "common ancestor: a PCIe host bridge; P2P read: ok; P2P over NVLink: not available "
            "(status 4)");
  Uuid dead{};
  dead[0] = 0xde;
  dead[1] = 0xad;
  EXPECT_NE(read_gpu_link(uuid_of(0x12), dead).find("NVML has no device with UUID GPU-dead"),
            std::string::npos);
  setenv("CUVK_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
  EXPECT_EQ(read_gpu_link(uuid_of(0x12), uuid_of(0x34)), "NVML (libnvidia-ml.so.1) not found");
  unsetenv("CUVK_NVML_LIB");
}

}  // namespace
}  // namespace cuvk
