#include "node_copy.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "error.h"

namespace cuvk {

StagingArea::StagingArea(std::size_t chunk_bytes, const std::vector<Backend*>& backends)
    : chunk_(chunk_bytes) {
  if (chunk_bytes == 0 || chunk_bytes % kHostRegisterAlign != 0)
    throw Error(fmt::format("staging chunk of {} bytes is not a multiple of {}", chunk_bytes,
                            kHostRegisterAlign));
  data_ = std::aligned_alloc(kHostRegisterAlign, 2 * chunk_bytes);
  if (data_ == nullptr) throw std::bad_alloc();
  std::vector<const Backend*> done;
  bool cuda_pinned = false;
  for (Backend* b : backends) {
    if (std::find(done.begin(), done.end(), b) != done.end()) continue;  // a loopback: once
    done.push_back(b);
    // CUDA pins a range once per process, for every device (cudaHostRegisterPortable); Vulkan
    // imports it into each device.
    if (b->info().api == Api::cuda && cuda_pinned) continue;
    std::unique_ptr<HostRegistration> r;
    std::string why;
    try {
      r = b->register_host(data_, 2 * chunk_bytes);
    } catch (const std::exception& e) {
      why = std::string(": ") + e.what();
    }
    if (!r && unregistered_.empty()) {
      unregistered_ = fmt::format(
          "{} device {} could not register the host chunks{}", api_name(b->info().api),
          b->info().index,
          why.empty()
              ? (b->info().api == Api::vulkan ? " (VK_EXT_external_memory_host not enabled or the "
                                                "driver refused the pointer)"
                                              : "")
              : why);
    }
    if (r && b->info().api == Api::cuda) cuda_pinned = true;
    if (r) registrations_.push_back(std::move(r));
  }
}

StagingArea::~StagingArea() {
  registrations_.clear();  // before the memory goes
  std::free(data_);
}

StagedCopy::StagedCopy(CopyFrom from, CopyTo to, std::size_t bytes, const StagingArea& area,
                       ChunkHook hook)
    : src_(from.device),
      dst_(to.device),
      from_(from.buffer),
      to_(to.buffer),
      bytes_(bytes),
      chunk_(area.chunk_bytes()),
      chunks_((bytes + area.chunk_bytes() - 1) / area.chunk_bytes()),
      area_(area),
      hook_(std::move(hook)),
      down_(chunks_),
      up_(chunks_) {}

std::size_t StagedCopy::length(std::size_t i) const {
  return std::min(chunk_, bytes_ - i * chunk_);
}

// Chunk i leaves the source into slot i % 2 once chunk i - 2 (the slot's last user) has entered
// the destination; chunk i - 1 enters the destination once it has reached the host.
bool StagedCopy::step() {
  if (next_ > chunks_) return false;
  const std::size_t i = next_++;
  if (i < chunks_) {
    if (i >= 2) dst_.wait(up_[i - 2]);
    down_[i] = src_.to_host_async(from_, i * chunk_, area_.slot(i), length(i));
  }
  if (i >= 1) {
    const std::size_t j = i - 1;
    src_.wait(down_[j]);
    if (hook_) hook_(j, area_.slot(j), length(j));
    up_[j] = dst_.from_host_async(area_.slot(j), to_, j * chunk_, length(j));
  }
  return next_ <= chunks_;
}

void StagedCopy::finish() {
  while (step()) {
  }
  if (chunks_ > 0) dst_.wait(up_[chunks_ - 1]);
}

void run_staged(const std::vector<StagedCopy*>& copies) {
  for (bool more = true; more;) {
    more = false;
    for (StagedCopy* c : copies) more = c->step() || more;
  }
  for (StagedCopy* c : copies) c->finish();
}

std::size_t differing_words(const std::vector<std::uint32_t>& want,
                            const std::vector<std::uint32_t>& got) {
  std::size_t n = want.size() > got.size() ? want.size() - got.size() : 0;
  for (std::size_t i = 0; i < std::min(want.size(), got.size()); ++i) n += want[i] != got[i];
  return n;
}

std::vector<std::uint32_t> random_nonzero_words(std::size_t words, std::uint64_t seed) {
  // splitmix64: fast enough for 1 GiB per row (a 64-bit Mersenne twister takes seconds there).
  std::vector<std::uint32_t> out(words);
  std::uint64_t x = seed;
  for (std::uint32_t& w : out) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    w = static_cast<std::uint32_t>(z % 0xFFFFFFFFULL) + 1;  // never 0, the poison
  }
  return out;
}

Summary time_transfer(const std::function<void()>& transfer, const std::function<void()>& before,
                      int warmup, int reps) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) {
    if (before) before();
    transfer();
  }
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    if (before) before();
    const auto t0 = Clock::now();
    transfer();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return summarize(ms);
}

}  // namespace cuvk
