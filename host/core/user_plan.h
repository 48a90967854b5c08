// What the runner needs to run a user's kernel pair (issue 20) at one point, beyond a built-in
// Plan: the buffers (types, sizes, contents, which are outputs and how they compare), the scalar
// bytes and the launch rule per block size. The declaration file (host/pairs) is read and compiled
// elsewhere; the runner sees only this, so a pair takes the built-in tests' path (catalogue entry,
// phases, rows) with its own buffers and verification (runner_user.cpp).
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

namespace cuvk {

struct UserBuffer {
  std::string name;
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
  bool expected = false;  // an expected-output file is given (UserContents::expected)
  std::uint64_t bytes() const { return count * element_bytes; }
};

// One block size's launch: threads (ceil(threads / block) blocks, as built-in tests launch) or a
// fixed grid of blocks; CUDA's dynamic shared memory; the useful bytes for GB/s.
struct UserLaunch {
  std::uint64_t threads = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> grid;  // blocks in x, y
  std::uint64_t shared_bytes = 0;
  std::uint64_t useful_bytes = 0;
};

// The buffers' initial contents (poisoned ones: empty) and the expected outputs (empty where no
// file is given), made on the input thread for each point.
struct UserContents {
  std::vector<std::vector<std::uint8_t>> initial, expected;
};

// One kernel of a multi-step pair (issue 34): the module its launches name, its launch rule (as
// UserPlan::launch) and its fixed block size (0: the row's).
struct UserStep {
  std::string kernel;
  std::string name;  // "step[1] 'sums'" in errors
  std::uint32_t block = 0;
  std::function<UserLaunch(std::uint32_t block)> launch;
};

// What holds between timed repetitions of a sequence (pairs::StateRule, docs/PAIRS.md "State").
enum class UserState { none, restore, idempotent };

struct UserPlan {
  std::string file;  // the declaration file: errors name it
  std::uint64_t n = 0;  // the problem size: the declaration's, or --n
  // How n was chosen, for the run's head: "declared in saxpy.toml", "--n", or on a CPU device
  // "saxpy.toml's n = 16777216 scaled down for CPU devices to 8 MiB of buffers".
  std::string n_rule;
  std::vector<UserBuffer> buffers;
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
  std::function<UserLaunch(std::uint32_t block)> launch;
  std::function<UserContents(std::uint64_t run_seed)> contents;
  // A sequence (issue 34; pairs::is_sequence): the steps in order, run `repeat` times per timed
  // repetition as Launch::sequence, in the lane's submission mode. Empty: one launch, as before.
  std::vector<UserStep> steps;
  std::uint32_t repeat = 1;
  UserState state = UserState::none;
};

// The outputs of every lane of a point that passed so far, per block size: each later lane's
// outputs are compared with all of them (runner_user.cpp), then dropped at the point's end.
struct LaneOutputs {
  std::string lane;  // "cuda", "vulkan descriptor", "vulkan bda"
  std::uint32_t poison = 0;  // the lane's poison word (output_check.h)
  std::vector<std::vector<std::uint8_t>> buffers;  // every buffer with its guard bands
  std::uint64_t compared_by_later = 0;  // elements later lanes compared with these outputs
};
struct UserReference {
  std::map<std::uint32_t, std::vector<LaneOutputs>> by_block;
};

// Bytes before and after every buffer of a pair, filled with kGuardWord and checked after the
// correctness run: a write outside the declared buffer is a failed row naming buffer and offset.
inline constexpr std::uint64_t kGuardBytes = 4096;  // a multiple of kViewAlignment
inline constexpr std::uint32_t kGuardWord = 0xB1E55ED5u;

}  // namespace cuvk
