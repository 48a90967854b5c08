// `cuvk run`: the devices a run opens (cmd_run.h): those opened early beside the enumeration
// (InventoryOnce), then the chosen backends, clock monitor and counter session (open_backends).
#include <algorithm>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <string>

#include "catalogue.h"
#include "cmd_run.h"
#include "counters.h"
#include "devices.h"
#include "error.h"
#include "nvml.h"

namespace cuvk {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Whether the run has points of the copy-queue test (its size sweep is off unless given).
bool has_copy_queue_points(const RunConfig& cfg) {
  const TestCase* t = find_test(suite_kernels().copy_queues_test);
  if (t == nullptr || std::find(cfg.tests.begin(), cfg.tests.end(), t->name) == cfg.tests.end())
    return false;
  return !points_of(*t, 1, cfg.axis_values, cfg.layouts, cfg.variants).empty();
}

}  // namespace

// The copy-queue test opens a queue on every Vulkan family that can copy; other runs keep the
// compute queue alone (fewer queues to create, buffers exclusive to it).
// `timeout_s` bounds every wait for the GPU (--timeout).
BackendOptions vulkan_options(const RunConfig& cfg, double timeout_s) {
  BackendOptions opts;
  opts.copy_queues = has_copy_queue_points(cfg);
  opts.timeout_s = timeout_s;
  opts.trace = cfg.trace;  // `cuvk trace`: the traced twins and the shader clock
  return opts;
}

void open_backends(const RunConfig& cfg, const BackendOptions& opts, DeviceChoice& choice,
                   InventoryOnce& devices, OpenBackends& b) {
  const bool want_cuda = std::find(cfg.apis.begin(), cfg.apis.end(), Api::cuda) != cfg.apis.end();
  const bool want_vk = std::find(cfg.apis.begin(), cfg.apis.end(), Api::vulkan) != cfg.apis.end();
  // Those opened early where they are the ones chosen (InventoryOnce::open_early).
  if (want_cuda && choice.cuda)
    b.cuda = devices.take_early(Api::cuda, choice.cuda->index, opts, b.cuda_s);
  if (want_vk && choice.vulkan)
    b.vulkan = devices.take_early(Api::vulkan, choice.vulkan->index, opts, b.vulkan_s);
  // CUDA's context is created on another thread while Vulkan creates its device.
  auto cuda_started = std::async(std::launch::async, [&] {
    if (!want_cuda || !choice.cuda || b.cuda) return;
    const auto t0 = std::chrono::steady_clock::now();
    struct Timed {
      std::chrono::steady_clock::time_point t0;
      double& s;
      ~Timed() { s = seconds_since(t0); }
    } timed{t0, b.cuda_s};
    try {
      b.cuda = make_backend(Api::cuda, choice.cuda->index, opts);
    } catch (const std::exception& e) {
      choice.cuda_reason = e.what();
    }
  });
  if (want_vk && choice.vulkan && !b.vulkan) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      b.vulkan = make_backend(Api::vulkan, choice.vulkan->index, opts);
    } catch (const std::exception& e) {
      choice.vulkan_reason = e.what();
    }
    b.vulkan_s = seconds_since(t0);
  }
  cuda_started.get();
  const auto clocks_t0 = std::chrono::steady_clock::now();
  b.set.backends[Api::cuda] = b.cuda.get();
  b.set.backends[Api::vulkan] = b.vulkan.get();
  if (b.cuda || b.vulkan) {
    const DeviceInfo& d = b.cuda ? b.cuda->info() : b.vulkan->info();
    b.clocks = devices.take_early_clocks(d.uuid, b.set.clocks_reason);
    if (!b.clocks && b.set.clocks_reason.empty())
      b.clocks = open_clock_monitor(d.uuid, &b.set.clocks_reason);
    b.set.clocks = b.clocks.get();
    if (cfg.counters && d.is_cpu)
      b.set.counters_reason = "a CPU device (" + d.name + ") has no hardware counters";
    else if (cfg.counters)
      b.counters = open_counters(d.uuid, &b.set.counters_reason);
    b.set.counters = b.counters.get();
  }
  b.clocks_s = seconds_since(clocks_t0);
  b.set.reasons[Api::cuda] = choice.cuda_reason;
  b.set.reasons[Api::vulkan] = choice.vulkan_reason;
  if (!b.cuda && !b.vulkan)
    throw Error(
        "no API can run: CUDA: " + (want_cuda ? choice.cuda_reason : std::string("not selected")) +
        "; Vulkan: " + (want_vk ? choice.vulkan_reason : std::string("not selected")));
}

struct InventoryOnce::Early {
  ~Early() {  // the threads write the members below: they end first
    if (cuda.valid()) cuda.wait();
    if (vulkan.valid()) vulkan.wait();
  }
  bool copy_queues = false;
  bool trace = false;        // BackendOptions::trace (`cuvk trace`)
  double timeout_s = 120.0;  // --timeout of the run that opened them
  std::future<std::unique_ptr<Backend>> cuda, vulkan;
  double cuda_s = 0.0, vulkan_s = 0.0;
  std::unique_ptr<Backend> vulkan_ready;  // taken from `vulkan` by the enumeration
  std::unique_ptr<ClockMonitor> clocks;   // for the early CUDA device's GPU
  Uuid clocks_uuid{};
  std::string clocks_why;
};

const DeviceInventory& InventoryOnce::get() {
  if (inventory_) return *inventory_;
  // Vulkan's devices through the early backend's instance where one opened: one instance less.
  if (early_ && early_->vulkan.valid()) early_->vulkan_ready = early_->vulkan.get();
  inventory_ = take_inventory(BackendOptions{}, early_ ? early_->vulkan_ready.get() : nullptr);
  return *inventory_;
}

void InventoryOnce::open_early(const std::vector<Api>& apis, const BackendOptions& vk_options) {
  if (early_ || vk_options.validation) return;  // the layer's messages belong to the run
  auto early = std::make_shared<Early>();
  early->copy_queues = vk_options.copy_queues;
  early->trace = vk_options.trace;
  early->timeout_s = vk_options.timeout_s;
  const auto open = [](Api api, BackendOptions opts, double* open_s) {
    return [api, opts, open_s]() -> std::unique_ptr<Backend> {
      const auto t0 = std::chrono::steady_clock::now();
      std::unique_ptr<Backend> b;
      try {
        b = make_backend(api, 0, opts);
      } catch (const std::exception&) {  // the run opens what it chose and reports why not
      }
      *open_s = seconds_since(t0);
      return b;
    };
  };
  for (Api api : apis) {  // the futures live in `early`, which outlives them (the threads)
    if (api == Api::cuda)
      early->cuda = std::async(std::launch::async, [open, e = early.get()] {
        BackendOptions cuda_opts;
        cuda_opts.timeout_s = e->timeout_s;
        std::unique_ptr<Backend> b = open(Api::cuda, cuda_opts, &e->cuda_s)();
        if (b) {  // NVML too, for that GPU (the run's clock monitor where it is the one chosen)
          e->clocks_uuid = b->info().uuid;
          e->clocks = open_clock_monitor(e->clocks_uuid, &e->clocks_why);
        }
        return b;
      });
    else
      early->vulkan = std::async(std::launch::async, open(api, vk_options, &early->vulkan_s));
  }
  early_ = std::move(early);
}

std::unique_ptr<ClockMonitor> InventoryOnce::take_early_clocks(const Uuid& uuid, std::string& why) {
  if (!early_ || early_->cuda.valid() || early_->clocks_uuid != uuid) return nullptr;
  if (!early_->clocks) why = early_->clocks_why;
  return std::move(early_->clocks);
}

std::unique_ptr<Backend> InventoryOnce::take_early(Api api, int index,
                                                   const BackendOptions& vk_options,
                                                   double& open_s) {
  if (!early_) return nullptr;
  std::future<std::unique_ptr<Backend>>& f = api == Api::cuda ? early_->cuda : early_->vulkan;
  std::unique_ptr<Backend> b;
  if (api == Api::vulkan && early_->vulkan_ready)
    b = std::move(early_->vulkan_ready);
  else if (f.valid())
    b = f.get();
  else
    return nullptr;
  open_s = api == Api::cuda ? early_->cuda_s : early_->vulkan_s;
  const bool fits =
      index == 0 && !vk_options.validation && vk_options.timeout_s == early_->timeout_s &&
      (api == Api::cuda ||
       (vk_options.copy_queues == early_->copy_queues && vk_options.trace == early_->trace));
  return fits ? std::move(b) : nullptr;
}

}  // namespace cuvk
