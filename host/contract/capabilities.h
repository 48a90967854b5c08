// The optional capabilities of a backend: what only some backends can do, each a small interface a
// backend implements where it can and the host finds at run time (Backend::find, backend.h), with
// the facts they report. A contract header (backend.h includes it): a backend may include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace cuvk {

class Backend;       // backend.h
class DeviceBuffer;  // backend.h
enum class Binding;  // backend.h

// What a backend's traced launches record (Traces::trace_support).
struct TraceSupport {
  std::string unavailable;         // "" when traced launches can run here, else why not
  bool sm_ids = false;             // records hold the SM each block ran on
  std::string sm_ids_unavailable;  // why not, when !sm_ids
  // The clock the records' ticks come from, in words, and its ticks per nanosecond as the API
  // documents it (1 for CUDA's %globaltimer).
  std::string clock;
  double ticks_per_ns = 1.0;
};

// ---- What a backend can tell about one kernel's machine code (`cuvk inspect`) ----

// One executable of a pipeline as the driver describes it (VK_KHR_pipeline_executable_properties),
// e.g. the register count and binary size of the compute shader's machine code.
struct PipelineStatistic {
  std::string name, description, value;
};
struct PipelineExecutableReport {
  std::string name, description;
  std::uint32_t subgroup_size = 0;
  std::vector<PipelineStatistic> statistics;
};

// What the CUDA runtime says about one kernel: its attributes (cudaFuncGetAttributes) and, per
// block size, cudaOccupancyMaxActiveBlocksPerMultiprocessor, with the limits that bound occupancy.
struct KernelResources {
  std::string device;      // name and compute capability
  int registers = 0;       // per thread, of the kernel as linked into this binary
  int binary_version = 0;  // e.g. 90: the SASS the driver runs
  int ptx_version = 0;
  std::size_t local_bytes = 0, shared_bytes = 0, const_bytes = 0;
  int max_threads_per_block = 0;  // for this kernel
  int multiprocessors = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0, regs_per_sm = 0,
      regs_per_block = 0, warp_size = 0;
  std::vector<std::pair<std::uint32_t, int>> blocks_per_sm;  // (block size, active blocks per SM)
};

// ---- Optional capabilities: what only some backends can do (Backend::find) ----
// Each is a small interface a backend implements where it can (COM's QueryInterface, PJRT's
// extensions); Backend itself keeps what every backend does. Their methods may still throw Error
// with the reason where this device or driver cannot say (e.g. no pipeline statistics offered).
class Capability {
 public:
  virtual ~Capability() = default;
};

// Dispatch traces (`cuvk trace`): launches with Launch::trace.
class Traces : public Capability {
 public:
  static constexpr const char* kLacking = "cannot trace dispatches";
  // Whether traced launches can run here, and what their records hold.
  virtual TraceSupport trace_support() const = 0;
};

// `cuvk inspect`, never timed runs: the driver's statistics for the pipeline of `kernel` in
// `binding` at `block_size` (Vulkan, with BackendOptions::pipeline_statistics).
class ExecutableReports : public Capability {
 public:
  static constexpr const char* kLacking = "offers no pipeline executable statistics";
  virtual std::vector<PipelineExecutableReport> executable_reports(const std::string& kernel,
                                                                   Binding binding,
                                                                   std::uint32_t block_size) = 0;
};

// `cuvk inspect`: registers and occupancy of `kernel` per block size (CUDA).
class KernelResourceReports : public Capability {
 public:
  static constexpr const char* kLacking = "reports no kernel resources";
  virtual KernelResources kernel_resources(const std::string& kernel,
                                           const std::vector<std::uint32_t>& block_sizes) = 0;
};

// `cuvk inspect`: the bytes of a fresh pipeline cache holding only the pipeline of `kernel` in
// `binding` at `block_size`, made as timed runs make it (same specialization constant and
// layout), for whoever can read the driver's machine code out of it (vkGetPipelineCacheData).
class PipelineCache : public Capability {
 public:
  static constexpr const char* kLacking = "offers no pipeline cache";
  virtual std::vector<std::uint8_t> pipeline_cache_data(const std::string& kernel, Binding binding,
                                                        std::uint32_t block_size) = 0;
};

// `cuvk p2p`: asynchronous copies between a device buffer and host memory registered with this
// backend (register_host), in order on one queue/stream. Each returns a ticket; wait(t) blocks
// until copy t (and every copy issued before it here) has finished, with the backend's timeout.
class HostTransfers : public Capability {
 public:
  static constexpr const char* kLacking = "offers no asynchronous host transfers";
  // bytes [offset, offset + bytes) of `src` into registered host memory at `dst`.
  virtual std::uint64_t to_host_async(const DeviceBuffer& src, std::size_t offset, void* dst,
                                      std::size_t bytes) = 0;
  // Registered host memory at `src` into bytes [offset, offset + bytes) of `dst`.
  virtual std::uint64_t from_host_async(const void* src, DeviceBuffer& dst, std::size_t offset,
                                        std::size_t bytes) = 0;
  virtual void wait(std::uint64_t ticket) = 0;
};

// `cuvk p2p`: what this device can do directly with another device of the same API (CUDA peer
// access). Copies are issued on this device's transfer stream; wait() is HostTransfers::wait.
class PeerCopies : public Capability {
 public:
  static constexpr const char* kLacking = "offers no peer access";
  // "" when this device can map `peer`'s memory (cudaDeviceCanAccessPeer), else what the
  // driver said.
  virtual std::string peer_unavailable(const Backend& peer) const = 0;
  virtual void enable_peer(const Backend& peer) = 0;  // idempotent; throws where refused
  // `bytes` of `src` (on `peer`) into `dst` (here) with cudaMemcpyPeerAsync.
  virtual std::uint64_t copy_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                             DeviceBuffer& dst, std::size_t bytes) = 0;
  // The same by a kernel on this device reading `src` over the link (peer access enabled).
  virtual std::uint64_t read_from_peer_async(const Backend& peer, const DeviceBuffer& src,
                                             DeviceBuffer& dst, std::size_t bytes) = 0;
  virtual void wait_peer(std::uint64_t ticket) = 0;
};

// For a backend's capability(): `self` as the first of Cs that `type` names, else null.
template <class... Cs, class B>
Capability* offer(B* self, std::type_index type) {
  Capability* found = nullptr;
  ((found = found != nullptr ? found : type == typeid(Cs) ? static_cast<Cs*>(self) : nullptr), ...);
  return found;
}

}  // namespace cuvk
