// How a point's outputs are checked (issue 45): one interface, chosen by the kernel model
// (KernelModel::check), which the runner asks in the order a point runs (begin the point, check
// each lane, conclude the point), with two implementations: the CPU reference
// (cpu_reference_check.cpp: every element of every lane against the CPU's own computation) and
// the point's lanes (lanes_check.cpp: guard bands, each output on its own, the expected files and
// every lane that passed before, concluded once the point's lanes have all run). The element
// comparisons both use are output_check.h's. Nothing outside this folder and the model's makers
// asks which kind of check a point has (tests/house_check.py). Private to host/core, as
// runner_parts.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "input_pipeline.h"
#include "runner_parts.h"

namespace cuvk::runner_detail {

// A lane after its correctness run, as a checker sees it: the lane and its model, its buffers
// (a guarded one downloaded whole into buffers.got; an unguarded output into in.download), the
// point's inputs, the outcome whose phases it adds to, and the launch's timed repetitions.
struct CheckedLane {
  const Lane& lane;
  const KernelModel& model;
  const LaneBuffers& buffers;
  const Inputs& in;
  RunOutcome& out;
  std::function<void(ResultRow&)> measure;  // warm-up and timed batches into the row given
};

class OutputChecker {
 public:
  virtual ~OutputChecker() = default;
  // What the point's lanes need before they run, made on the input pipeline's thread from the
  // point's seed (into `slot` where it is large enough for the plan): its inputs and whatever the
  // check compares with. Each kind of work's seconds go to Inputs::made_s.
  virtual Inputs begin_point(const Plan& plan, std::uint64_t point_seed,
                             std::shared_ptr<HostSlot> slot) const = 0;
  // The lane's outputs checked into `row` and its launch measured (lane.measure), in the order the
  // device allows; whether the outputs passed (the row then holds the timings). A failed check is
  // the row's status and reason, and nothing measured counts.
  virtual bool check_lane(const CheckedLane& lane, ResultRow& row) const = 0;
  // After every lane of the point at `block` (`model`: the point's): what only the whole point can
  // say of its rows.
  virtual void conclude_point(const KernelModel& model, const Inputs& in, std::uint32_t block,
                              std::vector<ResultRow>& rows) const = 0;
  // Whether the point's expected output is known before any lane runs: then a lane's row is
  // final when the lane ends, and whatever runs the kernel again on the same inputs (a chain of
  // its dispatches, its traced twin) can be checked against it. Such a kernel (a built-in one,
  // whose output the CPU computes from its input) reads its buffers as data, never as indices,
  // so it may also run on any contents: the counters' profiling before the first row.
  virtual bool knows_output_first() const = 0;
};

// The checker of `model` (KernelModel::check); one of each, without state of its own.
const OutputChecker& output_checker(const KernelModel& model);
// The two: every element against the CPU reference; the point's lanes and expected files.
const OutputChecker& cpu_reference_checker();
const OutputChecker& lanes_checker();

}  // namespace cuvk::runner_detail
