#include "nvml.h"

#include <dlfcn.h>

#include <utility>

namespace cuvk {
namespace {

// The handful of NVML entry points cuvk uses, declared by their documented C ABI.
using nvmlReturn = int;
using nvmlDevice = void*;
constexpr nvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2, kNvmlTemperatureGpu = 0;

class NvmlMonitor final : public ClockMonitor {
 public:
  static std::unique_ptr<ClockMonitor> open(const Uuid& uuid, std::string* why) {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      *why = "NVML (libnvidia-ml.so.1) not found";
      return nullptr;
    }
    std::unique_ptr<NvmlMonitor> m(new NvmlMonitor(lib));
    if (!m->load(why)) return nullptr;
    if (m->init_() != kNvmlSuccess) {
      *why = "nvmlInit_v2 failed";
      return nullptr;
    }
    m->initialised_ = true;
    const std::string id = "GPU-" + format_uuid(uuid);
    if (m->by_uuid_(id.c_str(), &m->device_) != kNvmlSuccess) {
      *why = "NVML has no device with UUID " + id;
      return nullptr;
    }
    m->get_max_(m->device_, kNvmlClockSm, &m->max_sm_);
    m->get_max_(m->device_, kNvmlClockMem, &m->max_mem_);
    return m;
  }

  ~NvmlMonitor() override {
    if (initialised_) shutdown_();
    dlclose(lib_);
  }

  ClockSample sample() override {
    ClockSample s;
    unsigned v = 0;
    if (get_clock_(device_, kNvmlClockSm, &v) == kNvmlSuccess) s.sm_mhz = v;
    if (get_clock_(device_, kNvmlClockMem, &v) == kNvmlSuccess) s.mem_mhz = v;
    unsigned long long reasons = 0;
    if (reasons_(device_, &reasons) == kNvmlSuccess) s.event_reasons = reasons;
    if (temperature_ && temperature_(device_, kNvmlTemperatureGpu, &v) == kNvmlSuccess)
      s.temperature_c = v;
    if (power_ && power_(device_, &v) == kNvmlSuccess) s.power_mw = v;
    return s;
  }
  std::uint32_t max_sm_mhz() const override { return max_sm_; }
  std::uint32_t max_mem_mhz() const override { return max_mem_; }

 private:
  explicit NvmlMonitor(void* lib) : lib_(lib) {}

  template <typename F>
  bool sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    return f != nullptr;
  }

  bool load(std::string* why) {
    bool ok = sym(init_, "nvmlInit_v2") && sym(shutdown_, "nvmlShutdown") &&
              sym(by_uuid_, "nvmlDeviceGetHandleByUUID") && sym(get_clock_, "nvmlDeviceGetClockInfo") &&
              sym(get_max_, "nvmlDeviceGetMaxClockInfo");
    // Renamed in newer drivers; the old name is kept as an alias.
    ok = ok && (sym(reasons_, "nvmlDeviceGetCurrentClocksEventReasons") ||
                sym(reasons_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    sym(temperature_, "nvmlDeviceGetTemperature");
    sym(power_, "nvmlDeviceGetPowerUsage");
    if (!ok) *why = "NVML lacks an entry point cuvk needs";
    return ok;
  }

  void* lib_;
  bool initialised_ = false;
  nvmlDevice device_ = nullptr;
  unsigned max_sm_ = 0, max_mem_ = 0;
  nvmlReturn (*init_)() = nullptr;
  nvmlReturn (*shutdown_)() = nullptr;
  nvmlReturn (*by_uuid_)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*get_clock_)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*get_max_)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*reasons_)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*temperature_)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*power_)(nvmlDevice, unsigned*) = nullptr;
};

}  // namespace

std::string describe_reasons(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {0x1, "gpu_idle"},        {0x2, "applications_clocks"}, {kNvmlSwPowerCap, "sw_power_cap"},
      {kNvmlHwSlowdown, "hw_slowdown"}, {0x10, "sync_boost"},  {kNvmlSwThermal, "sw_thermal"},
      {kNvmlHwThermal, "hw_thermal"},   {kNvmlHwPowerBrake, "hw_power_brake"},
      {0x100, "display_clocks"}};
  std::string s;
  for (const auto& [bit, name] : kNames)
    if (reasons & bit) s += (s.empty() ? "" : ",") + std::string(name);
  return s.empty() ? "none" : s;
}

std::unique_ptr<ClockMonitor> open_clock_monitor(const Uuid& uuid, std::string* why) {
  return NvmlMonitor::open(uuid, why);
}

}  // namespace cuvk
