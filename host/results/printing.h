// What more than one printer uses: the output formats, the aligned text/Markdown table, CSV
// quoting, and the cells, lines and JSON pieces that several printers share. Printers only format:
// every number and verdict comes from the computing rooms (verdicts, parity, baseline, merge).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dims.h"
#include "lanes.h"
#include "row.h"
#include "run_file.h"
#include "verdicts.h"

namespace cuvk {

enum class Format { table, md, csv, json };

// The derived documents' schemas (results/SCHEMA.md, "Derived documents"): outputs, never read as
// runs. `cuvk parity` and `cuvk run --baseline` write the first, `cuvk report` the second.
inline constexpr const char* kParitySchema = "cuvk.parity/1";
inline constexpr const char* kReportSchema = "cuvk.report/1";

// Text from files and drivers goes through printable() (json_check.h) wherever it is printed:
// format_text_table and csv_field do it for every cell, describe_run for its line.

// A Markdown table cell: printable() and every '|' escaped ("\|"), so text from files and drivers
// (a variant "engine q0 (graphics|compute|transfer)") never splits a cell. Every Markdown table
// cell cuvk prints goes through it (format_text_table, the run's streamed rows).
std::string md_cell(const std::string& s);

// rows[0] is the header; a column whose data cells start with a digit is right-aligned.
std::string format_text_table(const std::vector<std::vector<std::string>>& rows, bool markdown);

// `--columns`: the indices of the named columns in `headers`, in the order named; every column
// when `names` is empty. A name matches a header case-insensitively, '_' standing for a space
// ("median_ms" = "median ms"). Throws UsageError naming an unknown column and listing the headers.
std::vector<std::size_t> column_indices(const std::vector<std::string>& headers,
                                        const std::vector<std::string>& names);
// The cells of `row` at `indices` (a row shorter than an index gets "" there).
std::vector<std::string> pick_cells(const std::vector<std::string>& row,
                                    const std::vector<std::size_t>& indices);
std::string csv_field(const std::string& s);  // printable(), quoted where needed

std::string dash(const std::string& s);  // "-" for ""
std::string heading(int level, bool markdown,
                    const std::string& text);  // "## text\n\n" or "text\n"
std::string tolerance_text(double tolerance);  // 0.03 -> "3%"
std::string interval_text(const RatioCi& r);   // "[0.998, 1.013]" ("inf" where unbounded)
// A row's median ms for a table cell: "-" without a row or time, FAILED for a failed row.
std::string ms_cell(const std::optional<ResultRow>& r);

nlohmann::json null_if_empty(const std::string& s);
nlohmann::json finite_or_null(double v);

// One line about a run for report headers: file, GPU, drivers, date, cuvk revision; and the same
// facts as JSON for the derived documents.
std::string describe_run(const RunFile& run);
nlohmann::json run_identity_json(const RunFile& run);

// A point's fields in the derived documents: test, layout, variant, point, n, axes, block_size.
nlohmann::json point_json(const ResultRow& r);
// Adds the point dimensions shown at `place` (a PointShow bit) to `j` (point_json_value).
void put_point(nlohmann::json& j, unsigned place, const ResultRow& r);

// ---- a table's dimension columns (dims.h), the same in every printer ----

// The headers: a point dimension's, a lane dimension's lane_header (`pair`: "Vulkan binding").
std::vector<std::string> dim_headers(const std::vector<DimColumn>& columns, bool pair);
// The cells of `point` measured on `lane`: point_cell, and each lane value ("-" where none).
std::vector<std::string> dim_cells(const std::vector<DimColumn>& columns, const ResultRow& point,
                                   const Lane& lane);
// `columns` less the lane columns where every one of `lanes` is at its neutral value (a binding
// column only where some row is off its API's own binding; the API always stays).
std::vector<DimColumn> drop_neutral_lanes(std::vector<DimColumn> columns,
                                          const std::vector<Lane>& lanes);

// ---- a lane's fields and columns (lanes.h), the same in every printer ----

// Adds `<prefix><name>` for each lane dimension JSON shows where the lane has a value; `pair`: a
// CUDA vs Vulkan pair's Vulkan lane (prefix "vulkan_"), the API left out.
void put_lane(nlohmann::json& j, const std::string& prefix, const Lane& lane, bool pair);
// A lane column's header: "binding", or in a pair "Vulkan binding".
std::string lane_header(std::size_t dim, bool pair);

// ---- shared by the parity and baseline printers ----

nlohmann::json verdict_side_json(const std::optional<ResultRow>& r);  // one side of a ratio

// CSV of both comparisons: one header, then rows told apart by the `comparison` column
// ("vulkan/cuda" or "new/baseline"). `lane`: the row's, or (`pair`) the Vulkan row's, whose API
// cell is then empty.
std::string comparison_csv_header();
std::string comparison_csv_line(const char* comparison, const ResultRow& point, const Lane& lane,
                                bool pair, const std::optional<ResultRow>& numerator,
                                const std::optional<ResultRow>& denominator, bool compared,
                                const RatioCi& ratio, const std::string& verdict,
                                const std::string& outputs, const std::string& reason);

}  // namespace cuvk
