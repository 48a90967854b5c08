// `cuvk p2p`'s options (CLI11); its work is host/app/p2p_command.cpp.
#include <memory>

#include "cli.h"
#include "commands.h"
#include "p2p_command.h"

namespace cuvk {

Command add_p2p_command(CLI::App& app) {
  auto a = std::make_shared<P2pArgs>();
  CLI::App* sub = app.add_subcommand(
      "p2p",
      "GPU to GPU copies: staged through host memory on both APIs (verified, with parity), "
      "CUDA peer copies as the node's capability");
  sub->add_option("--device", a->device,
                  "GPUs to pair: all, or a list of CUDA indices (Vulkan where CUDA is absent); "
                  "the same GPU twice (0,0) is a loopback through host memory");
  sub->add_option("--sizes", a->sizes, "bytes per transfer, a list with k, M, G suffixes")
      ->capture_default_str();
  sub->add_option("--reps", a->reps, "timed repetitions per row (host wall clock)")
      ->capture_default_str();
  sub->add_option("--warmup", a->warmup, "untimed repetitions before them")->capture_default_str();
  sub->add_option("--format", a->format, "table, md or json")->capture_default_str();
  sub->add_option("--output", a->output, "write the output here instead of stdout");
  sub->add_option("--tolerance", a->tolerance, "parity: SAME within this percentage")
      ->capture_default_str();
  sub->add_option("--plot", a->plot,
                  "draw GB/s per direction by size, a panel per pair (.png, .svg or .pdf) with "
                  "matplotlib; skipped (exit 3) without python3-matplotlib");
  sub->add_flag("--validation", a->validation,
                "Vulkan validation layer on (tests; never for results)");
  return {sub, [a] { return p2p_command(*a); }, [a] { check_p2p_args(*a); }};
}

}  // namespace cuvk
