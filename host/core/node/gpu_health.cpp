#include "gpu_health.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "nvml.h"

namespace cuvk {
namespace {

using nvmlReturn = int;
using nvmlDevice = void*;
constexpr nvmlReturn kOk = 0, kNotSupported = 3, kInsufficientSize = 7;
constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;
constexpr int kEccCorrected = 0, kEccUncorrected = 1, kEccVolatile = 0, kEccAggregate = 1;
constexpr int kRetiredMultipleSingleBit = 0, kRetiredDoubleBit = 1;
constexpr const char* kNotSupportedText = "not supported";

// The NVML library, initialised while this lives; every entry point but init is optional.
class Nvml {
 public:
  explicit Nvml(std::string* why) {
    const char* path = std::getenv("CUVK_NVML_LIB");
    lib_ = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      *why = "NVML (libnvidia-ml.so.1) not found";
      return;
    }
    const auto init = sym<nvmlReturn (*)()>("nvmlInit_v2");
    if (!init || init() != kOk) {
      *why = "nvmlInit_v2 failed";
      return;
    }
    initialised_ = true;
  }
  ~Nvml() {
    if (initialised_)
      if (const auto shutdown = sym<nvmlReturn (*)()>("nvmlShutdown")) shutdown();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  bool ready() const { return initialised_; }
  template <typename F>
  F sym(const char* name) const {
    return lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
  }

 private:
  void* lib_ = nullptr;
  bool initialised_ = false;
};

using U = unsigned;
using ULL = unsigned long long;

// Calls NVML's `name` with the device and the rest, into `out`; "not supported" (or why) when not.
template <typename... Args>
std::string call(const Nvml& nvml, const char* name, nvmlDevice d, Args... args) {
  const auto f = nvml.sym<nvmlReturn (*)(nvmlDevice, Args...)>(name);
  if (!f) return std::string("not in this NVML (") + name + ")";
  const nvmlReturn r = f(d, args...);
  if (r == kOk || r == kInsufficientSize) return "";
  return r == kNotSupported ? kNotSupportedText : fmt::format("{} failed ({})", name, r);
}

std::string ecc(const Nvml& nvml, nvmlDevice d, int type, int counter) {
  ULL n = 0;
  const std::string e = call(nvml, "nvmlDeviceGetTotalEccErrors", d, type, counter, &n);
  return e.empty() ? std::to_string(n) : e;
}

std::string retired(const Nvml& nvml, nvmlDevice d) {
  U single = 0, dbl = 0;
  ULL* none = nullptr;
  std::string e =
      call(nvml, "nvmlDeviceGetRetiredPages", d, kRetiredMultipleSingleBit, &single, none);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetRetiredPages", d, kRetiredDoubleBit, &dbl, none);
  return e.empty()
             ? fmt::format("{} ({} multiple single-bit, {} double-bit)", single + dbl, single, dbl)
             : e;
}

std::string remapped(const Nvml& nvml, nvmlDevice d) {
  U corr = 0, unc = 0, pending = 0, failure = 0;
  const std::string e = call(nvml, "nvmlDeviceGetRemappedRows", d, &corr, &unc, &pending, &failure);
  if (!e.empty()) return e;
  return fmt::format("{} correctable, {} uncorrectable{}{}", corr, unc,
                     pending ? ", a remap pending (reset needed)" : "",
                     failure ? ", a remap FAILED" : "");
}

std::string pcie(const Nvml& nvml, nvmlDevice d) {
  U gen = 0, width = 0, max_gen = 0, max_width = 0;
  std::string e = call(nvml, "nvmlDeviceGetCurrPcieLinkGeneration", d, &gen);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetCurrPcieLinkWidth", d, &width);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetMaxPcieLinkGeneration", d, &max_gen);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetMaxPcieLinkWidth", d, &max_width);
  if (!e.empty()) return e;
  return fmt::format("gen {} x{} (max gen {} x{}){}", gen, width, max_gen, max_width,
                     gen < max_gen || width < max_width ? " BELOW ITS MAXIMUM" : "");
}

std::string clocks(const Nvml& nvml, nvmlDevice d) {
  U sm = 0, mem = 0, max_sm = 0, max_mem = 0;
  std::string e = call(nvml, "nvmlDeviceGetClockInfo", d, kClockSm, &sm);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetClockInfo", d, kClockMem, &mem);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetMaxClockInfo", d, kClockSm, &max_sm);
  if (e.empty()) e = call(nvml, "nvmlDeviceGetMaxClockInfo", d, kClockMem, &max_mem);
  if (!e.empty()) return e;
  return fmt::format("sm {} (max {}), memory {} (max {})", sm, max_sm, mem, max_mem);
}

std::string power(const Nvml& nvml, nvmlDevice d) {
  U mw = 0, limit = 0;
  std::string e = call(nvml, "nvmlDeviceGetPowerUsage", d, &mw);
  if (!e.empty()) return e;
  char text[64];
  e = call(nvml, "nvmlDeviceGetEnforcedPowerLimit", d, &limit);
  if (e.empty())
    std::snprintf(text, sizeof text, "%.1f of %.0f limit", mw / 1000.0, limit / 1000.0);
  else
    std::snprintf(text, sizeof text, "%.1f", mw / 1000.0);
  return text;
}

std::string reasons_text(const Nvml& nvml, nvmlDevice d) {
  ULL bits = 0;
  std::string e = call(nvml, "nvmlDeviceGetCurrentClocksEventReasons", d, &bits);
  if (!e.empty()) e = call(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", d, &bits);
  return e.empty() ? describe_reasons(bits) : e;
}

}  // namespace

namespace {

const char* topology_level(int level) {
  switch (level) {
    case 0: return "internal (same board)";
    case 10: return "one PCIe switch";
    case 20: return "several PCIe switches";
    case 30: return "a PCIe host bridge";
    case 40: return "the NUMA node (across host bridges)";
    case 50: return "the system (across NUMA nodes)";
    default: return "unknown";
  }
}

// nvmlDeviceGetP2PStatus for capability `index` (0 read, 2 NVLink): "ok" or NVML's status.
std::string p2p_status(const Nvml& nvml, nvmlDevice a, nvmlDevice b, int index) {
  int status = -1;
  const std::string e = call(nvml, "nvmlDeviceGetP2PStatus", a, b, index, &status);
  if (!e.empty()) return e;
  return status == 0 ? "ok" : fmt::format("not available (status {})", status);
}

}  // namespace

std::string read_gpu_link(const Uuid& a, const Uuid& b) {
  std::string why;
  const Nvml nvml(&why);
  if (!nvml.ready()) return why;
  const auto by_uuid =
      nvml.sym<nvmlReturn (*)(const char*, nvmlDevice*)>("nvmlDeviceGetHandleByUUID");
  nvmlDevice da = nullptr, db = nullptr;
  const std::string ia = "GPU-" + format_uuid(a), ib = "GPU-" + format_uuid(b);
  if (!by_uuid || by_uuid(ia.c_str(), &da) != kOk) return "NVML has no device with UUID " + ia;
  if (!by_uuid || by_uuid(ib.c_str(), &db) != kOk) return "NVML has no device with UUID " + ib;
  int level = -1;
  const std::string e = call(nvml, "nvmlDeviceGetTopologyCommonAncestor", da, db, &level);
  return "common ancestor: " + (e.empty() ? std::string(topology_level(level)) : e) +
         "; P2P read: " + p2p_status(nvml, da, db, 0) +
         "; P2P over NVLink: " + p2p_status(nvml, da, db, 2);
}

GpuHealth read_gpu_health(const Uuid& uuid) {
  GpuHealth h;
  const Nvml nvml(&h.why);
  if (!nvml.ready()) return h;
  const auto by_uuid =
      nvml.sym<nvmlReturn (*)(const char*, nvmlDevice*)>("nvmlDeviceGetHandleByUUID");
  nvmlDevice d = nullptr;
  const std::string id = "GPU-" + format_uuid(uuid);
  if (!by_uuid || by_uuid(id.c_str(), &d) != kOk) {
    h.why = "NVML has no device with UUID " + id;
    return h;
  }
  h.available = true;
  U v = 0;
  const std::string temp_error = call(nvml, "nvmlDeviceGetTemperature", d, kTemperatureGpu, &v);
  const std::string temperature = temp_error.empty() ? std::to_string(v) : temp_error;
  const std::string numa_error = call(nvml, "nvmlDeviceGetNumaNodeId", d, &v);
  h.fields = {{"ecc_uncorrected_volatile", ecc(nvml, d, kEccUncorrected, kEccVolatile)},
              {"ecc_corrected_volatile", ecc(nvml, d, kEccCorrected, kEccVolatile)},
              {"ecc_uncorrected_aggregate", ecc(nvml, d, kEccUncorrected, kEccAggregate)},
              {"retired_pages", retired(nvml, d)},
              {"remapped_rows", remapped(nvml, d)},
              {"pcie", pcie(nvml, d)},
              {"clocks_mhz", clocks(nvml, d)},
              {"power_w", power(nvml, d)},
              {"temperature_c", temperature},
              {"clock_event_reasons", reasons_text(nvml, d)},
              {"numa_node", numa_error.empty() ? std::to_string(v) : numa_error}};
  return h;
}

HostPlacement host_placement() {
  HostPlacement p;
  unsigned cpu = 0, node = 0;
  if (getcpu(&cpu, &node) == 0) {
    p.cpu = static_cast<int>(cpu);
    p.numa_node = static_cast<int>(node);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) p.allowed_cpus = CPU_COUNT(&set);
  return p;
}

int pci_numa_node(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (id.size() == 16 && id.compare(0, 4, "0000") == 0) id = id.substr(4);  // NVML's 8-digit domain
  std::ifstream f("/sys/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  if (!(f >> node)) return -1;
  return node;
}

NodeView read_node_view(const DeviceInfo* gpu) {
  NodeView v;
  v.host_thread = host_placement();
  if (gpu == nullptr || gpu->is_cpu) return v;
  v.gpu = true;
  v.health = read_gpu_health(gpu->uuid);
  for (const auto& [k, value] : gpu->properties)
    if (k == "pci_bus_id") v.gpu_numa_node = pci_numa_node(value);
  return v;
}

}  // namespace cuvk
