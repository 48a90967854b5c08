// HostTransfers and PeerCopies of one CUDA device (`cuvk p2p`).
#include "cuda_transfers.h"

#include <chrono>
#include <string>
#include <thread>

#include "cuda_buffer.h"
#include "cuda_check.h"
#include "error.h"

namespace cuvk::cuda {
namespace {

// The peer-read kernel: this device's threads read `src` (another GPU's memory, mapped by peer
// access) and write `dst` here, 16 bytes per thread per step; the tail word by word.
__global__ void read_peer(const uint4* src, uint4* dst, std::size_t vectors, const unsigned* src_tail,
                          unsigned* dst_tail, std::size_t tail_words) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < vectors; i += step) dst[i] = src[i];
  if (first < tail_words) dst_tail[first] = src_tail[first];
}

void check_range(const DeviceBuffer& b, std::size_t offset, std::size_t bytes, const char* what) {
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    throw Error(std::string(what) + " past the end of a " + std::to_string(b.bytes()) +
                "-byte buffer");
}

// Host memory must be registered (pinned) for the copy to be asynchronous DMA.
void check_registered(const void* p) {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) static_cast<void>(cudaGetLastError());
  if (e != cudaSuccess || a.type != cudaMemoryTypeHost)
    throw Error("host range is not registered with CUDA (register_host first)");
}

}  // namespace

Transfers::Transfers(int index, double timeout_s) : index_(index), timeout_s_(timeout_s) {
  current();
  CUVK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (cudaEvent_t& e : events_) CUVK_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

Transfers::~Transfers() {
  if (cudaSetDevice(index_) != cudaSuccess) return;
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (cudaEvent_t e : events_)
    if (e != nullptr) cudaEventDestroy(e);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void Transfers::current() const { CUVK_CUDA_CHECK(cudaSetDevice(index_)); }

void Transfers::before_next() {
  current();
  const std::size_t slot = next_ % kRing;
  if (pending_[slot] != 0) wait(pending_[slot]);
}

std::uint64_t Transfers::record() {
  const std::size_t slot = next_ % kRing;
  CUVK_CUDA_CHECK(cudaEventRecord(events_[slot], stream_));
  pending_[slot] = next_;
  return next_++;
}

std::uint64_t Transfers::to_host_async(const DeviceBuffer& src, std::size_t offset, void* dst,
                                       std::size_t bytes) {
  check_range(src, offset, bytes, "host transfer");
  before_next();
  check_registered(dst);
  const char* from = static_cast<const char*>(pointer_of(src, "host transfer source")) + offset;
  CUVK_CUDA_CHECK(cudaMemcpyAsync(dst, from, bytes, cudaMemcpyDeviceToHost, stream_));
  return record();
}

std::uint64_t Transfers::from_host_async(const void* src, DeviceBuffer& dst, std::size_t offset,
                                         std::size_t bytes) {
  check_range(dst, offset, bytes, "host transfer");
  before_next();
  check_registered(src);
  char* to = static_cast<char*>(pointer_of(dst, "host transfer destination")) + offset;
  CUVK_CUDA_CHECK(cudaMemcpyAsync(to, src, bytes, cudaMemcpyHostToDevice, stream_));
  return record();
}

// Polls without sleeping (a sleep's granularity would be the small copies' time), up to the
// backend's timeout.
void Transfers::wait(std::uint64_t ticket) {
  if (ticket == 0 || ticket >= next_) throw Error("wait for an unknown CUDA transfer");
  const std::size_t slot = ticket % kRing;
  if (pending_[slot] != ticket) return;  // waited for already (its event was reused since)
  current();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    const cudaError_t e = cudaEventQuery(events_[slot]);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) CUVK_CUDA_CHECK(e);
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error("CUDA copy did not finish within " + std::to_string(timeout_s_) + " s (--timeout)");
    std::this_thread::yield();
  }
  // The stream is in order: every earlier copy has finished too.
  for (std::uint64_t& p : pending_)
    if (p != 0 && p <= ticket) p = 0;
}

int Transfers::peer_index(const Backend& peer) const {
  if (peer.info().api != Api::cuda) throw Error("peer is not a CUDA device");
  return peer.info().index;
}

std::string Transfers::peer_unavailable(const Backend& peer) const {
  if (peer.info().api != Api::cuda) return "the peer is not a CUDA device";
  const int other = peer.info().index;
  if (other == index_) return "the same device (a loopback has no peer)";
  int can = 0;
  CUVK_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, index_, other));
  return can ? "" : "cudaDeviceCanAccessPeer(" + std::to_string(index_) + ", " +
                        std::to_string(other) + ") = 0";
}

void Transfers::enable_peer(const Backend& peer) {
  const int other = peer_index(peer);
  current();
  const cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    static_cast<void>(cudaGetLastError());
    return;
  }
  CUVK_CUDA_CHECK(e);
}

std::uint64_t Transfers::copy_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                              DeviceBuffer& dst, std::size_t bytes) {
  check_range(src, 0, bytes, "peer copy");
  check_range(dst, 0, bytes, "peer copy");
  const int other = peer_index(peer);
  before_next();
  CUVK_CUDA_CHECK(cudaMemcpyPeerAsync(pointer_of(dst, "peer copy destination"), index_,
                                      pointer_of(src, "peer copy source"), other, bytes, stream_));
  return record();
}

std::uint64_t Transfers::read_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                              DeviceBuffer& dst, std::size_t bytes) {
  check_range(src, 0, bytes, "peer read");
  check_range(dst, 0, bytes, "peer read");
  static_cast<void>(peer_index(peer));
  before_next();
  constexpr unsigned kBlock = 256, kMaxBlocks = 4096;
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t tail_words = (bytes % sizeof(uint4)) / sizeof(unsigned);
  const std::size_t blocks =
      std::max<std::size_t>(1, std::min<std::size_t>(kMaxBlocks, (vectors + kBlock - 1) / kBlock));
  const auto* from = static_cast<const uint4*>(pointer_of(src, "peer read source"));
  auto* to = static_cast<uint4*>(pointer_of(dst, "peer read destination"));
  read_peer<<<static_cast<unsigned>(blocks), kBlock, 0, stream_>>>(
      from, to, vectors, reinterpret_cast<const unsigned*>(from + vectors),
      reinterpret_cast<unsigned*>(to + vectors), tail_words);
  CUVK_CUDA_CHECK(cudaGetLastError());
  return record();
}

}  // namespace cuvk::cuda
