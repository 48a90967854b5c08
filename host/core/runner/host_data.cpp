#include "host_data.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <utility>
#include <cstring>
#include <system_error>
#include <thread>

// Header-only (the Debian package libxxhash-dev): the binary needs no libxxhash.so where it runs.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fmt/format.h>

#include "catalogue.h"
#include "util.h"

namespace cuvk {
namespace {

constexpr unsigned kMaxWorkers = 16;

template <typename F>
void parallel_for(std::uint64_t count, F&& body) {
  const unsigned workers = std::max(1u, std::min(kMaxWorkers, std::thread::hardware_concurrency()));
  const std::uint64_t chunk = ceil_div<std::uint64_t>(count, workers);
  std::vector<std::thread> threads;
  threads.reserve(workers);
  // A thread that cannot be started (out of memory, a thread limit) is no reason to stop: the
  // calling thread does that chunk itself. The started threads are always joined, so no joinable
  // std::thread is ever destroyed (which would call std::terminate).
  for (unsigned w = 0; w < workers; ++w) {
    const std::uint64_t lo = w * chunk, hi = std::min(count, lo + chunk);
    if (lo >= hi) break;
    try {
      threads.emplace_back([lo, hi, &body] { body(lo, hi); });
    } catch (const std::system_error&) {
      body(lo, hi);
    }
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

void parallel_ranges(std::uint64_t count,
                     const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  parallel_for(count, body);
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void random_input_into(Span<float> v, std::uint64_t seed) {
  parallel_for(v.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
      const std::uint32_t bits = static_cast<std::uint32_t>(((h >> 63) << 31) | 0x3F800000u |
                                                            ((h >> 20) & 0x7FFFFFu));
      std::memcpy(&v[i], &bits, sizeof bits);
    }
  });
}

std::vector<float> random_input(std::uint64_t words, std::uint64_t seed) {
  std::vector<float> v(words);
  random_input_into(v, seed);
  return v;
}

std::uint64_t host_memory_limit_bytes(std::string* why) {
  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  std::string name = "no limit";
  const auto take = [&](std::uint64_t v, const char* what) {
    if (v < limit) {
      limit = v;
      name = what;
    }
  };
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    take(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page), "physical memory");
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    take(r.rlim_cur, "the address-space limit (ulimit -v)");
  if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    take(r.rlim_cur, "the data-size limit (ulimit -d)");
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::uint64_t cg = 0;
  if (cgroup >> cg) take(cg, "the cgroup's memory.max");  // "max" reads as no number
  if (why) *why = name;
  return limit;
}

namespace {

bool shows_memory_failure(const std::string& message) {
  std::string m = message;
  std::transform(m.begin(), m.end(), m.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* sign :
       {"cannot allocate memory", "out of memory", "out of host memory", "out_of_host_memory",
        "failed to map segment", "bad_alloc", "enomem", "vk_error_initialization_failed"})
    if (m.find(sign) != std::string::npos) return true;
  return false;
}

// A driver the loader could not use: under an address-space limit the NVIDIA Vulkan driver
// cannot map its libraries and the loader reports it so (seen on an H100 under ulimit -v 60000):
// the limit may be why, or there may be no driver at all.
bool shows_driver_not_loaded(const std::string& message) {
  return message.find("VK_ERROR_INCOMPATIBLE_DRIVER") != std::string::npos;
}

}  // namespace

std::string host_memory_limit_note(const std::string& message) {
  const bool memory = shows_memory_failure(message);
  if (!memory && !shows_driver_not_loaded(message)) return {};
  for (const auto& [resource, flag] : {std::pair{RLIMIT_AS, "-v"}, std::pair{RLIMIT_DATA, "-d"}}) {
    rlimit r{};
    if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      return fmt::format(" (host memory is limited to {} MiB by ulimit {}{}", r.rlim_cur >> 20,
                         flag,
                         memory ? ": likely out of host memory)"
                                : ": the driver may not have loaded for lack of it)");
  }
  return {};
}

float poison_float() {
  float f;
  std::memcpy(&f, &kPoisonWord, sizeof f);
  return f;
}

OutputHash hash_output(const void* data, std::size_t bytes) {
  return {HashKind::xxh3_64, XXH3_64bits(data, bytes)};
}

std::uint64_t fnv1a64(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

void verify(Span<const float> got, Span<const float> expected, ResultRow& row) {
  row.checked = expected.size();
  // Every element, spread over the cores: per chunk the count of wrong elements and the first.
  const unsigned chunks = std::max(1u, std::min(kMaxWorkers, std::thread::hardware_concurrency()));
  std::vector<std::uint64_t> wrong(chunks, 0), first(chunks, expected.size());
  const std::uint64_t per = ceil_div<std::uint64_t>(expected.size(), chunks);
  parallel_for(chunks, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t c = lo; c < hi; ++c)
      for (std::uint64_t i = c * per; i < std::min<std::uint64_t>(expected.size(), (c + 1) * per); ++i)
        if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
          if (wrong[c] == 0) first[c] = i;
          ++wrong[c];
        }
  });
  row.mismatches = 0;
  for (unsigned c = 0; c < chunks; ++c) {
    if (wrong[c] != 0 && row.mismatches == 0) row.first_bad_index = first[c];
    row.mismatches += wrong[c];
  }
  row.verified = row.mismatches == 0;
}

}  // namespace cuvk
