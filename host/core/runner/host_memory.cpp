#include "host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "error.h"
#include "host_data.h"
#include "numbers.h"

namespace cuvk {

HostMemory::HostMemory(std::size_t floats) : floats_(floats) {
  const std::size_t bytes =
      round_up(std::max<std::size_t>(floats * sizeof(float), 1), kHostRegisterAlign);
  // One huge page more than needed, so that an aligned start can be chosen inside.
  void* p = mmap(nullptr, bytes + kHostRegisterAlign, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw Error(
        fmt::format("mmap of {} bytes of host memory failed: {}", bytes, std::strerror(errno)));
  auto* base = static_cast<char*>(p);
  const std::size_t lead = round_up(reinterpret_cast<std::uintptr_t>(base), kHostRegisterAlign) -
                           reinterpret_cast<std::uintptr_t>(base);
  if (lead > 0) munmap(base, lead);
  if (kHostRegisterAlign - lead > 0) munmap(base + lead + bytes, kHostRegisterAlign - lead);
  data_ = reinterpret_cast<float*>(base + lead);
  mapped_bytes_ = bytes;
  madvise(data_, bytes, MADV_HUGEPAGE);  // advice: where the kernel has none, 4 KiB pages
}

HostMemory::~HostMemory() {
  registrations_.clear();  // before the memory goes
  if (data_) munmap(data_, mapped_bytes_);
}

Span<float> HostMemory::touch(std::size_t floats) {
  const std::size_t bytes =
      std::min(mapped_bytes_, round_up(floats * sizeof(float), kHostRegisterAlign));
  if (bytes > touched_bytes_) {
    constexpr std::size_t kPage = 4096;
    char* const base = reinterpret_cast<char*>(data_);
    const std::size_t first = touched_bytes_ / kPage, pages = (bytes - touched_bytes_) / kPage;
    parallel_ranges(pages, [base, first](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t p = lo; p < hi; ++p) base[(first + p) * kPage] = 0;
    });
    touched_bytes_ = bytes;
  }
  return {data_, floats};
}

void HostMemory::register_with(Backend& b, std::size_t floats) {
  const std::size_t bytes =
      std::min(mapped_bytes_, round_up(floats * sizeof(float), kHostRegisterAlign));
  auto it = std::find_if(registrations_.begin(), registrations_.end(),
                         [&b](const Registration& r) { return r.backend == &b; });
  if (it == registrations_.end())
    it = registrations_.insert(registrations_.end(), {&b, nullptr, 1});
  if (!it->registration && it->bytes == 0) return;  // the backend offers none
  if (it->registration && it->bytes >= bytes) return;
  touch(bytes / sizeof(float));
  it->registration.reset();
  try {
    it->registration = b.register_host(data_, bytes);
  } catch (const std::exception&) {
    it->registration.reset();  // e.g. a locked-memory limit: transfers work, more slowly
  }
  it->bytes = it->registration ? bytes : 0;
}

}  // namespace cuvk
