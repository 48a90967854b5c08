// The streamed run table (run_printer.h): every row lines up with the header, however wide its
// values, because the columns are sized from the plan before the first row (issue 36 item 7).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "chain_summary.h"
#include "run_printer.h"

using namespace cuvk;

namespace {

ResultRow row(const std::string& test, const std::string& variant, Api api, Status status) {
  ResultRow r;
  r.test = test;
  r.layout = "-";
  r.variant = variant;
  r.api = api;
  r.binding = api == Api::cuda ? Binding::pointer : Binding::descriptor;
  r.block_size = 256;
  r.n = 1024;
  r.status = status;
  if (status == Status::ok) {
    r.check = Check::timing_only;  // a live run's widest ok status (issue 31)
    r.time_ms.median = r.time_ms.min = r.time_ms.max = 1.5;
    r.time_ms.samples = 20;
    r.verified = true;
  }
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Where each column of a streamed line starts: after a run of two spaces or more.
std::vector<std::size_t> column_starts(const std::string& line) {
  std::vector<std::size_t> starts = {0};
  for (std::size_t i = 2; i < line.size(); ++i)
    if (line[i] != ' ' && line[i - 1] == ' ' && line[i - 2] == ' ') starts.push_back(i);
  return starts;
}

}  // namespace

TEST(RunPrinter, StreamedRowsLineUpWithTheHeaderWhateverTheirWidth) {
  ResultRow engine = row("copy", "engine", Api::vulkan, Status::ok);
  engine.queue_family = 0;
  engine.queue_flags = "graphics|compute|transfer|sparse";  // a variant label of 44 characters
  const std::vector<ResultRow> rows = {
      row("block_reverse", "scalar", Api::cuda, Status::unavailable),  // a 13-character test
      row("block_reverse", "scalar", Api::vulkan, Status::ok), engine,
      row("copy", "vec4", Api::vulkan, Status::failed)};
  RunDocument doc;
  doc.outcome.n = 1024;
  doc.outcome.planned = rows;
  // The header and the rule, then each row as it comes; narrowed as --columns does too.
  for (const std::vector<std::string>& columns :
       {std::vector<std::string>{},
        std::vector<std::string>{"test", "variant", "api", "median_ms", "status"}}) {
    doc.columns = columns;
    const std::vector<std::size_t> widths = stream_widths(doc);
    const std::vector<std::string> head = lines_of(stream_head(doc, Format::table, widths));
    ASSERT_GE(head.size(), 2u);
    const std::string& header = head[head.size() - 2];
    const std::string& rule = head.back();
    ASSERT_EQ(rule.find_first_not_of("- "), std::string::npos) << rule;
    const std::vector<std::size_t> starts = column_starts(rule + " ");
    EXPECT_EQ(column_starts(header), starts) << header;
    std::size_t checked = 0;
    for (const ResultRow& r : rows) {
      const std::string line = lines_of(stream_row(r, Format::table, widths, columns)).at(0);
      // Each cell starts at its column (a right-aligned number ends where its column ends).
      EXPECT_EQ(line.size(), rule.size()) << "\n" << header << "\n" << line;
      const std::vector<std::size_t> cells = column_starts(line);
      EXPECT_EQ(cells.size(), starts.size()) << line;
      ++checked;
    }
    EXPECT_EQ(checked, 4u);
  }
}

TEST(RunPrinter, TheStatusColumnHoldsEveryStatusARowCanPrint) {
  RunDocument doc;  // no planned rows: the statuses alone
  const std::vector<std::size_t> widths = stream_widths(doc);
  const std::vector<std::string> statuses = status_cells();
  ASSERT_EQ(statuses.size(), 6u);  // failed, unavailable and every check of an ok row (issue 31)
  EXPECT_NE(std::find(statuses.begin(), statuses.end(), "ok, timing only"), statuses.end());
  const std::vector<std::string> headers = run_table_headers();
  std::size_t status_column = headers.size();
  for (std::size_t c = 0; c < headers.size(); ++c)
    if (headers[c] == "status") status_column = c;
  ASSERT_LT(status_column, headers.size());
  for (const std::string& s : statuses) EXPECT_GE(widths[status_column], s.size()) << s;
}

// Issue 33: the chain summary puts the corresponding modes of the two APIs on one line (graph
// beside recorded, stream beside rerecorded, wait-each beside wait-each) with GPU and host us per
// step, and lists the modes without a counterpart on lines of their own; no chain rows: no table.
TEST(ChainSummary, CorrespondingModesSideBySide) {
  std::vector<ResultRow> rows;
  const auto add = [&rows](Api api, Submission s, double ms) {
    ResultRow r;
    r.test = "chain";
    r.variant = "scalar";
    r.n = 4096;
    r.block_size = 256;
    r.api = api;
    r.binding = native_binding(api);
    r.submission = s;
    r.status = Status::ok;
    r.time_ms.median = ms;
    r.host_us_per_step = 1000.0 * ms + 1.0;
    rows.push_back(r);
  };
  EXPECT_EQ(chain_summary_table(rows, false), "");
  add(Api::cuda, Submission::graph, 0.002);
  add(Api::cuda, Submission::pdl, 0.0015);
  add(Api::vulkan, Submission::recorded, 0.004);
  add(Api::vulkan, Submission::submit_each, 0.008);
  const std::string t = chain_summary_table(rows, false);
  std::istringstream lines(t);
  std::string line;
  int graph_lines = 0, alone = 0;
  while (std::getline(lines, line)) {
    if (line.find("graph") != std::string::npos && line.find("recorded") != std::string::npos &&
        line.find("2.000") != std::string::npos)
      ++graph_lines;  // Vulkan/CUDA 4 / 2
    if ((line.find("pdl") != std::string::npos || line.find("submit-each") != std::string::npos) &&
        line.find("Chains") == std::string::npos)
      ++alone;
  }
  EXPECT_EQ(graph_lines, 1) << t;
  EXPECT_EQ(alone, 2) << t;
  EXPECT_NE(t.find("5.00"), std::string::npos) << t;  // the recorded row's host us per step
}
