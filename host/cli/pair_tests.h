// `cuvk run --pair FILE` (issue 20): each declaration read, both sides compiled and their
// interfaces checked before any device is opened for work, then registered as a catalogue entry
// of its own kind (a TestCase whose plan carries a UserPlan), so a pair takes the built-in tests'
// path through the runner; its modules are loaded into the open backends.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "pair.h"

namespace cuvk {

struct PreparedPair {
  pairs::PairDeclaration decl;
  std::optional<pairs::CompiledCuda> cuda;  // none where NVRTC is unavailable (cuda_note says)
  pairs::CompiledSpirv spirv;
  std::optional<pairs::CompiledSpirv> spirv_bda;
  std::string cuda_note;  // what CUDA rows that cannot run say was done
};

// Reads, compiles (CUDA for sm_<cuda_arch>; 0: pairs::kDefaultCudaArch, no device) and checks
// each file; registers each as a test (register_pair_test). `n`: --n, when given. Throws
// DeclarationError / UsageError naming the file and the field.
std::vector<std::shared_ptr<PreparedPair>> prepare_pairs(const std::vector<std::string>& files,
                                                         int cuda_arch,
                                                         std::optional<std::uint64_t> n);

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
