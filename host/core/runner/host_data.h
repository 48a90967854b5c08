// The host side of correctness: fresh random inputs, the poisoned expected output, the bit-exact
// check of every element, and the output hash that tells whether two APIs wrote the same bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "row.h"
#include "span.h"

namespace cuvk {

// Fresh non-zero random floats: a random sign and a random mantissa in [1, 2); spread over the
// cores. The same (words, seed) always gives the same values.
std::vector<float> random_input(std::uint64_t words, std::uint64_t seed);
// The same values written into `out` (random_input(out.size(), seed) without the allocation).
void random_input_into(Span<float> out, std::uint64_t seed);

std::uint64_t splitmix64(std::uint64_t x);

// body(lo, hi) over [0, count) split across the cores (at most 16 threads), joined before return.
void parallel_ranges(std::uint64_t count,
                     const std::function<void(std::uint64_t, std::uint64_t)>& body);
// The host memory this process may use at most: the least of the physical memory, the address
// space and data limits (ulimit -v, -d) and the cgroup's memory.max, where each is known.
// `why` (when given) names the limit that decided ("ulimit -v", "physical memory", ...).
std::uint64_t host_memory_limit_bytes(std::string* why = nullptr);
// A clause for the environment error `message`: " (host memory is limited to N MiB by ulimit -v:
// likely out of host memory)" where an address-space or data limit (ulimit -v, -d) is set and the
// message shows an allocation that failed ("Cannot allocate memory", "failed to map segment", an
// out-of-memory code) or a Vulkan driver that could not start (lavapipe under such a limit says
// only VK_ERROR_INITIALIZATION_FAILED); else "". A full disk, a missing driver or a read-only
// folder is not blamed on memory.
std::string host_memory_limit_note(const std::string& message);

float poison_float();  // kPoisonWord as a float: a NaN no kernel produces from the inputs

// Bitwise comparison of every element: data movement and the +10/+20 adds are exact in IEEE
// float, so any difference is an error. Sets row.checked, mismatches, first_bad_index, verified.
void verify(Span<const float> got, Span<const float> expected, ResultRow& row);

// The hash cuvk records for an output buffer: XXH3-64 of its bytes (libxxhash), about 20 GB/s on
// one core, where the FNV-1a 64 of earlier versions took 0.3 s for a 256 MB buffer.
OutputHash hash_output(const void* data, std::size_t bytes);

// FNV-1a 64: the hash of files written before XXH3; kept so tests can make such files.
std::uint64_t fnv1a64(const void* data, std::size_t bytes);

}  // namespace cuvk
