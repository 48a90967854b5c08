// A run as the console table, Markdown, CSV or JSON (`cuvk run --format`): the same rows in every
// format, then the run's summary tables (run_summary.h) and its host-side cost.
#pragma once

#include <string>

#include "printing.h"
#include "run_writer.h"

namespace cuvk {

std::string format_run(const RunDocument& doc, Format format);

}  // namespace cuvk
