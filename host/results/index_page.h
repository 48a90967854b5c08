// A results folder's README.md (`cuvk report --index DIR`): the run index, each run's parity
// table, the plots, the merged tables and links to the folder's other documents.
#pragma once

#include <string>
#include <vector>

#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {

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
