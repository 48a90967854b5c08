#include "timestamps.h"

#include <fmt/format.h>

#include "error.h"

namespace cuvk::timing {

void throw_out_of_order(std::uint64_t start, std::uint64_t end, std::uint32_t valid_bits) {
  throw Error(fmt::format("timestamps out of order: end {} is before start {} on a {}-bit counter",
                          end, start, valid_bits));
}

// std::to_string's fixed form ("-1.000000"), as the message always said.
void throw_events_out_of_order(float elapsed_ms) {
  throw Error(fmt::format(
      "CUDA events out of order: the stop event is {:f} ms after the start event", elapsed_ms));
}

}  // namespace cuvk::timing
