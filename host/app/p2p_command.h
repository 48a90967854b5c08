// `cuvk p2p`'s work: the GPUs paired, opened and probed, GPU to GPU copies measured, written and
// drawn (host/cli/cmd_p2p.cpp gathers its options).
#pragma once

#include <string>
#include <vector>

#include "run.h"  // kAllDevices

namespace cuvk {

struct P2pArgs {
  std::string device = kAllDevices;
  std::string sizes = "64k,1M,64M,1G";
  int reps = 20, warmup = 2;
  std::string format = "table", output, tolerance = "3", plot;
  bool validation = false;
};

void check_p2p_args(const P2pArgs& a);

int p2p_command(const P2pArgs& a);

}  // namespace cuvk
