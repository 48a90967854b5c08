// A user's kernel pair (issue 20): one CUDA kernel and one GLSL compute shader that do the same
// work, described by a declaration file (TOML, docs/PAIRS.md), compiled at run time (NVRTC for the
// CUDA side, shaderc for the GLSL side) and checked against each other before any launch.
//
// The binding convention, the contract between a declaration and its two kernels:
// - CUDA: the kernel's parameters are the buffers, as pointers, in declared order, then the
//   scalars, by value, in declared order. The entry is named by `[cuda] entry`: an extern "C" or a
//   C++ __global__ function (NVRTC lowers the name; CompiledCuda::lowered_name is the symbol).
// - GLSL (descriptor binding, the default): buffer i is `layout(std430, set = 0, binding = i)` as a
//   storage buffer; the scalars are ONE push-constant block (`layout(push_constant) uniform`)
//   whose members are the scalars in declared order, at their std430 offsets (scalar_layout());
//   the workgroup size is specialization constant 0: `layout(local_size_x_id = 0) in;`, so Vulkan
//   runs exactly the CUDA block size.
// - GLSL, bda binding (optional, `[glsl] bda_defines` / `bda_source` / `bda_spirv`): no descriptor
//   set; the push-constant block holds the scalars as above, then one 8-byte buffer device
//   address per buffer in declared order (GL_EXT_buffer_reference), each at the next multiple of 8
//   (bda_address_offset()).
// - Launch geometry is backend.h's Geometry, the same for both APIs: grid_x * grid_y blocks of
//   block_size threads, linear thread index (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x +
//   threadIdx.x; `threads` launches ceil(threads / block) blocks, `grid` names the blocks.
// - Dynamic shared memory: CUDA `extern __shared__` of shared_bytes bytes at launch; GLSL has no
//   dynamic shared memory, so a shader declares its `shared` arrays with fixed sizes (or sized by
//   a specialization constant it documents), and shared_bytes applies to CUDA only.
//
// Expressions ("count", "threads", "grid", "shared_bytes", "useful_bytes", integer scalar values)
// are integer arithmetic over the variables `n` (the problem size) and, where a block size is known
// (threads, grid, shared_bytes, useful_bytes), `block`: decimal integers, + - * / %, parentheses,
// unary minus, min(a, b), max(a, b), ceil_div(a, b); checked 64-bit signed arithmetic (overflow and
// division by zero are errors naming the field).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "element.h"
#include "error.h"

namespace cuvk::pairs {

// The declaration file's mistakes: a UsageError (exit 2) whose message names the file, the field
// and, where known, the line: "pairs/saxpy.toml:12: buffer[1].count: ...".
class DeclarationError : public UsageError {
 public:
  using UsageError::UsageError;
};

// ---- the declaration ----

// ElementType, element_type_name and Tolerance: host/core/model/element.h.
enum class InitKind { random, zero, constant, index, file };
const char* init_kind_name(InitKind kind);  // "random", "zero", "constant", "index", "file"

struct BufferInit {
  InitKind kind = InitKind::random;
  // Whether the file gives `init`: an output buffer without one starts poisoned (kPoisonWord), so
  // an element the kernels never write is caught; an in/out buffer (saxpy's y) declares its init.
  bool given = false;
  // random: uniform in [min, max) for f32/f64 (default [-1, 1)), integers in [min, max] for
  // i32/u32 (default [0, 1000]); raw16 and struct buffers get random bytes. The seed defaults to
  // 1 + the buffer's index.
  std::uint64_t seed = 0;
  double min = -1.0, max = 1.0;
  // constant: every element this value (f32/f64: as the type; i32/u32: exact; raw16: the 16-bit
  // pattern 0..65535; struct: every byte this value 0..255).
  double constant = 0.0;
  // index: element i holds i (as the element type; raw16: i mod 65536; struct: i mod 2^32 in its
  // first four bytes, little endian, the rest zero).
  // file: a .npy (dtype and shape checked against the buffer) or raw little-endian bytes (size
  // checked: count * element_bytes). Absolute path (resolved against the declaration's folder).
  std::string file;
};

struct BufferDecl {
  std::string name;
  ElementType type = ElementType::f32;
  std::uint32_t element_bytes = 4;  // f32/i32/u32: 4, f64: 8, raw16: 2, struct: `bytes`
  std::string count;                // expression in n (elements)
  BufferInit init;
  bool output = false;   // compared across APIs (and against `expected`) after the run
  Tolerance tolerance;   // output buffers only
  std::string expected;  // optional expected-output file (.npy or raw), absolute path
  // Output buffers only (issue 31). partial: the kernels leave some elements unwritten on purpose
  // (the compared lanes must leave the same ones; needs a write-only output, no init). nan_fraction:
  // the fraction of NaN elements allowed (f32/f64; default 0: any NaN fails).
  bool partial = false;
  double nan_fraction = 0.0;
  int line = 0;          // where the [[buffer]] table starts in the file (0: unknown)
};

enum class ScalarType { i32, u32, f32, i64, u64, f64 };
const char* scalar_type_name(ScalarType type);
std::uint32_t scalar_bytes(ScalarType type);  // 4 or 8

struct ScalarDecl {
  std::string name;
  ScalarType type = ScalarType::u32;
  // Integer types: an expression in n. Float types: `number` (a TOML number), or an integer
  // expression in n when `number` is empty.
  std::string value;
  std::optional<double> number;
  int line = 0;
};

struct LaunchDecl {
  std::string threads;            // expression in n and block; "" when `grid` is given
  std::vector<std::string> grid;  // 1 or 2 expressions (blocks in x, y); empty: use threads
  std::vector<std::uint32_t> block_sizes;  // empty: the run's block-size sweep applies
  std::string shared_bytes = "0";          // CUDA dynamic shared memory, expression in n and block
  int line = 0;                            // of the [launch] table
};

struct CudaDecl {
  std::string source;                // absolute path of the .cu file
  std::string entry;                 // the __global__ function's name as written
  std::vector<std::string> options;  // extra NVRTC options (e.g. "-use_fast_math", "-DTILE=32")
};

struct GlslDecl {
  std::string source;  // absolute path of the .comp file; "" when `spirv` is given
  std::string spirv;   // a ready SPIR-V file instead of source
  std::string entry = "main";
  std::vector<std::string> defines;  // "NAME" or "NAME=VALUE"
  // The bda binding, where the shader supports it: compiled from bda_source (default: source)
  // with bda_defines, or read from bda_spirv. supports_bda() says whether any is given.
  std::string bda_source, bda_spirv;
  std::vector<std::string> bda_defines;
};

// One kernel of a multi-step pair (issue 34, `[[step]]`): its CUDA entry (source and options
// default to the pair's [cuda] ones), its GLSL shader (descriptor binding only) and its launch.
// Every step takes the pair's buffers and scalars by the binding convention above; a step's
// shader may leave out the storage buffers it does not use (those it declares are type-checked).
struct StepDecl {
  std::string name;
  CudaDecl cuda;
  GlslDecl glsl;
  LaunchDecl launch;   // its block_sizes are unused: the pair's [launch] block_sizes apply
  std::uint32_t block = 0;  // `launch.block`: a fixed block size for this step; 0: the row's
  int line = 0;        // where its [[step]] table starts
};

// What holds between timed repetitions of a sequence (docs/PAIRS.md, "State"): none (a one-step
// pair as before: nothing declared), restore (every buffer with a declared init is put back from
// a saved device copy before each repetition, outside the timing), idempotent (checked: the
// outputs after the timed repetitions must equal those after the first run).
enum class StateRule { none, restore, idempotent };
const char* state_rule_name(StateRule rule);  // "none", "restore", "idempotent"

struct PairDeclaration {
  std::string name;            // the row's test name
  std::string description;     // optional
  std::string file;            // the declaration file as given
  std::uint64_t n = 1u << 24;  // default problem size (`n`), overridden by the run's --n
  std::string useful_bytes;    // expression in n: bytes the kernel must move (GB/s)
  // timing_only = true: the pair declares no output on purpose; its rows say `ok, timing only`,
  // never verified. Without it a pair with no output buffer is refused.
  bool timing_only = false;
  CudaDecl cuda;
  GlslDecl glsl;
  std::vector<BufferDecl> buffers;  // at least 1, at most kMaxBuffers
  std::vector<ScalarDecl> scalars;
  LaunchDecl launch;
  // Issue 34: the kernels in order (empty: one step, the [cuda], [glsl] and [launch] above), how
  // many times each timed repetition runs the whole sequence, and the state rule (required where a
  // sequence has an output buffer with a declared init: it is read and written).
  std::vector<StepDecl> steps;
  std::uint32_t repeat = 1;
  StateRule state = StateRule::none;
  // The sizes the pair makes sense at: `sizes` (each an n) or `n_max` (every n up to it); both
  // empty/0: any n. The run's --n values outside them are skipped, and said so.
  std::vector<std::uint64_t> sizes;
  std::uint64_t n_max = 0;
  // Set by step_declarations(): the view of one step, whose shader may leave out the storage
  // buffers (and the push-constant block) it does not use.
  bool step_view = false;
};

// Whether the pair runs as a sequence (Launch::sequence): [[step]] tables, repeat > 1 or a state.
bool is_sequence(const PairDeclaration& decl);
// The declarations one per kernel the pair launches: the pair itself where it has no [[step]];
// else, per step, the pair with that step's cuda, glsl and launch (launch.block_sizes kept from
// the pair) and `file` reading "<file>: step[k] '<name>'", so every error about the step's
// compile, interface or launch names the file, the step and the field.
std::vector<PairDeclaration> step_declarations(const PairDeclaration& decl);
// Whether `n` is one of the sizes the pair declares (sizes / n_max); true where it declares none.
bool size_allowed(const PairDeclaration& decl, std::uint64_t n);

inline constexpr std::size_t kMaxBuffers = 32;
inline constexpr std::size_t kMaxScalars = 32;

bool supports_bda(const PairDeclaration& decl);
// The push constants a pair's shader takes (the scalars; the bda form: the scalars, then its
// buffers' addresses, checked only where it has one) against a Vulkan device's
// maxPushConstantsSize `max_bytes`, named with `device`. DeclarationError naming the file and
// field and the limit (issue 46: the device's limit, no longer a fixed 128).
void check_push_constant_room(const PairDeclaration& decl, std::uint32_t max_bytes,
                              const std::string& device);

// Reads and validates a declaration file: unknown keys, missing required keys, wrong types, bad
// expressions (parsed, and evaluated at the default n), unreadable or ill-sized input files are
// DeclarationErrors naming the file, the field and the line.
PairDeclaration read_pair_file(const std::string& path);
// The same from text; `path` names it in errors and relative paths resolve against its folder.
PairDeclaration parse_pair(const std::string& text, const std::string& path);

// ---- expressions ----

// Evaluates `expr` with the given variables; throws DeclarationError "<where>: '<expr>': <why>"
// (unknown name, syntax with the column, overflow, division by zero).
std::int64_t eval_expr(const std::string& expr, const std::map<std::string, std::int64_t>& vars,
                       const std::string& where);
std::int64_t eval_in_n(const std::string& expr, std::uint64_t n, const std::string& where);
// Parses only (names checked against `names`), for validation before n is known.
void check_expr(const std::string& expr, const std::vector<std::string>& names,
                const std::string& where);

// ---- layouts the convention implies ----

struct ScalarLayout {
  std::vector<std::uint32_t> offsets;  // std430 offset of each scalar in the push-constant block
  std::uint32_t size = 0;              // the block's size (0 without scalars)
};
ScalarLayout scalar_layout(const PairDeclaration& decl);
// Byte offset of buffer i's device address in the bda push-constant block.
std::uint32_t bda_address_offset(const PairDeclaration& decl, std::size_t buffer);
// The push-constant bytes of the scalars at problem size n, laid out by scalar_layout() (CUDA
// takes each scalar's bytes from the same offsets).
std::vector<std::uint8_t> pack_scalars(const PairDeclaration& decl, std::uint64_t n);

// Reads a buffer's input file or expected-output file (.npy or raw) for `count` elements:
// throws DeclarationError naming the file when its dtype, shape or size does not fit.
std::vector<std::uint8_t> load_buffer_file(const PairDeclaration& decl, const BufferDecl& buffer,
                                           const std::string& path, std::uint64_t count);

// ---- run-time compilers ----

struct CompiledCuda {
  std::string ptx;                   // PTX text
  std::vector<std::uint8_t> cubin;   // SASS for `arch` (an ELF)
  std::string entry;                 // as declared
  std::string lowered_name;          // the symbol in PTX and cubin (cuModuleGetFunction)
  std::string log;                   // NVRTC's log (warnings), "" when silent
  std::string ptxas_log;             // ptxas -v: registers, stack, spills (host/inspect reads it)
  std::vector<std::string> options;  // every NVRTC option used, in order
  double compile_ms = 0.0;           // host wall time of nvrtcCompileProgram and the outputs
  int arch = 0;                      // e.g. 90 for sm_90
  std::string compiler;              // "NVRTC 13.0"
};

struct CompiledSpirv {
  std::vector<std::uint32_t> words;
  std::string entry;
  std::string log;          // the compiler's warnings, "" when silent or read from a file
  double compile_ms = 0.0;  // 0 when read from a .spv file
  Binding binding = Binding::descriptor;
  std::string compiler;  // "shaderc <version>" or "file"
  std::vector<std::string> includes;  // the files #included, each once (GLSL sources)
};

// The architecture compile_cuda() uses when no CUDA device says which (no GPU: said so).
inline constexpr int kDefaultCudaArch = 90;

// "" when NVRTC can be loaded, else "NVRTC unavailable: <reason>". $CUVK_NVRTC, when set, names
// the one library to load (tests use it to see the unavailable path).
std::string nvrtc_unavailable();
// The NVRTC options compile_cuda() passes, in order: the architecture, C++17, ptxas -v, -I the
// source's folder ("." when the path names none), -I toolkit_include (when not ""), then `extra`
// (the declaration's cuda.options).
std::vector<std::string> nvrtc_options(int sm_arch, const std::string& source,
                                       const std::string& toolkit_include,
                                       const std::vector<std::string>& extra);
// The __global__ functions a PTX module defines (its `.entry` lines), as written in the source:
// C++ names demangled to the function's name ("_Z6gatherPfj" -> "gather"), in PTX order.
std::vector<std::string> ptx_kernel_names(const std::string& ptx);
// Compiles the CUDA source for sm_<arch> with NVRTC (loaded at run time: libnvrtc.so.13 /
// libnvrtc.so, also from $CUDA_HOME, $CUDA_PATH and /usr/local/cuda). Throws DeclarationError
// "<file>: CUDA compile failed" + NVRTC's log on a compile error ("<file>: cuda.entry 'x' is not
// a __global__ function of k.cu (it has: ...)" when only the entry's name is wrong), Error when
// NVRTC is unavailable.
CompiledCuda compile_cuda(const PairDeclaration& decl, int sm_arch);
// Compiles (or reads) the shader for `binding` (descriptor or bda). Throws DeclarationError
// "<file>: GLSL compile failed" + the compiler's log, or naming a bad .spv file.
CompiledSpirv compile_glsl(const PairDeclaration& decl, Binding binding);

// ---- interface checks (before any launch) ----

// The declaration against the CUDA entry's parameters (from the PTX: count and sizes) and the
// SPIR-V's interface (set 0 bindings 0..buffers-1 with element types, the push-constant block's
// size vs the scalars' std430 size, local_size_x_id present). Throws DeclarationError naming the
// declaration file, the buffer or scalar, and both sides.
void check_interfaces(const PairDeclaration& decl, const CompiledCuda* cuda,
                      const CompiledSpirv* spirv);

// A `threads` launch is folded into y where it needs more blocks than the device's grid x
// (`max_grid_x`; 0: unknown). A shader that reads neither gl_WorkGroupID.y, gl_NumWorkGroups nor
// gl_GlobalInvocationID.y (spirv::grid_y_reads) then leaves elements unwritten: the warning (no
// "warning: " prefix) naming the file, the block size and the blocks, or "" where no block size
// of the run folds (the declaration's block_sizes, else `run_block_sizes`) or the shader reads y.
std::string fold_warning(const PairDeclaration& decl, const CompiledSpirv& spirv, std::uint64_t n,
                         const std::vector<std::uint32_t>& run_block_sizes,
                         std::uint32_t max_grid_x);

}  // namespace cuvk::pairs
