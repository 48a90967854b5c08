// Issue 19 (capab): the factory of cuvk_bare_backends, a cuvk whose backends offer no optional
// capability (backend.h: Traces, ExecutableReports, KernelResourceReports, PipelineCache). Each is
// the real backend behind a wrapper that forwards what every backend does and nothing else, so
// `cuvk inspect` and `cuvk trace` meet backends that lack them and must say so.
#include <memory>
#include <string>
#include <vector>

#include "backends.h"
#include "cuda_backend.h"
#include "spirv_modules.h"
#include "vulkan_backend.h"

namespace cuvk {
namespace {

class BareBackend final : public Backend {
 public:
  explicit BareBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  const DeviceInfo& info() const override { return inner_->info(); }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return inner_->allocate(bytes);
  }
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    inner_->upload(dst, src, bytes);
  }
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    inner_->download(src, dst, bytes);
  }
  void fill(DeviceBuffer& dst, std::uint32_t word) override { inner_->fill(dst, word); }
  std::uint64_t free_memory_bytes() const override { return inner_->free_memory_bytes(); }
  std::vector<std::string> kernels() const override { return inner_->kernels(); }
  std::string binding_unsupported(Binding binding) const override {
    return inner_->binding_unsupported(binding);
  }
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override {
    return inner_->run(launch, opt);
  }
  HostCostSamples host_cost(const Launch& launch, int samples) override {
    return inner_->host_cost(launch, samples);
  }
  std::vector<std::pair<std::string, double>> startup_ms() const override {
    return inner_->startup_ms();
  }

 private:
  std::unique_ptr<Backend> inner_;
};

}  // namespace

DeviceInventory take_inventory(const BackendOptions& options) {
  return take_inventory(options, nullptr);
}

DeviceInventory take_inventory(const BackendOptions& options, const Backend*) {
  DeviceInventory inv;
  try {
    inv.cuda = cuda_devices();
  } catch (const std::exception& e) {
    inv.cuda_error = e.what();
  }
  try {
    inv.vulkan = vulkan_devices(options);
  } catch (const std::exception& e) {
    inv.vulkan_error = e.what();
  }
  return inv;
}

std::unique_ptr<Backend> make_backend(Api api, int index, const BackendOptions& options) {
  return std::make_unique<BareBackend>(api == Api::cuda
                                           ? make_cuda_backend(index, options.timeout_s)
                                           : make_vulkan_backend(index, options));
}

std::vector<std::string> built_kernels(Api api) {
  if (api == Api::cuda) return cuda_kernel_names();
  std::vector<std::string> names;
  for (const SpirvModule& m : spirv_modules()) names.emplace_back(m.name);
  return names;
}

}  // namespace cuvk
