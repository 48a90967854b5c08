// One kernel model for every test (issue 32): what the runner needs to run one point, a built-in
// test's or a user's kernel pair's alike: its buffers (types, sizes, where their contents come
// from, which are outputs and how they compare), the scalar bytes, the launch rule per block size,
// its steps, and how its rows are checked. The catalogue's plan_* (catalogue.cpp, builtin_model)
// and the pair loader (host/app/pair_tests.cpp, from the declaration file) both produce it; one
// lane body (runner_lane.cpp) runs it, and check/lanes_check.cpp compares lanes' outputs where the
// check is by the other lanes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"  // PerApi
#include "element.h"
#include "span.h"

namespace cuvk {

struct ModelBuffer {
  std::string name;
  // Its contents at each point: the point's random input (a built-in test's input: the input
  // pipeline's host array, Inputs::input), else the declared contents (ModelContents::initial)
  // or, where `poisoned`, the lane's poison.
  bool point_input = false;
  // Between guard bands (kGuardBytes each side), checked after the correctness run: a pair's
  // buffers. A built-in kernel's are not: their launches stay as they were measured.
  bool guarded = true;
  ElementType element = ElementType::f32;
  std::uint32_t element_bytes = 4;
  std::uint64_t count = 0;
  bool output = false;
  bool poisoned = false;  // starts filled with its lane's poison (an output without declared init)
  // Declared `partial`: leaving elements unwritten is intended; the compared lanes must leave the
  // same ones (output_check.h). Otherwise an unwritten element fails the row.
  bool partial = false;
  double nan_fraction = 0.0;  // the fraction of NaN elements allowed (f32/f64 outputs)
  Tolerance tolerance;
  bool expected = false;  // an expected-output file is given (ModelContents::expected)
  std::uint64_t bytes() const { return count * element_bytes; }
};

// One block size's launch: threads (ceil(threads / block) blocks, as built-in tests launch) or a
// fixed grid of blocks; CUDA's dynamic shared memory; the useful bytes for GB/s.
struct ModelLaunch {
  std::uint64_t threads = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> grid;  // blocks in x, y
  std::uint64_t shared_bytes = 0;
  std::uint64_t useful_bytes = 0;
};

// The buffers' initial contents (poisoned ones: empty) and the expected outputs (empty where no
// file is given), made on the input thread for each point.
struct ModelContents {
  std::vector<std::vector<std::uint8_t>> initial, expected;
};

// One kernel of a multi-step pair (issue 34): the module its launches name, its launch rule (as
// KernelModel::launch) and its fixed block size (0: the row's).
struct ModelStep {
  std::string kernel;
  std::string name;  // "step[1] 'sums'" in errors
  std::uint32_t block = 0;
  std::function<ModelLaunch(std::uint32_t block)> launch;
};

// What holds between timed repetitions of a sequence (pairs::StateRule, docs/PAIRS.md "State").
enum class ModelState { none, restore, idempotent };

// How a point's rows are checked: every element against the CPU's own computation of the test
// (a built-in test: Inputs::expected), or against the declared expected files and every other
// lane of the point (a pair: check/lanes_check.cpp, at the point's end).
enum class CheckBy { cpu_reference, lanes };

struct KernelModel {
  CheckBy check = CheckBy::lanes;
  // CheckBy::cpu_reference: writes the expected output of the point-input buffer's words into
  // the output's, which arrive filled with the poison word (elements the kernel must not touch
  // keep it, and are checked too).
  std::function<void(Span<const float> in, Span<float> out)> reference;
  // A chain of dependent dispatches (issue 33): the kernel runs this many times per repetition,
  // each step on the previous one's output (Launch::chain, with a ping-pong buffer as large as
  // the output), once per submission mode; `reference` applies every step. 0: one dispatch.
  std::uint32_t chain_steps = 0;
  // The declaration file: errors name it; a declared model runs at its own size (Plan::own_size).
  // "" for a built-in test, which runs at the run's n.
  std::string file;
  std::uint64_t n = 0;  // the problem size: the point's; a pair's declared one, or --n
  // How n was chosen, for the run's head: "declared in saxpy.toml", "--n", or on a CPU device
  // "saxpy.toml's n = 16777216 scaled down for CPU devices to 8 MiB of buffers".
  std::string n_rule;
  std::vector<ModelBuffer> buffers;
  std::vector<std::uint8_t> scalars;       // packed as the binding convention lays them out
  std::vector<std::uint32_t> block_sizes;  // the pair's own; empty: the run's sweep
  bool bda = false;                        // the shader has a bda form
  // Declared timing only: no output to compare; every row says so (Check::timing_only).
  bool timing_only = false;
  // Rows whose API cannot run say what was done instead, e.g. CUDA "compiled for sm_90 by
  // NVRTC 13.0 (PTX 2 kB, cubin 5 kB)"; "" where nothing was. One per API.
  PerApi<std::string> notes;
  // Where the API's side was not built (CUDA without NVRTC): its rows are unavailable and say
  // so (notes), on a machine with that API's device too. Default: every side built.
  PerApi<bool> not_built;
  // The launch at a block size; throws UsageError naming the file and the field.
  std::function<ModelLaunch(std::uint32_t block)> launch;
  std::function<ModelContents(std::uint64_t run_seed)> contents;
  // A sequence (issue 34; pairs::is_sequence): the steps in order, run `repeat` times per timed
  // repetition as Launch::sequence, in the lane's submission mode. Empty: one launch, as before.
  std::vector<ModelStep> steps;
  std::uint32_t repeat = 1;
  ModelState state = ModelState::none;
};

// The 32-bit words of the buffer whose contents are the point's random input, and of the output
// a CPU reference checks (the unguarded output): what the input pipeline's host arrays hold (0
// where the model has none: a pair's).
std::uint64_t input_words(const KernelModel& m);
std::uint64_t output_words(const KernelModel& m);

// The outputs of every lane of a point that passed so far, per block size: each later lane's
// outputs are compared with all of them (check/lanes_check.cpp), then dropped at the point's end.
struct LaneOutputs {
  std::string lane;                                // "cuda", "vulkan descriptor", "vulkan bda"
  std::uint32_t poison = 0;                        // the lane's poison word (output_check.h)
  std::vector<std::vector<std::uint8_t>> buffers;  // every buffer with its guard bands
  std::uint64_t compared_by_later = 0;  // elements later lanes compared with these outputs
  // The first difference a later lane found with these outputs where no expected file decides
  // ("" none): this lane fails too unless it agreed with a lane of another API.
  std::string disputed;
};
struct LaneReference {
  std::map<std::uint32_t, std::vector<LaneOutputs>> by_block;
};

// Bytes before and after every buffer of a pair, filled with kGuardWord and checked after the
// correctness run: a write outside the declared buffer is a failed row naming buffer and offset.
inline constexpr std::uint64_t kGuardBytes = 4096;  // a multiple of kViewAlignment
inline constexpr std::uint32_t kGuardWord = 0xB1E55ED5u;

// ---- what the model asks of a device, before anything is allocated (kernel_model.cpp) ----
// The pair's launch at `block`; UsageError naming the file and field past the devices' limits.
// A multi-step pair: `step`'s launch (its fixed block, if any, instead of `block`); without
// `step`, the first step's (the row's geometry).
Geometry model_geometry(const KernelModel& u, std::uint32_t block, std::uint32_t max_x,
                        std::uint32_t max_y, std::uint32_t max_block,
                        const ModelStep* step = nullptr);
// Sizes and grids against the devices, before anything is allocated (UsageError naming the file
// and field); returns the device bytes one lane allocates, guard bands included.
std::uint64_t check_model(const KernelModel& u, const std::vector<std::uint32_t>& blocks,
                          std::uint32_t max_x, std::uint32_t max_y, std::uint32_t max_block,
                          std::uint64_t max_buffer);
// What one lane allocates for `b`: its bytes, between guard bands where it is guarded (rounded up
// to kViewAlignment).
std::uint64_t allocation_bytes(const ModelBuffer& b);

}  // namespace cuvk
