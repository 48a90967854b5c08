// Recorded CUPTI data, evaluated offline with CUPTI's host API (no GPU needed): the decode of
// the test fixtures captured on a GPU (CUVK_COUNTERS_DUMP, CUVK_COUNTERS_DUMP_RAW), and a chip's
// own metric list for checking cuvk's metric names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuvk {

enum class CounterKind { range_profiler, pm_sampling };

// The chip's base metrics (every type), or empty with `why` set where CUPTI cannot say.
std::vector<std::string> chip_metrics(CounterKind kind, const std::string& chip,
                                      const std::vector<std::uint8_t>& availability,
                                      std::string* why);

// The passes `metrics` need in one configuration on `chip` (replays of a range; PM sampling takes
// one), or 0 with `why` set.
std::size_t config_passes(CounterKind kind, const std::string& chip,
                          const std::vector<std::uint8_t>& availability,
                          const std::vector<std::string>& metrics, std::string* why);

// `metrics` of ranges (samples) [0, ranges) of a counter data image, or empty with `why` set.
std::vector<std::vector<double>> evaluate_counter_data(
    CounterKind kind, const std::string& chip, const std::vector<std::uint8_t>& availability,
    const std::vector<std::string>& metrics, const std::vector<std::uint8_t>& data,
    std::size_t ranges, std::string* why);

}  // namespace cuvk
