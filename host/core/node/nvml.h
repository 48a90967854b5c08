// Clocks and throttle reasons through NVML, opened at run time (libnvidia-ml.so.1 ships with the
// NVIDIA driver), so cuvk needs no NVML at build time and runs where there is none.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backend.h"
#include "clock_sample.h"

namespace cuvk {

// Reasons that mean the clock was held down (power cap, thermal or hardware slowdown), as opposed
// to idle or application-clock settings.
constexpr std::uint64_t kNvmlSwPowerCap = 0x4, kNvmlHwSlowdown = 0x8, kNvmlSwThermal = 0x20,
                        kNvmlHwThermal = 0x40, kNvmlHwPowerBrake = 0x80;
constexpr std::uint64_t kThrottleMask =
    kNvmlSwPowerCap | kNvmlHwSlowdown | kNvmlSwThermal | kNvmlHwThermal | kNvmlHwPowerBrake;
std::string describe_reasons(std::uint64_t reasons);  // "sw_power_cap,hw_slowdown" or "none"

class ClockMonitor {
 public:
  virtual ~ClockMonitor() = default;
  virtual ClockSample sample() = 0;
  virtual std::uint32_t max_sm_mhz() const = 0;
  virtual std::uint32_t max_mem_mhz() const = 0;
};

// A monitor for the GPU with this UUID, or nullopt-like null with `why` set (no NVML, no device).
std::unique_ptr<ClockMonitor> open_clock_monitor(const Uuid& uuid, std::string* why);

}  // namespace cuvk
