// Chains of dependent launches (Launch::chain, issue 33) on one stream, in the CUDA submission
// modes: stream, graph, pdl, wait_each. Private to cuda/; the backend resolves the kernel and the
// buffers of each step (its one enqueue, cuda_launch.h), this file submits and times them.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::cuda {

struct ChainPlan {
  // The launches of one repetition, in order, each issuing one launch on the stream (the
  // backend's enqueue: a chain's steps or a sequence's launches). A step after the first under
  // pdl is issued with programmatic stream serialization: launches(k, true).
  std::vector<std::function<void(bool pdl)>> launches;
  // pdl needs kernels that wait with griddepcontrol: the built-in chains' kernel.
  bool pdl_capable = false;
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
