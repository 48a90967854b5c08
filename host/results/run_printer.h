// A run as the console table, Markdown, CSV or JSON (`cuvk run --format`): the same rows in every
// format, then the run's summary tables (run_summary.h) and its host-side cost.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "printing.h"
#include "run_writer.h"

namespace cuvk {

std::string format_run(const RunDocument& doc, Format format);

// The same run as it happens (table, md, csv): the head once the devices are open and the clocks
// settled, each row as soon as it is measured, the tail (notes, summaries, host cost, wall time
// and where it went) at the end. Table columns have fixed widths so rows line up as they come:
// stream_widths() sizes each from its header, its usual values and what the plan knows before the
// first row (doc.outcome.planned: tests, points, variant labels, block sizes, APIs, bindings; and
// every status a row can print). A wider value (a number) pushes the rest of its row along.
std::vector<std::size_t> stream_widths(const RunDocument& doc);
std::string stream_head(const RunDocument& doc, Format format,
                        const std::vector<std::size_t>& widths);
// `columns`: --columns; `counters`: with the counter columns after them (a --counters run).
std::string stream_row(const ResultRow& row, Format format, const std::vector<std::size_t>& widths,
                       const std::vector<std::string>& columns = {}, bool counters = false);
// Every status cell a row can print ("ok, verified", "failed", "unavailable").
std::vector<std::string> status_cells();
// The rows table's column headers (what --columns names).
std::vector<std::string> run_table_headers();
std::string stream_tail(const RunDocument& doc, Format format);

}  // namespace cuvk
