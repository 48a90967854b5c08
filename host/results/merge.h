// `cuvk report`: several runs (GPUs, drivers, dates) merged into comparison tables, and the index
// page of a results folder. Joining rows is done once here; the printers only format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "verdicts.h"
#include "run_printer.h"
#include "run_reader.h"

namespace cuvk {

inline constexpr const char* kReportSchema = "cuvk.report/1";

// One run's measurements of one point.
struct MergedCell {
  std::optional<ResultRow> cuda, vulkan;
  std::optional<RatioCi> vulkan_over_cuda;  // both ok
};

// One point (test, layout, variant, n, offset, stride, block size; Vulkan binding) across every
// run.
struct MergedRow {
  ResultRow point;
  Binding vulkan_binding = Binding::descriptor;  // one row per Vulkan binding mode (compare.h)
  std::vector<MergedCell> runs;                  // one per input run, in input order
};

// Rows in order of first appearance (run by run, each in its file order).
std::vector<MergedRow> merge_runs(const std::vector<RunFile>& runs);

std::string run_label(std::size_t index);  // A, B, ... Z, R27, R28, ...

// The comparison tables: table/md one section per test; csv one wide table whose columns name
// each run's file; json with the runs' identities. `heading_level` is the Markdown heading depth.
std::string format_merged(const std::vector<RunFile>& runs, Format format, int heading_level = 2);

// A results folder's README.md: an index of every run (GPU, drivers, date, cuvk revision, file),
// each run's parity table, plots (paths relative to the folder, e.g. "plots/x.offsets.png", grouped
// under the run whose file stem starts their name), the merged tables and links to `docs`.
struct IndexInputs {
  std::vector<RunFile> runs;       // names relative to the folder
  std::vector<std::string> plots;  // relative paths
  std::vector<std::string> docs;   // other Markdown files in the folder, relative
  double tolerance = kDefaultTolerance;
  std::string command;       // how the page was generated, for the header
  bool schema_page = false;  // the folder holds SCHEMA.md (linked from the header)
  std::string findings;      // FINDINGS.md's text (hand-written analysis), shown after the runs
};
std::string format_index(const IndexInputs& in);

}  // namespace cuvk
