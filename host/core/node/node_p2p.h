// `cuvk p2p`'s measurements: for every ordered pair of the listed GPUs and every size, the staged
// copy on each API, CUDA's peer copy and peer-read kernel, and both directions at once; each row
// timed with the host clock and verified word by word. docs/MEASURING.md, "GPU to GPU".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "node_copy.h"
#include "stats.h"

namespace cuvk {

// A listed GPU: its position in --device's list and its backend per API (null: why not).
struct P2pDevice {
  std::string label;  // "0": the CUDA index (the Vulkan index where CUDA is absent)
  PerApi<Backend*> backend;
  PerApi<std::string> why;
};

struct P2pConfig {
  std::vector<std::uint64_t> sizes;  // bytes, multiples of 4
  int warmup = 2;
  int reps = 20;
  std::size_t chunk_bytes = kStagedChunkBytes;
  ChunkHook hook;  // tests: corrupt a chunk on its way through host memory
};

enum class P2pMethod { staged, peer_copy, peer_read };
const char* p2p_method_name(P2pMethod m);  // staged, peer-copy, peer-read

struct P2pRow {
  std::size_t src = 0, dst = 0;  // positions in the device list
  Api api = Api::cuda;
  P2pMethod method = P2pMethod::staged;
  bool both = false;  // both directions at once: src -> dst and dst -> src, bytes each way
  std::uint64_t bytes = 0;
  std::string state = "ok";  // ok, failed, unavailable
  std::string note;          // why unavailable / what failed
  Summary ms;                // host wall time of the whole transfer
  std::size_t chunks = 0;    // staged: chunks per direction
  double gbps() const;       // bytes per direction / median time
};

// Every row for `devices` (two or more; the same GPU twice is a loopback through host memory).
std::vector<P2pRow> measure_p2p(const std::vector<P2pDevice>& devices, const P2pConfig& config);

}  // namespace cuvk
