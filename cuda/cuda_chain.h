// Chains of dependent launches (Launch::chain, issue 33) on one stream, in the CUDA submission
// modes: stream, graph, pdl, wait_each. Private to cuda/; the backend resolves the kernel and the
// buffers of each step, this file submits and times them.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"

namespace cuvk::cuda {

using KernelFn = void (*)(CuvkParams, const float*, float*);

using TracedFn = void (*)(CuvkParams, const float*, float*, unsigned*);

struct ChainPlan {
  KernelFn fn = nullptr;
  // Launch::trace set: every step runs the traced twin into this buffer (the last step's records
  // are what remains), as the Vulkan backend's chains do.
  TracedFn traced = nullptr;
  unsigned* trace = nullptr;
  dim3 grid, block;
  CuvkParams params{};
  std::vector<std::pair<const float*, float*>> steps;  // (in, out) of each step, in order
  // A sequence of run-time launches (Launch::sequence) instead: each issues one launch on the
  // stream, in order; fn, traced, grid, block, params and steps are then unused (no pdl).
  std::vector<std::function<void()>> launches;
  // How the host waits for a repetition's closing event; empty: cudaEventSynchronize. A sequence
  // of run-time kernels waits with the backend's deadline (--timeout): a kernel might never end.
  std::function<void(cudaEvent_t)> wait;
  Submission submission = Submission::stream;
};

// "" where `s` can run on CUDA device `device`, else why not.
std::string chain_unsupported(Submission s, int device);

// `reps` repetitions of the chain on `stream`, each after `before` (may be empty: the L2 flush,
// outside the interval): events before the first step and after the last, and the host waits for
// the last event before the next repetition. Returns each repetition's span in milliseconds.
std::vector<double> run_chain(cudaStream_t stream, const ChainPlan& plan, int reps,
                              const std::function<void()>& before);

}  // namespace cuvk::cuda
