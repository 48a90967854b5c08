// One NVML reading of a GPU's clocks, throttle reasons, temperature and power: what a row records
// around its timed repetitions (row.h). Reading it is host/core/node's (nvml.h).
#pragma once

#include <cstdint>

namespace cuvk {

struct ClockSample {
  std::uint32_t sm_mhz = 0;
  std::uint32_t mem_mhz = 0;
  std::uint64_t event_reasons = 0;  // NVML clock event (throttle) reason bits
  std::uint32_t temperature_c = 0;
  std::uint32_t power_mw = 0;
};

}  // namespace cuvk
