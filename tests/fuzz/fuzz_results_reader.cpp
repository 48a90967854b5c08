// libFuzzer target for the results-JSON reader: any input must either parse or be refused with a
// cuvk::Error (UsageError included); anything else escaping, a crash or a sanitizer report fails.
#include <cstddef>
#include <cstdint>
#include <string>

#include "error.h"
#include "run_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    cuvk::parse_results_all(text, "fuzz-input");  // a node file: each GPU's run (issue 35)
  } catch (const cuvk::Error&) {
    // refused with a one-line reason: the expected outcome for bad input
  }
  return 0;
}
