// `cuvk run --pair FILE` (issue 20): each declaration read, both sides compiled and their
// interfaces checked before any device is opened for work, then registered as a catalogue entry
// of its own kind (a TestCase whose plan carries a KernelModel), so a pair takes the built-in
// tests' path through the runner; its modules are loaded into the open backends.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "pair.h"

namespace cuvk {

// One kernel of a pair, compiled and checked: the pair itself, or one of its [[step]]s.
struct PreparedStep {
  pairs::PairDeclaration view;  // pairs::step_declarations(): the step's cuda, glsl and launch
  std::string module;           // the kernel its launches name ("pair:saxpy", "pair:scan/add")
  std::optional<pairs::CompiledCuda> cuda;
  pairs::CompiledSpirv spirv;
};

struct PreparedPair {
  pairs::PairDeclaration decl;
  std::vector<PreparedStep> steps;  // one per kernel, in order (one without [[step]])
  std::optional<pairs::CompiledCuda> cuda;  // steps[0]'s; none where NVRTC is unavailable
  pairs::CompiledSpirv spirv;               // steps[0]'s
  std::optional<pairs::CompiledSpirv> spirv_bda;
  std::string cuda_note;  // what CUDA rows that cannot run say was done
  std::uint64_t n = 0;     // the size it runs at (pair_n: --n, declared, or scaled for a CPU)
  std::string n_rule;      // how: "--n", "declared in saxpy.toml", "... scaled down for CPU devices"
  std::string warning;     // pairs::fold_warning's, where the run's launches would fold
  std::vector<std::uint64_t> sizes;  // the sizes its points run at (n first)
  std::string skipped;     // "" or the note naming --n's sizes it skips, and why
};

// What folds a pair's launch into y: the run's block sizes and the devices' largest grid x (the
// smallest over the devices of the run; 0: unknown, no warning); and whether the run has a CUDA
// lane (issue 46: `--api vulkan` compiles no CUDA, so a CUDA compile error does not block
// checking the shader).
struct RunGrid {
  std::vector<std::uint32_t> block_sizes;
  std::uint32_t max_grid_x = 0;
  bool cuda = true;
};

// On a CPU device (lavapipe) a pair without --n runs at its declared n halved until its buffers
// hold at most kCpuPairBytes (the built-in tests' CPU default: 1M floats in, 1M out), so that a
// first run there ends in seconds; it stops halving where a buffer's count no longer evaluates.
inline constexpr std::uint64_t kCpuPairBytes = 8ull << 20;
std::uint64_t cpu_pair_n(const pairs::PairDeclaration& d);

// Reads, compiles (CUDA for sm_<cuda_arch>; 0: pairs::kDefaultCudaArch, no device) and checks
// each file; registers each as a test (register_pair_test). `cpu_device`:
// the run's devices are CPU devices only (then cpu_pair_n() without --n). Throws
// DeclarationError / UsageError naming the file and the field.
// `n`: --n's sizes (empty: none given); each pair runs at those it declares (sizes, n_max), and
// PreparedPair::skipped says which it skips; none of them: DeclarationError naming the field.
std::vector<std::shared_ptr<PreparedPair>> prepare_pairs(const std::vector<std::string>& files,
                                                         int cuda_arch,
                                                         const std::vector<std::uint32_t>& n,
                                                         bool cpu_device, const RunGrid& grid = {});

// The host's compile time of each pair's side for `api` ("compile pair:saxpy (NVRTC 13.0)", ms):
// the backend's start-up costs where it is open (load_pairs), else a host-cost row of their own
// (NVRTC compiles a pair's CUDA side without a CUDA device).
std::vector<std::pair<std::string, double>> pair_compile_ms(
    const std::vector<std::shared_ptr<PreparedPair>>& pairs, Api api);

// Every file a pair's run reads, each with what names it ("--pair", "cuda.source", "buffer 'x'
// file", ...): the declaration, the sources (GLSL includes too), SPIR-V, init and expected files.
// An --output must be none of them (check_distinct_files).
std::vector<std::pair<std::string, std::string>> pair_input_files(const PreparedPair& pair);

// Loads each pair's modules into the backends that are open (null: skipped).
void load_pairs(const std::vector<std::shared_ptr<PreparedPair>>& pairs, Backend* cuda,
                Backend* vulkan);

// The CUDA architecture of a device (compute_capability "9.0" -> 90), 0 when it does not say.
int cuda_arch_of(const DeviceInfo& device);

}  // namespace cuvk
