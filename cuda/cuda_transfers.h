// Private to cuda/: HostTransfers and PeerCopies (`cuvk p2p`) of one CUDA device, on a
// non-blocking stream of their own; each copy's ticket is an event recorded after it.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "backend.h"

namespace cuvk::cuda {

class Transfers final : public HostTransfers, public PeerCopies {
 public:
  Transfers(int index, double timeout_s);
  ~Transfers() override;
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  std::uint64_t to_host_async(const DeviceBuffer& src, std::size_t offset, void* dst,
                              std::size_t bytes) override;
  std::uint64_t from_host_async(const void* src, DeviceBuffer& dst, std::size_t offset,
                                std::size_t bytes) override;
  void wait(std::uint64_t ticket) override;

  std::string peer_unavailable(const Backend& peer) const override;
  void enable_peer(const Backend& peer) override;
  std::uint64_t copy_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                     DeviceBuffer& dst, std::size_t bytes) override;
  std::uint64_t read_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                     DeviceBuffer& dst, std::size_t bytes) override;
  void wait_peer(std::uint64_t ticket) override { wait(ticket); }

 private:
  static constexpr std::size_t kRing = 8;  // copies in flight at most; the oldest is waited for
  void current() const;                    // this device, for the calling thread
  void before_next();                      // waits for the copy whose event the next one reuses
  std::uint64_t record();                  // the event after the copy just issued: its ticket
  int peer_index(const Backend& peer) const;

  int index_;
  double timeout_s_;
  cudaStream_t stream_ = nullptr;
  std::array<cudaEvent_t, kRing> events_{};
  std::array<std::uint64_t, kRing> pending_{};  // the ticket each event stands for; 0: none
  std::uint64_t next_ = 1;
};

}  // namespace cuvk::cuda
