// The host side of each point, prepared ahead: while one point is measured on the GPU, another
// thread generates the next point's random input, its expected output and that output's hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalogue.h"
#include "row.h"

namespace cuvk {

// What one point's lanes share: the input, the expected output (poisoned where the kernel must
// not write) and its hash: an output that matches it bit for bit has that hash too.
struct Inputs {
  std::vector<float> input, expected;
  // A pair's point (Plan::user): its buffers' contents and expected outputs, and the outputs of
  // the lanes that passed first, which later lanes are compared with (shared by the lanes).
  UserContents user;
  std::shared_ptr<UserReference> reference;
  // Seconds the preparing thread spent per kind of work ("inputs: random", "inputs: reference").
  std::vector<std::pair<std::string, double>> made_s;
  // Computed on its own thread, beside the upload: wanted only once a row has verified.
  // Declared last, so it is destroyed first: its destructor waits for the thread that reads
  // `expected`. (The runner takes each point's Inputs into a fresh object.)
  std::shared_future<OutputHash> expected_hash;
};

// Point `index`'s inputs, from the run's seed: the same run gives the same inputs.
Inputs prepare_inputs(const Plan& plan, std::uint64_t run_seed, std::size_t index);

// The run's first point's inputs, started before the devices are open (that takes a few hundred
// milliseconds): the pipeline takes them when its first plan and seed are the ones they were
// made for, and prepares its own otherwise.
class EarlyInputs {
 public:
  EarlyInputs(Plan plan, std::uint64_t run_seed);
  ~EarlyInputs();
  EarlyInputs(const EarlyInputs&) = delete;
  EarlyInputs& operator=(const EarlyInputs&) = delete;

  // The inputs, once, when made for `plan` (same kernel, sizes and parameters) and `run_seed`.
  std::optional<std::future<Inputs>> take_for(const Plan& plan, std::uint64_t run_seed);

 private:
  Plan plan_;
  std::uint64_t seed_;
  std::future<Inputs> inputs_;
};

class InputPipeline {
 public:
  // `plans` in run order; nothing is prepared when `needed` is false (no device runs). The first
  // point's inputs come from `early` where they fit.
  InputPipeline(std::vector<const Plan*> plans, std::uint64_t run_seed, bool needed,
                EarlyInputs* early = nullptr);
  ~InputPipeline();
  InputPipeline(const InputPipeline&) = delete;
  InputPipeline& operator=(const InputPipeline&) = delete;

  // Point j's inputs (j in order), starting point j+1's.
  Inputs take(std::size_t j);

 private:
  void start(std::size_t j);

  std::vector<const Plan*> plans_;
  std::uint64_t seed_;
  bool needed_;
  std::future<Inputs> next_;
};

}  // namespace cuvk
