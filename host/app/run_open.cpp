// `cuvk run`: the devices a run opens (cmd_run.h): those opened early beside the enumeration
// (InventoryOnce), then the chosen backends, clock monitor and counter session (open_backends).
#include <algorithm>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <string>

#include "catalogue.h"
#include "run.h"
#include "counters.h"
#include "devices.h"
#include "error.h"
#include "numbers.h"
#include "nvml.h"

namespace cuvk {

namespace {

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
  PerApi<bool> wanted;
  for (Api api : cfg.apis) wanted[api] = true;
  // Those opened early where they are the ones chosen (InventoryOnce::open_early).
  for (Api api : kApis)
    if (wanted[api] && choice.device(api))
      b.backends[api] = devices.take_early(api, choice.device(api)->index, opts, b.open_s[api]);
  const auto open = [&](Api api) {
    if (!wanted[api] || !choice.device(api) || b.backends[api]) return;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      b.backends[api] = make_backend(api, choice.device(api)->index, opts);
    } catch (const std::exception& e) {
      choice.reason(api) = e.what();
    }
    b.open_s[api] = seconds_since(t0);
  };
  // CUDA's context is created on another thread while Vulkan creates its device.
  auto cuda_started = std::async(std::launch::async, open, Api::cuda);
  open(Api::vulkan);
  cuda_started.get();
  const auto clocks_t0 = std::chrono::steady_clock::now();
  const Backend* first =
      nullptr;  // the device the clocks and counters watch: CUDA's, else Vulkan's
  for (Api api : kApis) {
    b.set.backends[api] = b.backends[api].get();
    b.set.reasons[api] = choice.reason(api);
    if (first == nullptr) first = b.set.backends[api];
  }
  if (first != nullptr) {
    const DeviceInfo& d = first->info();
    b.clocks = devices.take_early_clocks(d.uuid, b.set.clocks_reason);
    if (!b.clocks && b.set.clocks_reason.empty())
      b.clocks = open_clock_monitor(d.uuid, &b.set.clocks_reason);
    b.set.clocks = b.clocks.get();
    if (cfg.counters && d.is_cpu)
      b.set.counters_reason = "a CPU device (" + d.name + ") has no hardware counters";
    b.clocks_s = seconds_since(clocks_t0);
    const auto counters_t0 = std::chrono::steady_clock::now();
    if (cfg.counters && !d.is_cpu)  // CUPTI's own start: its phase, not the clock monitor's
      b.counters = open_counters(d.uuid, &b.set.counters_reason);
    b.counters_s = seconds_since(counters_t0);
    b.set.counters = b.counters.get();
  }
  if (first == nullptr)
    throw Error(
        "no API can run: CUDA: " +
        (wanted[Api::cuda] ? choice.cuda_reason : std::string("not selected")) +
        "; Vulkan: " + (wanted[Api::vulkan] ? choice.vulkan_reason : std::string("not selected")));
}

struct InventoryOnce::Early {
  ~Early() {  // the threads write the members below: they end first
    for (Api api : kApis)
      if (opening[api].valid()) opening[api].wait();
  }
  bool copy_queues = false;
  bool trace = false;        // BackendOptions::trace (`cuvk trace`)
  double timeout_s = 120.0;  // --timeout of the run that opened them
  PerApi<std::future<std::unique_ptr<Backend>>> opening;
  PerApi<double> open_s;
  std::unique_ptr<Backend> vulkan_ready;  // taken from opening[vulkan] by the enumeration
  std::unique_ptr<ClockMonitor> clocks;   // for the early CUDA device's GPU
  Uuid clocks_uuid{};
  std::string clocks_why;
};

const DeviceInventory& InventoryOnce::get() {
  if (inventory_) return *inventory_;
  // Vulkan's devices through the early backend's instance where one opened: one instance less.
  if (early_ && early_->opening[Api::vulkan].valid())
    early_->vulkan_ready = early_->opening[Api::vulkan].get();
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
      early->opening[api] = std::async(std::launch::async, [open, e = early.get()] {
        BackendOptions cuda_opts;
        cuda_opts.timeout_s = e->timeout_s;
        std::unique_ptr<Backend> b = open(Api::cuda, cuda_opts, &e->open_s[Api::cuda])();
        if (b) {  // NVML too, for that GPU (the run's clock monitor where it is the one chosen)
          e->clocks_uuid = b->info().uuid;
          e->clocks = open_clock_monitor(e->clocks_uuid, &e->clocks_why);
        }
        return b;
      });
    else
      early->opening[api] =
          std::async(std::launch::async, open(api, vk_options, &early->open_s[api]));
  }
  early_ = std::move(early);
}

std::unique_ptr<ClockMonitor> InventoryOnce::take_early_clocks(const Uuid& uuid, std::string& why) {
  if (!early_ || early_->opening[Api::cuda].valid() || early_->clocks_uuid != uuid) return nullptr;
  if (!early_->clocks) why = early_->clocks_why;
  return std::move(early_->clocks);
}

std::unique_ptr<Backend> InventoryOnce::take_early(Api api, int index,
                                                   const BackendOptions& vk_options,
                                                   double& open_s) {
  if (!early_) return nullptr;
  std::future<std::unique_ptr<Backend>>& f = early_->opening[api];
  std::unique_ptr<Backend> b;
  if (api == Api::vulkan && early_->vulkan_ready)
    b = std::move(early_->vulkan_ready);
  else if (f.valid())
    b = f.get();
  else
    return nullptr;
  open_s = early_->open_s[api];
  const bool fits =
      index == 0 && !vk_options.validation && vk_options.timeout_s == early_->timeout_s &&
      (api == Api::cuda ||
       (vk_options.copy_queues == early_->copy_queues && vk_options.trace == early_->trace));
  return fits ? std::move(b) : nullptr;
}

namespace {
std::vector<std::string> g_hung;  // hung_launches()
}  // namespace

void leave_hung(OpenBackends& backends) {
  for (Api api : kApis)
    if (std::unique_ptr<Backend>& b = backends.backends[api]; b && !b->hung().empty()) {
      g_hung.push_back(std::string(api_name(api)) + ": " + b->hung());
      static_cast<void>(b.release());
    }
}

const std::vector<std::string>& hung_launches() {
  return g_hung;
}

}  // namespace cuvk
