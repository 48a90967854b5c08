// `cuvk p2p`'s output: the probes (what the node offers), the rows, the GPU-to-GPU matrix and the
// staged copies' CUDA-vs-Vulkan parity, as a table, Markdown or JSON.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "node_p2p.h"
#include "printing.h"

namespace cuvk {

// What was probed before anything ran: per GPU and per ordered pair, key/value lines.
struct P2pProbe {
  std::vector<std::pair<std::string, std::string>> devices;  // ("GPU 0 cuda", "name, ...")
  std::vector<std::pair<std::string, std::string>> pairs;    // ("0 -> 1", "cudaDeviceCanAccessPeer = 1")
};

struct P2pReport {
  P2pProbe probe;
  std::vector<P2pRow> rows;
  double tolerance = 0.03;
  int warmup = 0, reps = 0;
  std::size_t chunk_bytes = 0;
  std::vector<std::string> labels;  // per position
};

std::string format_p2p(const P2pReport& report, Format format);

}  // namespace cuvk
