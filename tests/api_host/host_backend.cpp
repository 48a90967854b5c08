#include "host_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "cpu_kernels.h"
#include "error.h"

namespace cuvk::host_api {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

HostBuffer& host(DeviceBuffer& b) {
  return static_cast<HostBuffer&>(b);
}
const HostBuffer& host(const DeviceBuffer& b) {
  return static_cast<const HostBuffer&>(b);
}

class HostBackend final : public Backend {
 public:
  HostBackend() : info_(host_devices().front()) {}
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    if (bytes > dst.bytes()) throw Error("host upload: " + std::to_string(bytes) + " bytes");
    std::memcpy(host(dst).words.data(), src, bytes);
  }
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    if (bytes > src.bytes()) throw Error("host download: " + std::to_string(bytes) + " bytes");
    std::memcpy(dst, host(src).words.data(), bytes);
  }
  void fill(DeviceBuffer& dst, std::uint32_t word) override {
    std::fill(host(dst).words.begin(), host(dst).words.end(), word);
  }
  std::uint64_t free_memory_bytes() const override { return info_.memory_bytes; }
  std::vector<std::string> kernels() const override { return host_kernel_names(); }

  // Every kernel here is a built-in one: two buffers (in, out) and the CuvkParams block, checked
  // as the contract asks (backend.h, Launch) before anything runs.
  static void check_shape(const Launch& l) {
    if (l.buffers.size() != kBuiltinBuffers || l.scalars.size() != kBuiltinScalarBytes)
      throw Error("host backend: launch of '" + l.kernel + "' gives " +
                  std::to_string(l.buffers.size()) + " buffers and " +
                  std::to_string(l.scalars.size()) + " scalar bytes; its kernels take " +
                  std::to_string(kBuiltinBuffers) + " and " + std::to_string(kBuiltinScalarBytes));
  }

  // Each repetition: the before_each launch (untimed), then the kernel between two host clock
  // reads. Single launches only: chains and sequences are not offered.
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override {
    if (launch.chain.steps > 0 || !launch.sequence.empty() || launch.trace != nullptr)
      throw Error("host backend runs single launches only (" + launch.kernel + ")");
    const CpuKernel kernel = find(launch.kernel);
    check_shape(launch);
    if (opt.before_each) check_shape(*opt.before_each);
    std::vector<double> times;
    for (int r = 0; r < opt.reps; ++r) {
      if (opt.before_each) find(opt.before_each->kernel)(*opt.before_each);
      const auto t0 = Clock::now();
      kernel(launch);
      times.push_back(ms_since(t0));
    }
    return times;
  }

  // Host costs: one issue is one kernel call here; the three kinds are the same call.
  HostCostSamples host_cost(const Launch& launch, int samples) override {
    HostCostSamples s;
    for (int i = 0; i < samples; ++i) {
      const double us = 1000.0 * run(launch, RunOptions{1, nullptr}).front();
      s.launch_us.push_back(us);
      s.submit_us.push_back(us);
      s.round_trip_us.push_back(us);
    }
    return s;
  }
  std::vector<std::pair<std::string, double>> startup_ms() const override { return {}; }

 private:
  static CpuKernel find(const std::string& name) {
    const auto k = cpu_kernels().find(name);
    if (k == cpu_kernels().end()) throw Error("host backend has no kernel " + name);
    return k->second;
  }
  DeviceInfo info_;
};

}  // namespace

std::vector<DeviceInfo> host_devices() {
  DeviceInfo d;
  d.api = Api::host;
  d.index = 0;
  d.name = "host memory (test API)";
  d.uuid = kHostUuid;
  d.is_cpu = true;
  d.memory_bytes = std::uint64_t{1} << 32;
  d.max_buffer_bytes = std::uint64_t{1} << 31;
  d.max_block_size = 1024;
  d.max_grid_x = 0x7fffffffu;
  d.max_grid_y = 65535;
  const double tick_ns = 1e9 * Clock::period::num / Clock::period::den;
  d.timer = {tick_ns, 0, "std::chrono::steady_clock: a host clock, not a GPU timer"};
  d.driver = "cuvk tests/api_host";
  return {d};
}

std::unique_ptr<Backend> make_host_backend(int index) {
  if (index != 0)
    throw Error("the host API has one device (index 0), not index " + std::to_string(index));
  return std::make_unique<HostBackend>();
}

std::vector<std::string> host_kernel_names() {
  std::vector<std::string> names;
  for (const auto& [name, kernel] : cpu_kernels()) names.push_back(name);
  return names;
}

}  // namespace cuvk::host_api
