// CUDA backend: CUDA events on a non-blocking stream around each launch; no printing.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda_backend.h"
#include "cuda_buffer.h"
#include "cuda_chain.h"
#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_transfers.h"
#include "cuda_kernel_table.h"  // generated from the CUVK_KERNEL definitions in cuda/*.cu
#include "error.h"
#include "timestamps.h"

namespace cuvk {
namespace {

using cuda::decode;

using cuda::Kernel;

struct BuiltinEntry {
  const char* name;
  const void* fn;
  const void* traced;  // the same plus timestamp writes
};

// The built-in kernels: kernel name -> host stub, one entry per CUVK_KERNEL in cuda/*.cu (CMake
// generates it). Names equal the SPIR-V modules' names.
const BuiltinEntry kKernels[] = {CUVK_KERNEL_TABLE};

__global__ void fill_words(std::uint32_t* dst, std::size_t words, std::uint32_t word) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += step)
    dst[i] = word;
}

using cuda::CudaBuffer;

// Host memory pinned with cudaHostRegister: cudaMemcpy then copies it by DMA, no bounce buffer.
class PinnedHost final : public HostRegistration {
 public:
  PinnedHost(void* data, std::size_t bytes) : data_(data) {
    // Portable: pinned for every device's context, so that a copy staged through it between two
    // GPUs (`cuvk p2p`) is DMA on both; a range can be registered only once per process.
    const cudaError_t err = cudaHostRegister(data, bytes, cudaHostRegisterPortable);
    if (err == cudaSuccess) return;
    // A refusal is the caller's to handle (transfers then go unpinned); it must not stay this
    // thread's last error, which the next launch's cudaGetLastError() check would report.
    static_cast<void>(cudaGetLastError());
    throw Error(call_failure("cudaHostRegister", cuda::decode(err), __FILE__, __LINE__));
  }
  ~PinnedHost() override { cudaHostUnregister(data_); }
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;

 private:
  void* data_;
};

class Event {
 public:
  Event() { CUVK_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class CudaBackend final : public Backend, public Traces, public KernelResourceReports {
 public:
  CudaBackend(int index, double timeout_s) : info_(cuda::describe(index)), timeout_s_(timeout_s) {
    const auto t0 = Clock::now();
    CUVK_CUDA_CHECK(cudaSetDevice(index));
    CUVK_CUDA_CHECK(cudaFree(nullptr));  // forces context creation
    const auto t1 = Clock::now();
    CUVK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    startup_ = {{"context", ms_since(t0, t1)}, {"stream", ms_since(t1, Clock::now())}};
    for (const BuiltinEntry& k : kKernels)
      kernels_.add(cuda::builtin_kernel(k.name, k.fn, k.traced));
  }
  ~CudaBackend() override {
    if (!hung_.empty()) return;  // a kernel still runs: leave the stream and libraries be
    kernels_.unload_libraries();
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  void load_module(const RuntimeModule& module) override;
  std::string hung() const override { return hung_; }

  std::vector<std::pair<std::string, double>> startup_ms() const override { return startup_; }
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override;
  std::vector<double> run_sequence(const Launch& launch, const RunOptions& opt);
  std::string submission_unsupported(Submission s) const override {
    ensure_usable();
    return cuda::chain_unsupported(s, info_.index);
  }
  KernelResources kernel_resources(const std::string& kernel,
                                   const std::vector<std::uint32_t>& block_sizes) override {
    const Kernel& k = kernels_.find(kernel);
    if (k.fn == nullptr) throw Error("CUDA: '" + kernel + "' is the copy engine, not a kernel");
    return cuda::kernel_resources(info_.index, k.fn, block_sizes);
  }

  std::uint64_t free_memory_bytes() const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    ensure_usable();
    CUVK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
  }

  HostCostSamples host_cost(const Launch& launch, int samples) override {
    ensure_usable();
    Kernel& kernel = kernels_.find(launch.kernel);
    HostCostSamples cost;
    std::vector<double>&launch_us = cost.launch_us, &submit_us = cost.submit_us,
                       &round_trip_us = cost.round_trip_us;
    for (int i = 0; i < samples; ++i) {
      auto t0 = Clock::now();
      enqueue(kernel, launch);
      launch_us.push_back(us_since(t0));
      CUVK_CUDA_CHECK(cudaStreamSynchronize(stream_));
      t0 = Clock::now();
      enqueue(kernel, launch);
      CUVK_CUDA_CHECK(cudaStreamSynchronize(stream_));
      round_trip_us.push_back(us_since(t0));
    }
    // The CUDA analogue of resubmitting a recorded command buffer: launching a captured graph.
    cudaGraph_t graph = nullptr;
    CUVK_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    enqueue(kernel, launch);
    CUVK_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    CUVK_CUDA_CHECK(inst);
    for (int i = 0; i < samples; ++i) {
      const auto t0 = Clock::now();
      const cudaError_t e = cudaGraphLaunch(exec, stream_);
      submit_us.push_back(us_since(t0));
      if (e == cudaSuccess) CUVK_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (e != cudaSuccess) {
        cudaGraphExecDestroy(exec);
        CUVK_CUDA_CHECK(e);
      }
    }
    cudaGraphExecDestroy(exec);
    return cost;
  }

  const DeviceInfo& info() const override { return info_; }

  TraceSupport trace_support() const override {
    TraceSupport t;
    t.sm_ids = true;  // %smid
    t.clock = "%globaltimer (ns)";
    t.ticks_per_ns = 1.0;
    return t;
  }

  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    ensure_usable();
    return std::make_unique<CudaBuffer>(bytes);
  }

  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    ensure_usable();
    CUVK_CUDA_CHECK(cudaMemcpy(ptr(dst), src, bytes, cudaMemcpyHostToDevice));
  }

  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    ensure_usable();
    CUVK_CUDA_CHECK(cudaMemcpy(dst, ptr(src), bytes, cudaMemcpyDeviceToHost));
  }

  std::unique_ptr<HostRegistration> register_host(void* data, std::size_t bytes) override {
    ensure_usable();  // this device current: the runner registers from another thread too
    return std::make_unique<PinnedHost>(data, bytes);
  }

  void fill(DeviceBuffer& dst, std::uint32_t word) override {
    ensure_usable();
    constexpr unsigned kBlock = 256, kMaxBlocks = 4096;
    const std::size_t words = dst.bytes() / sizeof(std::uint32_t);
    const std::size_t blocks = std::min<std::size_t>(kMaxBlocks, (words + kBlock - 1) / kBlock);
    if (blocks == 0) return;
    fill_words<<<static_cast<unsigned>(blocks), kBlock, 0, stream_>>>(
        static_cast<std::uint32_t*>(ptr(dst)), words, word);
    CUVK_CUDA_CHECK(cudaGetLastError());
    CUVK_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::vector<std::string> kernels() const override {
    std::vector<std::string> names = cuda_kernel_names();
    names.emplace_back(kCopyEngine);
    for (const std::string& name : kernels_.names(true)) names.push_back(name);
    return names;
  }

 protected:
  Capability* capability(std::type_index type) override {
    if (type == typeid(HostTransfers) || type == typeid(PeerCopies)) {
      ensure_usable();
      if (!transfers_) transfers_ = std::make_unique<cuda::Transfers>(info_.index, timeout_s_);
      if (type == typeid(PeerCopies)) return static_cast<PeerCopies*>(transfers_.get());
      return static_cast<HostTransfers*>(transfers_.get());
    }
    return offer<Traces, KernelResourceReports>(this, type);
  }

 private:
  static void* ptr(const DeviceBuffer& b) { return static_cast<const CudaBuffer&>(b).ptr(); }

  // Also makes this device the calling thread's current one: the backend is opened on one
  // thread and used from others, and each thread starts on device 0.
  void ensure_usable() const {
    if (!hung_.empty()) throw Error("CUDA device " + info_.name + " is unusable: " + hung_);
    CUVK_CUDA_CHECK(cudaSetDevice(info_.index));
  }
  // Waits for `event` until timeout_s_ has passed; then marks the backend hung and throws.
  void wait_with_deadline(cudaEvent_t event, const std::string& kernel);
  // The one launch path (cuda_launch.h).
  void enqueue(Kernel& kernel, const Launch& launch, bool pdl = false) {
    cuda::enqueue(stream_, kernel, launch, info_, pdl);
  }

  using Clock = std::chrono::steady_clock;
  static double ms_since(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }
  static double us_since(Clock::time_point a) {
    return std::chrono::duration<double, std::micro>(Clock::now() - a).count();
  }

  DeviceInfo info_;
  double timeout_s_ = 120.0;
  std::string hung_;           // why the device is unusable: a launch did not finish in time
  cuda::KernelTable kernels_;  // built-in kernels, the copy engine, run-time kernels
  cudaStream_t stream_ = nullptr;
  std::vector<std::pair<std::string, double>> startup_;
  std::unique_ptr<cuda::Transfers> transfers_;  // HostTransfers, PeerCopies: made when first asked
};

std::vector<double> CudaBackend::run(const Launch& launch, const RunOptions& opt) {
  ensure_usable();
  if (!launch.sequence.empty()) return run_sequence(launch, opt);
  Kernel* flush = opt.before_each ? &kernels_.find(opt.before_each->kernel) : nullptr;
  Kernel& kernel = kernels_.find(launch.kernel);  // resolved once per call
  if (launch.chain.steps > 0) {  // cuda_chain.cpp: the steps' buffers resolved here
    std::vector<Launch> steps;
    for (std::uint32_t k = 0; k < launch.chain.steps; ++k) steps.push_back(chain_step(launch, k));
    cuda::ChainPlan plan;
    plan.submission = launch.chain.submission;
    plan.pdl_capable = !kernel.runtime;
    for (std::uint32_t k = 0; k < launch.chain.steps; ++k)
      plan.launches.emplace_back(
          [this, &kernel, &steps, k](bool pdl) { enqueue(kernel, steps[k], pdl); });
    return cuda::run_chain(stream_, plan, opt.reps, [&] {
      if (flush) enqueue(*flush, *opt.before_each);
    });
  }
  std::vector<Event> start, stop;
  start.reserve(static_cast<std::size_t>(opt.reps));
  stop.reserve(static_cast<std::size_t>(opt.reps));
  for (int r = 0; r < opt.reps; ++r) {
    if (flush) enqueue(*flush, *opt.before_each);
    start.emplace_back();
    stop.emplace_back();
    CUVK_CUDA_CHECK(cudaEventRecord(start.back().get(), stream_));
    enqueue(kernel, launch);
    CUVK_CUDA_CHECK(cudaEventRecord(stop.back().get(), stream_));
  }
  // Built-in kernels always finish; a run-time kernel might not, so it is waited for with a deadline.
  if (kernel.runtime) wait_with_deadline(stop.back().get(), launch.kernel);
  else CUVK_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<double> times_ms;
  times_ms.reserve(start.size());
  for (std::size_t r = 0; r < start.size(); ++r) {
    float ms = 0.0f;
    CUVK_CUDA_CHECK(cudaEventElapsedTime(&ms, start[r].get(), stop[r].get()));
    times_ms.push_back(timing::event_interval_ms(ms));  // order checked (timestamps.h)
  }
  return times_ms;
}

// A sequence of run-time launches (Launch::sequence) through cuda_chain.cpp: each step's module
// found once, the steps `repeat` times over; the restore copies and the flush before each.
std::vector<double> CudaBackend::run_sequence(const Launch& launch, const RunOptions& opt) {
  const std::size_t k = launch.sequence.size();
  if (k > kMaxSequenceSteps || launch.repeat == 0 || k * launch.repeat > kMaxSequenceLaunches)
    throw Error("CUDA run: a sequence of " + std::to_string(k) + " steps repeated " +
                std::to_string(launch.repeat) + " times (1.." + std::to_string(kMaxSequenceSteps) +
                " steps, 1.." + std::to_string(kMaxSequenceLaunches) + " launches)");
  std::vector<Kernel*> kernels;  // resolved once per call
  for (const Launch& step : launch.sequence) kernels.push_back(&kernels_.find(step.kernel));
  for (const Launch& copy : launch.restore)
    if (copy.kernel != kCopyEngine) throw Error("CUDA run: a restore launch must be a copy");
  Kernel& engine = kernels_.find(kCopyEngine);
  cuda::ChainPlan plan;
  plan.submission = launch.chain.submission;
  plan.wait = [&](cudaEvent_t stop) { wait_with_deadline(stop, launch.sequence.front().kernel); };
  for (std::uint32_t r = 0; r < launch.repeat; ++r)
    for (std::size_t i = 0; i < k; ++i)
      plan.launches.emplace_back(
          [this, &launch, &kernels, i](bool) { enqueue(*kernels[i], launch.sequence[i]); });
  Kernel* flush = opt.before_each ? &kernels_.find(opt.before_each->kernel) : nullptr;
  return cuda::run_chain(stream_, plan, opt.reps, [&] {
    for (const Launch& copy : launch.restore) enqueue(engine, copy);
    if (flush) enqueue(*flush, *opt.before_each);
  });
}

void CudaBackend::wait_with_deadline(cudaEvent_t event, const std::string& kernel) {
  constexpr auto kPoll = std::chrono::microseconds(50);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) CUVK_CUDA_CHECK(e);
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(kPoll);
  }
  hung_ = "'" + kernel + "' did not finish within " + std::to_string(timeout_s_) +
          " s (--timeout); the kernel may never end";
  throw Error("CUDA kernel " + hung_);
}

void CudaBackend::load_module(const RuntimeModule& module) {
  ensure_usable();
  if (module.cuda_image.empty()) throw Error("CUDA module '" + module.name + "' has no image");
  if (module.buffers > kMaxModuleBuffers)
    throw Error("CUDA module '" + module.name + "' takes " + std::to_string(module.buffers) +
                " buffers; at most " + std::to_string(kMaxModuleBuffers));
  if (kernels_.find_if(module.name) != nullptr)
    throw Error("CUDA backend already has a kernel named '" + module.name + "'");
  Kernel m;
  m.name = module.name;
  m.runtime = true;
  m.buffers = module.buffers;
  m.scalar_offsets = scalar_offsets(module.scalar_sizes, &m.scalar_bytes);
  if (m.scalar_bytes > kMaxScalarBytes)
    throw Error("CUDA module '" + module.name + "' takes " + std::to_string(m.scalar_bytes) +
                " scalar bytes; at most " + std::to_string(kMaxScalarBytes));
  std::vector<std::uint8_t> image = module.cuda_image;
  if (image.back() != 0) image.push_back(0);  // PTX is text: the driver wants it NUL-terminated
  for (const auto& c : module.compile_ms) startup_.push_back(c);
  const auto t0 = Clock::now();
  CUVK_CUDA_CHECK(cudaLibraryLoadData(&m.library, image.data(), nullptr, nullptr, 0, nullptr,
                                      nullptr, 0));
  cudaKernel_t handle = nullptr;
  const cudaError_t e = cudaLibraryGetKernel(&handle, m.library, module.entry.c_str());
  if (e != cudaSuccess) {
    cudaLibraryUnload(m.library);
    throw Error("CUDA module '" + module.name + "' has no kernel named '" + module.entry +
                "': " + decode(e));
  }
  m.fn = reinterpret_cast<const void*>(handle);
  startup_.emplace_back("load module " + module.name, ms_since(t0, Clock::now()));
  kernels_.add(std::move(m));
}

}  // namespace

std::vector<std::string> cuda_kernel_names() {
  std::vector<std::string> names;
  for (const BuiltinEntry& k : kKernels) names.emplace_back(k.name);
  return names;
}

std::unique_ptr<Backend> make_cuda_backend(int index, double timeout_s) {
  return std::make_unique<CudaBackend>(index, timeout_s);
}

}  // namespace cuvk
