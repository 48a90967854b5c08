// Printers of merged runs (merge.h), what `cuvk report FILE...` prints: table and Markdown one
// section per test, CSV one wide table whose columns name each run's file, JSON with the runs'
// identities. They only format.
#pragma once

#include <string>
#include <vector>

#include "printing.h"
#include "run_reader.h"

namespace cuvk {

// `heading_level` is the Markdown heading depth (2: a page of its own with a title).
std::string format_merged(const std::vector<RunFile>& runs, Format format, int heading_level = 2);

}  // namespace cuvk
