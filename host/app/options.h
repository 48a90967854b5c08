// What every command's options share, parsed once they are values: the documented exit codes,
// the parsers of the shared options, the process's own command line. Used by host/app's commands
// and by host/cli, which gathers the options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "printing.h"

namespace cuvk {

// Documented exit codes (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,       // a verification failure (a `failed` row)
  kExitUsage = 2,        // bad arguments
  kExitDiffers = 1,      // parity: not all SAME / outputs differ; baseline: a SLOWER row
  kExitNotCompared = 2,  // parity: an API (or row) unavailable, so nothing to compare
  kExitEnvironment = 3,  // nothing could run: no usable API at all, or an I/O error
  // SIGINT, SIGTERM, SIGHUP: 128 + the signal's number (interrupted_exit_code, interrupt.h), for
  // every command; a run prints its completed rows and writes no result file.
};

// The longest `error:` line cuvk prints: text from files and drivers is cut there.
inline constexpr std::size_t kMaxErrorLine = 1000;
// The most lines of a compiler's log printed below an `error:` line.
inline constexpr std::size_t kMaxErrorDetailLines = 200;

// The command line this process was started with, argv[0] first (cuvk run --concurrent re-runs
// it, one child per GPU); empty before cli_main sets
// it (set_process_args).
const std::vector<std::string>& process_args();
void set_process_args(int argc, const char* const* argv);

// Shared by the subcommands.
Format parse_format(const std::string& text);                            // table|md|csv|json
std::vector<Api> parse_apis(const std::vector<std::string>& names);      // cuda|vulkan|all
std::vector<Binding> parse_vk_bindings(const std::vector<std::string>& names);  // descriptor|bda|all
std::vector<std::string> parse_tests(const std::vector<std::string>& names);    // catalogue order
// `s` cut at every `sep`; a trailing separator gives a last empty item ("a," -> "a", "").
std::vector<std::string> split(const std::string& s, char sep);
std::string now_utc();                         // ISO 8601
std::string hostname();

// "0,1,2", "0-32", "0-32:4" and mixtures ("0-8,16,31-32"); throws UsageError naming `what` on
// bad syntax. Expands at most `cap` values: the whole text is checked, but a longer list (even
// "0-4294967295") costs no memory and comes back with `cap` values. Callers pass one more than
// the bound validate_config judges (runner.h), so the excess is refused there, with the bound.
std::vector<std::uint32_t> parse_uint_list(const std::string& text, const std::string& what,
                                           std::size_t cap);

// A count with an optional binary suffix: "1048576", "1M", "64M", "2G" (k, M, G = 2^10, 2^20, 2^30).
std::uint64_t parse_count(const std::string& text, const std::string& what);

// `--n`'s sizes (size_list.cpp), each a count as parse_count reads it, from 1 to 2^32 - 1, in the
// order given, each once: "16k,1M,64M", arithmetic ranges "1M-4M:1M" (step 1 without ':') and
// log ranges "1k-256M:x4" (each size the one before times 4, up to 256M; factor at least 2).
// More than `cap` sizes, a descending range, step 0 or a bad item: UsageError naming `what`.
std::vector<std::uint32_t> parse_size_list(const std::string& text, const std::string& what,
                                           std::size_t cap);

}  // namespace cuvk
