// A GPU's health as NVML reports it (issue 35's node view), and where the host thread runs: what a
// person who runs a node checks before trusting a board's numbers. NVML is opened at run time
// (libnvidia-ml.so.1, or CUVK_NVML_LIB for tests), so cuvk runs where there is none.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "backend.h"

namespace cuvk {

struct GpuHealth {
  bool available = false;  // NVML answered for this UUID
  std::string why;         // why not ("NVML (libnvidia-ml.so.1) not found", no such UUID)
  // In print order: ecc_uncorrected_volatile, ecc_corrected_volatile, ecc_uncorrected_aggregate,
  // retired_pages, remapped_rows, pcie, clocks_mhz, power_w, temperature_c,
  // clock_event_reasons, numa_node. A value the device does not report reads "not supported".
  std::vector<std::pair<std::string, std::string>> fields;
};

GpuHealth read_gpu_health(const Uuid& uuid);

// How NVML says GPUs `a` and `b` are linked (`cuvk p2p`'s probe), in words: their topology's
// common ancestor (nvmlDeviceGetTopologyCommonAncestor: internal, single/multiple PCIe switch,
// host bridge, NUMA node, system) and the P2P status for reads and over NVLink
// (nvmlDeviceGetP2PStatus); or why NVML cannot say.
std::string read_gpu_link(const Uuid& a, const Uuid& b);

// The calling thread's CPU and NUMA node (getcpu) and how many CPUs it may run on; -1 unknown.
struct HostPlacement {
  int cpu = -1;
  int numa_node = -1;
  int allowed_cpus = 0;
};
HostPlacement host_placement();

// What a run records of its node (the run file's `node`): the measured GPU's health read after
// the rows (ECC counts the run may have raised), its NUMA node and the host thread's placement.
struct NodeView {
  bool gpu = false;  // a GPU was measured (not a CPU device)
  GpuHealth health;
  int gpu_numa_node = -1;  // sysfs, from the CUDA device's PCI address; -1 unknown
  HostPlacement host_thread;
};
NodeView read_node_view(const DeviceInfo* gpu);  // null or a CPU device: the host thread only

// The NUMA node of a PCI device ("0000:1B:00.0", any case; from sysfs), -1 when unknown.
int pci_numa_node(const std::string& pci_bus_id);

}  // namespace cuvk
