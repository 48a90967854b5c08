// `cuvk inspect TEST` and `cuvk inspect --pair FILE`: the options (CLI11); the work is
// host/app/inspect_command.cpp and inspect_pair.cpp.
#include <memory>
#include <optional>

#include "axes.h"
#include "cli.h"
#include "commands.h"
#include "inspect_sides.h"

namespace cuvk {

Command add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<inspect_cli::InspectArgs>();
  CLI::App* sub = app.add_subcommand(
      "inspect",
      "explain parity gaps: one test's kernels side by side (registers, PTX/SASS and SPIR-V "
      "load/store forms, layouts, occupancy) with full listings");
  sub->add_option("test", args->test, "a test of `cuvk list` (or --pair)");
  sub->add_option("--pair", args->pair,
                  "a kernel pair's declaration (docs/PAIRS.md): its CUDA kernel and GLSL shader, "
                  "compiled at run time, side by side");
  sub->add_option("--block-sizes", args->block_sizes,
                  "block sizes of the occupancy table (default 64,128,256,512,1024)");
  sub->add_option("--vk-binding", args->vk_bindings,
                  "Vulkan binding modes to show: descriptor, bda or all (default all)")
      ->delimiter(',');
  sub->add_option("--layouts", args->layouts,
                  "only the kernels of these layouts, e.g. aos or soa (default all; as for `run`)")
      ->delimiter(',');
  sub->add_option("--variants", args->variants,
                  "only the kernels of these variants, e.g. scalar, vec4 (default all; as for "
                  "`run`)")
      ->delimiter(',');
  for (const Axis& axis : axes())  // the points whose kernels are shown, as `run` sweeps them
    sub->add_option(axis.option, args->axis_values[axis.name], axis.help + " (as for `run`)");
  sub->add_option("--device", args->device, "as for `run`");
  sub->add_option(
         "--dump-pipeline-cache", args->dump_cache_dir,
         "write each Vulkan pipeline cache read for the Vulkan SASS to "
         "DIR/<kernel>.<binding>.block<N>.vkcache and its NVIDIA machine code to .nvuc (DIR must "
         "exist)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--no-listings", args->no_listings,
                "summary and occupancy only, no PTX/SASS/SPIR-V");
  auto judged = std::make_shared<std::optional<inspect_cli::JudgedInspect>>();  // by the check
  const auto judge = [args, judged] { *judged = inspect_cli::judge_inspect(*args); };
  return {sub,
          [judged, judge] {
            if (!*judged) judge();  // the CLI checks first; a caller that did not, here
            return inspect_cli::inspect_command(**judged);
          },
          judge};
}

}  // namespace cuvk
