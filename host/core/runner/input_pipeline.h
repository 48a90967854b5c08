// The host side of each point, prepared ahead: while one point is measured on the GPU, another
// thread generates the next point's random input, its expected output and that output's hash.
// The arrays live in host memory that is reused two points later (host_memory.h): a fresh array
// per point cost more in page faults than the GPU spent measuring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalogue.h"
#include "host_memory.h"
#include "row.h"
#include "span.h"

namespace cuvk {

// One point's host arrays: its input, its expected output and the buffer its lanes download into.
struct HostSlot {
  HostSlot(std::size_t in_words, std::size_t out_words)
      : input(in_words), expected(out_words), download(out_words) {}
  HostMemory input, expected, download;
};

// What one point's lanes share: the input, the expected output (poisoned where the kernel must
// not write) and its hash: an output that matches it bit for bit has that hash too.
struct Inputs {
  std::shared_ptr<HostSlot> slot;  // holds the arrays below
  Span<const float> input, expected;
  Span<float> download;  // out_words, faulted in: where each lane's output comes back
  // A point checked by its lanes (Plan::has_cpu_reference false): its buffers' declared contents
  // and expected outputs, and the outputs of the lanes that passed first, which later lanes are
  // compared with (shared by the lanes).
  ModelContents declared;
  std::shared_ptr<LaneReference> reference;
  // Seconds the preparing thread spent per kind of work ("random inputs", "references").
  std::vector<std::pair<std::string, double>> made_s;
  // Computed on its own thread, beside the upload: wanted only once a row has verified.
  // Declared last, so it is destroyed first: its destructor waits for the thread that reads
  // `expected`. (The runner takes each point's Inputs into a fresh object.)
  std::shared_future<OutputHash> expected_hash;
};

// Point `index`'s inputs, from the run's seed: the same run gives the same inputs. Into `slot`
// where given (large enough for the plan), else into a slot of the plan's own sizes.
Inputs prepare_inputs(const Plan& plan, std::uint64_t run_seed, std::size_t index,
                      std::shared_ptr<HostSlot> slot = nullptr);

// The run's first point's inputs, started before the devices are open (that takes a few hundred
// milliseconds): the pipeline takes them when its first plan and seed are the ones they were
// made for, and prepares its own otherwise. `max_in_words` / `max_out_words`: the largest point
// of the run, so that the pipeline can reuse their slot.
class EarlyInputs {
 public:
  EarlyInputs(Plan plan, std::uint64_t run_seed, std::size_t max_in_words = 0,
              std::size_t max_out_words = 0);
  ~EarlyInputs();
  EarlyInputs(const EarlyInputs&) = delete;
  EarlyInputs& operator=(const EarlyInputs&) = delete;

  // The inputs, once, when made for `plan` (same kernel, sizes and parameters) and `run_seed`.
  std::optional<std::future<Inputs>> take_for(const Plan& plan, std::uint64_t run_seed);

  bool for_gpu = false;  // made with the GPU's default n (start_first_inputs)

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

  // Point j's inputs (j in order), starting point j+1's. The caller lets go of point j-1's first:
  // their slot is the one point j+1 reuses.
  Inputs take(std::size_t j);

 private:
  void start(std::size_t j);

  std::vector<const Plan*> plans_;
  std::uint64_t seed_;
  bool needed_;
  std::size_t max_in_ = 0, max_out_ = 0;
  std::shared_ptr<HostSlot> slots_[2];  // point j uses slots_[j % 2]
  std::future<Inputs> next_;            // declared last: waited for before the slots go
};

}  // namespace cuvk
