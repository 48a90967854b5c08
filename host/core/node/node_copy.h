// Copies between two GPUs of a node (`cuvk p2p`, issue 35): staged through one pinned / imported
// host buffer on either API, and CUDA's peer copies. Drives two backends at once through their
// HostTransfers and PeerCopies capabilities; times with the host clock (GPU timestamps cannot
// span two devices); verifies every row word by word. docs/MEASURING.md, "GPU to GPU".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "stats.h"

namespace cuvk {

// The staged copy's chunk: each transfer moves min(bytes, chunk) at a time through one of two
// host chunks (double-buffered: chunk i + 1 leaves the source while chunk i enters the
// destination). A multiple of kHostRegisterAlign.
inline constexpr std::size_t kStagedChunkBytes = std::size_t{8} << 20;

// Called with each chunk after it reached host memory and before it leaves for the destination
// (a test corrupts one here to see verification catch it).
using ChunkHook = std::function<void(std::size_t chunk, void* host, std::size_t bytes)>;

// Two host chunks of `chunk_bytes`, 2 MiB aligned, registered with each distinct backend given
// (CUDA pins them once, for every device: cudaHostRegisterPortable; Vulkan imports them into
// each device with VK_EXT_external_memory_host).
class StagingArea {
 public:
  StagingArea(std::size_t chunk_bytes, const std::vector<Backend*>& backends);
  ~StagingArea();
  StagingArea(const StagingArea&) = delete;
  StagingArea& operator=(const StagingArea&) = delete;
  // "" when every backend registered the area, else which one could not (and the copy cannot run).
  const std::string& unregistered() const { return unregistered_; }
  void* slot(std::size_t i) const { return static_cast<char*>(data_) + (i % 2) * chunk_; }
  std::size_t chunk_bytes() const { return chunk_; }

 private:
  void* data_ = nullptr;
  std::size_t chunk_ = 0;
  std::vector<std::unique_ptr<HostRegistration>> registrations_;
  std::string unregistered_;
};

// The two ends of a staged copy: a buffer and the transfers of the device that holds it.
struct CopyFrom {
  HostTransfers& device;
  const DeviceBuffer& buffer;
};
struct CopyTo {
  HostTransfers& device;
  DeviceBuffer& buffer;
};

// One staged copy of `bytes` from `from` to `to`, advanced chunk by chunk so that several (both
// directions) can proceed at once from one thread.
class StagedCopy {
 public:
  StagedCopy(CopyFrom from, CopyTo to, std::size_t bytes, const StagingArea& area,
             ChunkHook hook = {});
  // Issues chunk i's download and chunk i - 1's upload; false once every chunk is issued.
  bool step();
  void finish();  // waits for the last upload
  std::size_t chunks() const { return chunks_; }

 private:
  std::size_t length(std::size_t i) const;
  HostTransfers &src_, &dst_;
  const DeviceBuffer& from_;
  DeviceBuffer& to_;
  std::size_t bytes_, chunk_, chunks_, next_ = 0;
  const StagingArea& area_;
  ChunkHook hook_;
  std::vector<std::uint64_t> down_, up_;
};

// Runs every copy of `copies` to the end, stepping them in turn.
void run_staged(const std::vector<StagedCopy*>& copies);

// The words of `got` that differ from `want` (same length).
std::size_t differing_words(const std::vector<std::uint32_t>& want,
                            const std::vector<std::uint32_t>& got);

// `words` random non-zero words from `seed` (so that a zero-poisoned word never passes).
std::vector<std::uint32_t> random_nonzero_words(std::size_t words, std::uint64_t seed);

// Host wall time of `transfer` in ms: `warmup` untimed calls, then `reps` timed ones, each after
// `before` (outside the timed interval: poisoning the destination).
Summary time_transfer(const std::function<void()>& transfer, const std::function<void()>& before,
                      int warmup, int reps);

}  // namespace cuvk
