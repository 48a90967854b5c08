// libFuzzer target for whole run files as `cuvk report` and `cuvk parity --from` read them: the
// input is written to a file and read through read_results (the chunked, capped file reader, the
// checks and the field table), then printed as both commands print it, in every format. Any
// input must be read and printed or be refused with a cuvk::Error (UsageError included);
// anything else escaping, a crash or a sanitizer report fails.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "error.h"
#include "merge_printer.h"
#include "parity.h"
#include "parity_printer.h"
#include "printing.h"
#include "run_reader.h"

namespace {

// One scratch file per process, removed at exit.
const std::string& scratch_path() {
  static const std::string path = [] {
    char name[] = "/tmp/cuvk_fuzz_run_XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    static std::string kept = name;
    std::atexit([] { unlink(kept.c_str()); });
    return kept;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream f(scratch_path(), std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const cuvk::RunFile run = cuvk::read_results(scratch_path());
    const cuvk::ParityResult parity = cuvk::compare_apis(run.rows, cuvk::kDefaultTolerance);
    for (cuvk::Format f :
         {cuvk::Format::table, cuvk::Format::md, cuvk::Format::csv, cuvk::Format::json}) {
      (void)cuvk::format_merged({run}, f);
      (void)cuvk::format_parity(run, parity, nullptr, f);
    }
  } catch (const cuvk::Error&) {
    // refused with a one-line reason: the expected outcome for bad input
  }
  return 0;
}
