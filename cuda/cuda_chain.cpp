// Chains of dependent launches in the CUDA submission modes (cuda_chain.h). Waits: the host waits
// for each repetition's last event with cudaEventSynchronize, and in wait_each for every step with
// cudaStreamSynchronize; the backend leaves the device's schedule at cudaDeviceScheduleAuto, so
// both spin while the process has fewer active CUDA contexts than the host has cores (one
// context: spin), else yield.
#include "cuda_chain.h"

#include <memory>

#include "cuda_check.h"
#include "error.h"
#include "timestamps.h"

namespace cuvk::cuda {
namespace {

class ChainEvent {
 public:
  ChainEvent() { CUVK_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~ChainEvent() { cudaEventDestroy(event_); }
  ChainEvent(const ChainEvent&) = delete;
  ChainEvent& operator=(const ChainEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A graph of the chain's launches, captured and instantiated once (per run_chain call).
class ChainGraph {
 public:
  ChainGraph(cudaStream_t stream, const std::function<void()>& record) {
    CUVK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      record();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      static_cast<void>(cudaStreamEndCapture(stream, &partial));
      if (partial) cudaGraphDestroy(partial);
      throw;
    }
    cudaGraph_t graph = nullptr;
    CUVK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    const cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    CUVK_CUDA_CHECK(e);
  }
  ~ChainGraph() { cudaGraphExecDestroy(exec_); }
  ChainGraph(const ChainGraph&) = delete;
  ChainGraph& operator=(const ChainGraph&) = delete;
  cudaGraphExec_t get() const { return exec_; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// Step k under pdl (every step after the first) may start while step k - 1 finishes; the
// kernel's griddepcontrol.wait keeps it from reading before step k - 1's writes are visible.
void launch_steps(cudaStream_t stream, const ChainPlan& p) {
  for (std::size_t k = 0; k < p.launches.size(); ++k) {
    p.launches[k](p.submission == Submission::pdl && k > 0);
    if (p.submission == Submission::wait_each) CUVK_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

}  // namespace

std::string chain_unsupported(Submission s, int device) {
  switch (s) {
    case Submission::stream:
    case Submission::graph:
    case Submission::wait_each:
      return "";
    case Submission::pdl: {
      int major = 0, minor = 0;
      CUVK_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
      CUVK_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
      if (major >= 9) return "";
      return "programmatic dependent launch needs compute capability 9.0 (griddepcontrol); this "
             "device has " +
             std::to_string(major) + "." + std::to_string(minor);
    }
    default:
      break;
  }
  return std::string("cuda backend cannot submit chains as ") + submission_name(s) +
         " (a Vulkan submission mode)";
}

std::vector<double> run_chain(cudaStream_t stream, const ChainPlan& plan, int reps,
                              const std::function<void()>& before) {
  if (plan.launches.empty()) throw Error("CUDA chain of no steps");
  if (!plan.pdl_capable && plan.submission == Submission::pdl)
    throw Error("CUDA sequence: pdl needs kernels that wait with griddepcontrol (built-in chains)");
  int device = 0;
  CUVK_CUDA_CHECK(cudaGetDevice(&device));
  if (const std::string why = chain_unsupported(plan.submission, device); !why.empty())
    throw Error("CUDA chain: " + why);
  std::unique_ptr<ChainGraph> graph;
  if (plan.submission == Submission::graph)
    graph = std::make_unique<ChainGraph>(stream, [&] { launch_steps(stream, plan); });
  ChainEvent start, stop;
  std::vector<double> spans_ms;
  for (int r = 0; r < reps; ++r) {
    if (before) before();
    CUVK_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    if (graph)
      CUVK_CUDA_CHECK(cudaGraphLaunch(graph->get(), stream));
    else
      launch_steps(stream, plan);
    CUVK_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    if (plan.wait) plan.wait(stop.get());
    else CUVK_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0.0f;
    CUVK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    spans_ms.push_back(timing::event_interval_ms(ms));
  }
  return spans_ms;
}

}  // namespace cuvk::cuda
