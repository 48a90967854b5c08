// `cuvk inspect`'s analysis, kept apart from printing so it can be tested: reading ptxas resource
// usage, cutting one kernel out of PTX and SASS listings, counting load/store forms, finding and
// running cuobjdump / nvdisasm on the embedded cubin, and the occupancy model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cuvk::inspect {

// ptxas -v for one entry function.
struct PtxasUsage {
  int registers = -1;
  int stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  int cmem0_bytes = -1;  // -1: not reported (CUDA 13's ptxas omits it)
};
// Keyed by mangled entry name (quotes stripped; figures before any named function under "").
std::map<std::string, PtxasUsage> parse_ptxas_log(const std::string& log);
// ptxas -v's figures of `name` (a mangled name, or an extern "C" function's own) in `log`, else of
// the log's only function (NVRTC compiles one program); where neither is there, `why` says so
// with the log's first lines.
struct PtxasLookup {
  std::optional<PtxasUsage> usage;
  std::string why;
};
PtxasLookup find_ptxas_usage(const std::string& log, const std::string& name);

// The mangled name of kernel `kernel` among the .entry functions of `ptx` ("" when absent): cuvk's
// kernels are extern "C++" __global__ functions, so the name is _Z<length><kernel>...
std::string mangled_entry(const std::string& ptx, const std::string& kernel);
// The text of one .entry function, without .loc/.file debug-line directives.
std::string ptx_entry(const std::string& ptx, const std::string& mangled);

// Memory instruction forms with counts, in first-seen order.
struct MemoryOps {
  std::vector<std::pair<std::string, int>> global;  // ld.global.nc.f32 / LDG.E.CONSTANT ...
  std::vector<std::pair<std::string, int>> other;   // ld.param / LDC, ULDC ...
  int instructions = 0;                             // all instructions (SASS: without NOPs)
  int bytes = 0;  // SASS: the function's code, alignment NOPs included (16 bytes an instruction)
};
MemoryOps ptx_memory_ops(const std::string& entry_text);
MemoryOps sass_memory_ops(const std::string& function_text);
std::string format_ops(const std::vector<std::pair<std::string, int>>& ops);  // "a x1, b x2"

// One function's SASS cut out of `cuobjdump -sass` or `nvdisasm` output ("" when absent).
std::string sass_function(const std::string& listing, const std::string& mangled);

// A CUDA tool on PATH, in $CUDA_HOME/bin or $CUDA_PATH/bin, or in /usr/local/cuda/bin; "" if none.
std::string find_cuda_tool(const std::string& name);

// SASS of `mangled` in an embedded cubin: written to a temporary file and disassembled with
// cuobjdump -sass, else nvdisasm. `text` is empty and `unavailable` says why when neither exists
// or the tool fails.
struct Sass {
  std::string text, tool, unavailable;
};
Sass disassemble_cubin(const unsigned char* cubin, std::size_t bytes, const std::string& mangled);

// Writes `n` bytes to a new /tmp/cuvk-inspect-XXXXXX<suffix> file and sets `path`: "" on success,
// else why not (nothing is left behind then). The caller unlinks the file.
std::string write_temp_file(const unsigned char* bytes, std::size_t n, const std::string& suffix,
                            std::string* path);

// Runs argv (no shell), returns stdout and stderr together; `status` gets the exit status.
std::string run_tool(const std::vector<std::string>& argv, int* status);

// Resident blocks per SM as limited by threads, blocks and registers (no shared memory), by the
// rules of CUDA's occupancy calculator (cuda_occupancy.h): registers allocated per warp in units of
// reg_alloc_unit, in sub_partitions equal parts of the register file.
struct SmLimits {
  int max_threads_per_sm = 2048, max_blocks_per_sm = 32, regs_per_sm = 65536,
      regs_per_block = 65536, warp_size = 32, reg_alloc_unit = 256, sub_partitions = 4;
};
SmLimits hopper_limits();  // sm_90 (H100): the limits above
int model_blocks_per_sm(int registers_per_thread, std::uint32_t block_size, const SmLimits& limits);
// Resident warps over the SM's maximum, in percent.
double occupancy_percent(int blocks_per_sm, std::uint32_t block_size, const SmLimits& limits);

// The register count among a Vulkan pipeline executable's statistics ("Register Count", "VGPRs"),
// where the driver reports one.
std::optional<int> register_statistic(
    const std::vector<std::pair<std::string, std::string>>& stats);
// The machine code's size in bytes ("Binary Size" on NVIDIA), where the driver reports one.
std::optional<long> binary_size_statistic(
    const std::vector<std::pair<std::string, std::string>>& stats);

}  // namespace cuvk::inspect
