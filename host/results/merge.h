// `cuvk report`: several runs (GPUs, drivers, dates) joined point by point, each run's CUDA and
// Vulkan rows paired as parity pairs them (parity.h). Joining is done once here; merge_printer.h
// formats it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity.h"
#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {

// One run's measurements of one point.
struct MergedCell {
  std::optional<ResultRow> cuda, vulkan;
  std::optional<RatioCi> vulkan_over_cuda;  // both ok
};

// One point (test, layout, variant, n, sweep axes, block size) on one Vulkan lane (lanes.h:
// binding mode, queue family at copy-engine points; as parity.h pairs them) across every run.
struct MergedRow {
  ResultRow point;
  Lane vulkan_lane = Lane::native(Api::vulkan);
  std::vector<MergedCell> runs;  // one per input run, in input order
};

// Rows in order of first appearance (run by run, each in its file order).
std::vector<MergedRow> merge_runs(const std::vector<RunFile>& runs);

std::string run_label(std::size_t index);  // A, B, ... Z, R27, R28, ...

}  // namespace cuvk
