// A run as the console table, Markdown, CSV or JSON (`cuvk run --format`): the same rows in every
// format, then the run's summary tables (run_summary.h) and its host-side cost.
#pragma once

#include <string>

#include "printing.h"
#include "run_writer.h"

namespace cuvk {

std::string format_run(const RunDocument& doc, Format format);

// The same run as it happens (table, md, csv): the head once the devices are open and the clocks
// settled, each row as soon as it is measured, the tail (notes, summaries, host cost, wall time
// and where it went) at the end. Table columns have fixed widths so rows line up as they come.
std::string stream_head(const RunDocument& doc, Format format);
// `columns`: --columns; `counters`: with the counter columns after them (a --counters run).
std::string stream_row(const ResultRow& row, Format format,
                       const std::vector<std::string>& columns = {}, bool counters = false);
// The rows table's column headers (what --columns names).
std::vector<std::string> run_table_headers();
std::string stream_tail(const RunDocument& doc, Format format);

}  // namespace cuvk
