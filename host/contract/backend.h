// The contract between the host timing driver (host/) and an API backend (cuda/, vulkan/).
// A backend is deliberately small: device facts, buffers, and "run kernel K with these parameters
// R times and return R GPU times". Backends never print and never compute bandwidth; warm-up,
// repetition policy, statistics, verification and reports live once, in host/. A backend sees
// the contract's host headers only (host/contract: this one, capabilities.h, params.h, error.h,
// timestamps.h, numbers.h): the build enforces it (host/CMakeLists.txt), and one factory
// (host/factory/backends.cpp) is the only host code that names a backend.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "capabilities.h"
#include "params.h"

namespace cuvk {

// The API list (docs/ADDING_AN_API.md). kApis: the APIs a cuvk binary builds (the factory's table,
// host/factory/backends.cpp), pairs by device UUID and runs by default, in order. `host` is a
// test-only API (tests/api_host: host memory and CPU kernels): a test program registers it in the
// factory's table and runs it through run_suite; no cuvk binary lists it.
enum class Api { cuda, vulkan, host };
const char* api_name(Api api);          // "cuda", "vulkan", "host"
const char* api_display_name(Api api);  // "CUDA", "Vulkan", "host": the API in prose
inline constexpr std::array<Api, 2> kApis = {Api::cuda, Api::vulkan};
inline constexpr std::size_t kApiCount = 3;  // every Api value, kApis' and test-only ones

// One T per API, looked up by Api (what a program keeps per API, e.g. its open backends), instead
// of a member per API and `api == Api::cuda ? x.cuda : x.vulkan` at every use.
template <class T>
class PerApi {
 public:
  T& operator[](Api api) { return items_[static_cast<std::size_t>(api)]; }
  const T& operator[](Api api) const { return items_[static_cast<std::size_t>(api)]; }

 private:
  std::array<T, kApiCount> items_{};
};

using Uuid = std::array<std::uint8_t, 16>;
std::string format_uuid(const Uuid& uuid);  // 8-4-4-4-12 lower-case hex

// The GPU timer that Backend::run times with (issue 33's calibration).
struct TimerInfo {
  double resolution_ns = 0.0;    // the smallest step a time can take; 0: unknown
  std::uint32_t valid_bits = 0;  // Vulkan: the compute queue's timestampValidBits; CUDA: 0
  std::string source;            // where resolution_ns comes from, in words
};

// What a backend knows about its device; enough to pair devices across APIs and to write
// provenance. `properties` holds API-specific facts as ordered key/value strings for reports.
struct DeviceInfo {
  Api api = Api::cuda;
  int index = 0;  // position in the API's own enumeration
  std::string name;
  Uuid uuid{};
  bool is_cpu = false;                 // e.g. lavapipe
  std::uint64_t memory_bytes = 0;      // device-local memory
  std::uint64_t max_buffer_bytes = 0;  // largest single buffer a kernel may address
  std::uint32_t max_block_size = 0;
  std::uint32_t max_grid_x = 0;  // largest grid / dispatch size in x
  std::uint32_t max_grid_y = 0;
  // The scalar bytes a run-time kernel may take: Vulkan's maxPushConstantsSize (128 on lavapipe,
  // 256 on NVIDIA), CUDA's kMaxScalarBytes of kernel parameters; 0 when unknown.
  std::uint32_t max_scalar_bytes = 0;
  std::uint64_t l2_bytes = 0;         // 0 when the API does not say
  std::uint32_t memory_bus_bits = 0;  // 0 when the API does not say
  TimerInfo timer;                    // the GPU timer run() uses
  std::string driver;                 // one line: driver name and version
  std::vector<std::pair<std::string, std::string>> properties;
};

// A device-local buffer. Owned through std::unique_ptr; freeing it frees the device memory.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// Launch geometry, computed once by the host and used unchanged by both APIs:
// grid_x * grid_y blocks (workgroups) of block_size threads, linear index
// (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x.
struct Geometry {
  std::uint32_t block_size = 256;
  std::uint32_t grid_x = 1;
  std::uint32_t grid_y = 1;
};

// How a kernel reaches its buffers. CUDA kernels take pointers (pointer). A Vulkan shader reads
// a descriptor set (descriptor: module `<kernel>`) or buffer device addresses placed in its push
// constants after CuvkParams (bda: module `<kernel>_bda`, the CUDA way).
enum class Binding { pointer, descriptor, bda };
const char* binding_name(Binding binding);  // "pointer", "descriptor", "bda"
Binding native_binding(Api api);            // descriptor for Vulkan, else pointer

// A byte range of a buffer, what a launch gives a kernel (Launch::buffers): built-in kernels take
// whole buffers; run-time ones (Backend::load_module) reach each buffer's interior, between guard
// bands the host checks after the run. `offset` is a multiple of kViewAlignment.
struct BufferView {
  DeviceBuffer* buffer = nullptr;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};
// At least every device's minStorageBufferOffsetAlignment (Vulkan guarantees <= 256).
inline constexpr std::uint64_t kViewAlignment = 256;
// Buffers a run-time kernel may take (descriptor bindings 0..N-1 / pointer parameters).
inline constexpr std::uint32_t kMaxModuleBuffers = 32;
// Scalar bytes a run-time kernel may take at most on any API: CUDA's 4 KB of kernel parameters.
// Vulkan's push constants are the device's maxPushConstantsSize (DeviceInfo::max_scalar_bytes,
// at least 128), checked when a module is loaded.
inline constexpr std::uint32_t kMaxScalarBytes = 4096;

// A kernel compiled at run time (a user's kernel pair), loaded with Backend::load_module; launches
// then name it like a built-in kernel. The binding convention, of every kernel (built-in ones
// too: buffers in, out; one scalar, CuvkParams; Launch):
//   CUDA:   kernel(buffer 0 pointer, ..., buffer N-1 pointer, scalar 0, ..., scalar S-1)
//   Vulkan: buffer i at set 0, binding i (std430 storage buffers); the scalars in one push-constant
//           block in order (std430: each at a multiple of its size); block size from
//           specialization constant 0 (layout(local_size_x_id = 0) in;).
//   Vulkan bda form (optional, spirv_bda): no descriptor set; the push-constant block holds the
//           scalars, then, from the next multiple of 8 bytes, the N buffers' device addresses.
struct RuntimeModule {
  std::string name;   // what Launch::kernel names; unique per backend
  std::string entry;  // CUDA kernel symbol (extern "C" or lowered name) / SPIR-V entry point
  std::vector<std::uint8_t> cuda_image;  // CUDA: a cubin, or PTX text
  std::vector<std::uint32_t> spirv;      // Vulkan descriptor form
  std::vector<std::uint32_t> spirv_bda;  // Vulkan bda form; empty: the shader has none
  std::uint32_t buffers = 0;             // N
  std::vector<std::uint32_t> scalar_sizes;  // bytes of each scalar, in order (4 or 8)
  // Compile times paid by the host before loading (e.g. "NVRTC saxpy"), listed in startup_ms.
  std::vector<std::pair<std::string, double>> compile_ms;
};
// Where each scalar sits in Launch::scalars (each at a multiple of its size), and the block's size
// rounded up to 4 bytes.
std::vector<std::uint32_t> scalar_offsets(const std::vector<std::uint32_t>& sizes,
                                          std::uint32_t* total_bytes = nullptr);

// How the steps of a chain of dependent dispatches reach the GPU (issue 33; docs/MEASURING.md,
// "Chains"). CUDA: stream (K launches on one stream), graph (the K launches captured into a graph
// once per run() call, replayed each repetition), pdl (K cudaLaunchKernelEx with programmatic
// stream serialization). Vulkan: recorded (one command buffer of K dispatches recorded once per
// run() call, re-submitted each repetition), rerecorded (recorded again for every repetition),
// submit_each (one vkQueueSubmit per dispatch). Both: wait_each (the host waits for every step).
enum class Submission { stream, graph, pdl, recorded, rerecorded, submit_each, wait_each };
const char* submission_name(Submission s);  // "stream", ..., "submit-each", "wait-each"
inline constexpr std::array<Submission, 7> kSubmissions = {
    Submission::stream,     Submission::graph,       Submission::pdl,      Submission::recorded,
    Submission::rerecorded, Submission::submit_each, Submission::wait_each};

// A chain: `steps` (K) dependent launches of one kernel. Step 0 reads Launch::buffers[0]; step
// k > 0 reads what step k - 1 wrote; step k writes buffers[1] when K - 1 - k is even, else
// `scratch` (as large as buffers[1]), so the last step writes buffers[1] and the input is never
// written (chain_step).
struct Chain {
  std::uint32_t steps = 0;  // 0: no chain, one launch per repetition
  Submission submission = Submission::stream;
  DeviceBuffer* scratch = nullptr;
};

// One kernel launch, the one launch model of every kernel, built-in or run-time: `kernel` names
// it (a built-in kernel: the catalogue's name, the CUDA kernel's and the SPIR-V module's, e.g.
// "read_x_aos"; a run-time one: RuntimeModule::name), and it takes its buffers and scalars by
// the binding convention above (RuntimeModule). A built-in kernel is described to its backend as
// a run-time one would be: kBuiltinBuffers buffers (in, out) and one scalar, the CuvkParams block
// (kBuiltinScalarBytes at offset 0); builtin_launch fills them. Each backend checks the buffer
// count and the scalar bytes against the kernel's and refuses a mismatch with an Error.
struct Launch {
  std::string kernel;
  Geometry geometry;
  // The kernel's buffers in declared order and its scalars' bytes (laid out by scalar_offsets;
  // exactly the kernel's scalar bytes). kCopyEngine: buffers[0] is copied into buffers[1]
  // (buffers[1].bytes bytes); scalars, if any, are ignored.
  std::vector<BufferView> buffers{};
  std::vector<std::uint8_t> scalars{};
  Binding binding = Binding::descriptor;  // Vulkan: descriptor or bda; CUDA ignores it (pointers)
  // Dispatch trace (`cuvk trace`, built-in kernels): when set, the kernel's traced twin runs
  // instead, the same kernel plus timestamp writes, and writes one record of CUVK_TRACE_WORDS
  // words per block (params.h) into this buffer, which must hold grid_x * grid_y records. It is
  // the twin's extra buffer after the kernel's own (CUDA: the pointer after theirs; Vulkan:
  // binding N, or the address after theirs).
  DeviceBuffer* trace = nullptr;
  // kCopyEngine launches only: the queue family (QueueFamily::index) whose queue runs the copy;
  // -1: the backend's own queue (every other launch runs there).
  std::int32_t queue_family = -1;
  // Dynamic shared memory per block (CUDA run-time kernels; Vulkan shaders declare theirs).
  std::uint32_t shared_bytes = 0;
  // With chain.steps > 0 each repetition is the whole chain, and run() returns its GPU span: from
  // before the first step to after the last.
  Chain chain{};
  // A sequence of launches (issue 34, a multi-step kernel pair): when not empty, each
  // repetition runs the `sequence` `repeat` times in order, submitted as chain.submission says
  // (CUDA: stream, graph, wait_each; Vulkan: recorded, rerecorded, submit_each, wait_each), with
  // stream order (CUDA) or a compute-to-compute barrier (Vulkan) between consecutive launches, and
  // run() returns the GPU span of the whole repetition. The backend then reads only `sequence`,
  // `repeat`, `restore` and chain.submission (the runner counts the launches in chain.steps:
  // RunConfig::dispatch_chain; its own buffers may name the output the host reads back).
  // The steps may be built-in kernels (a chain of one kernel's dispatches) or run-time ones.
  // `restore`: copy-engine launches (kCopyEngine) that run before every repetition, before
  // RunOptions::before_each, outside the timed span (the pair's inputs put back).
  std::vector<Launch> sequence{};
  std::uint32_t repeat = 1;
  std::vector<Launch> restore{};
};

// A built-in kernel's buffers (in, out) and scalar bytes (the CuvkParams block).
inline constexpr std::uint32_t kBuiltinBuffers = 2;
inline constexpr std::uint32_t kBuiltinScalarBytes = sizeof(CuvkParams);

// The whole of `buffer` as a view.
BufferView whole(const DeviceBuffer& buffer);
// A built-in kernel's launch: buffers {in, out} (whole), scalars the bytes of `params`.
Launch builtin_launch(std::string kernel, const Geometry& geometry, const CuvkParams& params,
                      const DeviceBuffer& in, DeviceBuffer& out,
                      Binding binding = Binding::descriptor);
// A copy-engine launch (kCopyEngine): `from` copied into `to` (to.bytes() bytes).
Launch copy_launch(const DeviceBuffer& from, DeviceBuffer& to);
// The CuvkParams block a built-in launch carries in its scalars; zeros where it carries no scalars
// (e.g. the outer launch of a sequence); throws where they are not a CuvkParams block.
CuvkParams builtin_params(const Launch& launch);

// Launches a sequence may hold (distinct steps; Launch::repeat repeats them).
inline constexpr std::uint32_t kMaxSequenceSteps = 8;
// Launches one repetition of a sequence may issue (steps x repeat).
inline constexpr std::uint64_t kMaxSequenceLaunches = 1u << 16;

// Step `k` of `launch`'s chain as a plain launch: its buffers[0] and buffers[1] (Chain).
Launch chain_step(const Launch& launch, std::uint32_t k);

// A launch whose kernel is kCopyEngine copies buffers[0] into buffers[1] (buffers[1].bytes bytes;
// copy_launch) with the API's own copy command (cudaMemcpyAsync device-to-device /
// vkCmdCopyBuffer), timed like a kernel: the drivers' copy engines as a reference for the copy
// kernels' ceiling.
inline constexpr const char* kCopyEngine = "copy_engine";

// A queue family that can copy buffers (Backend::copy_queue_families): kCopyEngine launches may
// run on its queue (Launch::queue_family).
struct QueueFamily {
  std::uint32_t index = 0;                 // the API's queue family index
  std::string flags;                       // its capabilities, e.g. "graphics|compute|transfer"
  std::uint32_t queue_count = 0;           // 0: no queue to run on
  std::uint32_t timestamp_valid_bits = 0;  // 0: copies there cannot be timed
  bool compute = false;  // runs kernels too, so the L2 flush can run before each repetition
  bool own = false;      // the family of the backend's own queue (Launch::queue_family -1)
};

// What issuing work costs the CPU, sampled on the host clock (one value per issue).
struct HostCostSamples {
  std::vector<double> launch_us;      // issue one launch: CUDA cudaLaunchKernel; Vulkan record +
                                      // vkQueueSubmit of a fresh command buffer
  std::vector<double> submit_us;      // Vulkan: vkQueueSubmit of an already recorded command
                                      // buffer; CUDA: cudaGraphLaunch of a captured graph
  std::vector<double> round_trip_us;  // issue one launch and wait until it has completed
};

// How a backend is created. Only the Vulkan backend uses these today.
struct BackendOptions {
  // Enable VK_LAYER_KHRONOS_validation (with synchronization validation) and route every
  // message to on_message. Never used when timing for results: the layer changes timings.
  bool validation = false;
  std::function<void(const std::string&)> on_message;
  // Enable VK_KHR_shader_clock's device clock and VK_NV_shader_sm_builtins where offered, for
  // traced launches (`cuvk trace`; Launch::trace).
  bool trace = false;
  // Enable VK_KHR_pipeline_executable_properties where the driver offers it and create pipelines
  // with CAPTURE_STATISTICS, for ExecutableReports (`cuvk inspect`; never timed runs).
  bool pipeline_statistics = false;
  // Open a queue on every other queue family that can copy (the copy-queue test,
  // suite_kernels().copy_queues_test), buffers then shared by the families. Off: the compute queue
  // alone, as every other test is measured, and copy_queue_families() lists its family only.
  bool copy_queues = false;
  // How long the host waits for submitted work before it gives up: the launch is reported as
  // not finished, and the backend refuses all later work (hung()). The process should then end
  // without tearing the device down (a kernel may still be running).
  double timeout_s = 120.0;
};

struct RunOptions {
  int reps = 1;
  // If set, this launch runs before every repetition, outside the timed interval (L2 flush).
  const Launch* before_each = nullptr;
};

// Host memory registered with a backend (Backend::register_host); the registration ends with it.
class HostRegistration {
 public:
  virtual ~HostRegistration() = default;
};
constexpr std::size_t kHostRegisterAlign = std::size_t{2} << 20;  // 2 MiB: a huge page

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& info() const = 0;

  virtual std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) = 0;
  virtual void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) = 0;
  virtual void download(const DeviceBuffer& src, void* dst, std::size_t bytes) = 0;
  // Sets every 32-bit word of the buffer to `word` (poisoning outputs, zeroing scratch).
  virtual void fill(DeviceBuffer& dst, std::uint32_t word) = 0;
  // Optional: makes [data, data + bytes) host memory that upload and download copy straight from
  // and into (CUDA: pinned; Vulkan: imported with VK_EXT_external_memory_host) until the returned
  // registration is destroyed, which must happen before the memory goes. `data` and `bytes` are
  // multiples of kHostRegisterAlign. Null: not offered here (transfers still work, more slowly).
  virtual std::unique_ptr<HostRegistration> register_host(void* data, std::size_t bytes);

  // Device memory this process could still allocate (the driver's budget where it reports one).
  virtual std::uint64_t free_memory_bytes() const = 0;

  // Kernels this backend carries (for the catalogue's start-up consistency check).
  virtual std::vector<std::string> kernels() const = 0;

  // "" when launches with `binding` can run here, else why not (e.g. no bufferDeviceAddress).
  virtual std::string binding_unsupported(Binding binding) const {
    return binding == native_binding(info().api)
               ? std::string()
               : std::string(api_name(info().api)) + " backend has no " + binding_name(binding) +
                     " binding";
  }

  // Loads a kernel compiled at run time; launches may name it from then on. Throws Error with the
  // driver's log where it cannot (bad image, missing entry point, too many buffers).
  virtual void load_module(const RuntimeModule& module);
  // "" while the device is usable; else why not (a launch did not finish within timeout_s).
  virtual std::string hung() const { return {}; }

  // Runs `launch` opt.reps times, back to back and serialised (each repetition sees the previous
  // one's writes), and returns each repetition's GPU time in milliseconds, measured on the GPU's
  // own clock around that launch alone (a chain: its whole span, Launch::chain). Blocks until the
  // GPU is done.
  virtual std::vector<double> run(const Launch& launch, const RunOptions& opt) = 0;

  // "" when chains can be submitted in `s` here, else why not (e.g. an API's modes are not the
  // other's; pdl below compute capability 9.0).
  virtual std::string submission_unsupported(Submission s) const;

  // Queue families that can copy buffers, the backend's own among them; empty where the API has
  // no such choice (CUDA: cudaMemcpyAsync picks its copy engine itself).
  virtual std::vector<QueueFamily> copy_queue_families() const { return {}; }

  // Host-side costs of `samples` issues of `launch` (which should be tiny) per kind of issue.
  virtual HostCostSamples host_cost(const Launch& launch, int samples) = 0;

  // One-time costs paid so far, in milliseconds, in the order they happened (e.g. context,
  // instance, device, pipeline creation).
  virtual std::vector<std::pair<std::string, double>> startup_ms() const = 0;

  // The backend's implementation of the optional capability C (capabilities.h), or null where it
  // has none; lacks<C>() then says so in words ("vulkan backend reports no kernel resources").
  template <class C>
  C* find() {
    return dynamic_cast<C*>(capability(typeid(C)));
  }
  template <class C>
  const C* find() const {
    return const_cast<Backend*>(this)->find<C>();
  }
  template <class C>
  std::string lacks() const {
    return std::string(api_name(info().api)) + " backend " + C::kLacking;
  }

 protected:
  // The capability `type` names, or null (the default: none). A backend lists what it has with
  // offer<...>(this, type).
  virtual Capability* capability(std::type_index type);
};

}  // namespace cuvk
