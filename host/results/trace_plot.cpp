// `cuvk trace --plot`: an SVG drawn here, no plotting library. One panel per traced API, stacked
// on one time axis: each block is a horizontal line from its start to its end, at the row of its
// SM (SMs in id order; blocks resident on one SM at once get their own sub-rows), then below it
// the blocks resident per SM over time (TraceSummary::residency).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "trace_file.h"

namespace cuvk {
namespace {

constexpr double kWidth = 1000, kLeft = 70, kRight = 20, kTop = 40;
constexpr double kBlocksHeight = 300, kResidencyHeight = 90, kGap = 60;
constexpr std::size_t kMaxLines = 20000;  // more blocks: every k-th is drawn (the caption says so)

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// Each block's row: SM rank * slots + its slot among the blocks resident on that SM at once
// (greedy, by start). Returns the rows and sets `rows_total`.
std::vector<std::size_t> block_rows(const std::vector<TraceBlock>& blocks,
                                    std::size_t& rows_total) {
  std::map<std::uint32_t, std::vector<std::size_t>> by_sm;  // block positions, SM id order
  for (std::size_t i = 0; i < blocks.size(); ++i) by_sm[blocks[i].sm].push_back(i);
  std::vector<std::size_t> slot(blocks.size(), 0);
  std::size_t slots = 1;
  for (auto& [sm, list] : by_sm) {
    std::sort(list.begin(), list.end(), [&blocks](std::size_t a, std::size_t b) {
      return blocks[a].start_ns < blocks[b].start_ns;
    });
    std::vector<double> busy_until;
    for (std::size_t i : list) {
      std::size_t s = 0;
      while (s < busy_until.size() && busy_until[s] > blocks[i].start_ns) ++s;
      if (s == busy_until.size()) busy_until.push_back(0.0);
      busy_until[s] = blocks[i].end_ns;
      slot[i] = s;
    }
    slots = std::max(slots, busy_until.size());
  }
  std::vector<std::size_t> rows(blocks.size());
  std::size_t rank = 0;
  for (const auto& [sm, list] : by_sm) {
    for (std::size_t i : list) rows[i] = rank * slots + slot[i];
    ++rank;
  }
  rows_total = std::max<std::size_t>(1, by_sm.size() * slots);
  return rows;
}

void time_axis(std::ostringstream& svg, double y, double span_us) {
  const double plot_w = kWidth - kLeft - kRight;
  svg << "<line x1='" << kLeft << "' y1='" << num(y) << "' x2='" << kWidth - kRight << "' y2='"
      << num(y) << "' stroke='#444'/>\n";
  for (int i = 0; i <= 10; ++i) {
    const double x = kLeft + plot_w * i / 10.0;
    svg << "<line x1='" << num(x) << "' y1='" << num(y) << "' x2='" << num(x) << "' y2='"
        << num(y + 4) << "' stroke='#444'/><text x='" << num(x) << "' y='" << num(y + 15)
        << "' font-size='10' text-anchor='middle'>" << num(span_us * i / 10.0) << "</text>\n";
  }
}

double panel(std::ostringstream& svg, const TraceLane& l, double y0, double span_ns) {
  const double plot_w = kWidth - kLeft - kRight;
  const std::string color = l.api == Api::cuda ? "#3b7d00" : "#a41e22";
  const TraceSummary& s = l.summary;
  const std::size_t step = (l.blocks.size() + kMaxLines - 1) / kMaxLines;
  svg << "<text x='" << kLeft << "' y='" << num(y0 - 8) << "' font-size='13' font-weight='bold'>"
      << escape(std::string(api_name(l.api)) + " (" + binding_name(l.binding) + "): " +
                std::to_string(s.blocks) + " blocks of " + std::to_string(l.geometry.block_size) +
                ", " + num(s.launch_rate_per_us) + " blocks/us, resident per " +
                (s.sm_known ? "SM" : "GPU") + " mean " + num(s.resident_mean) + " max " +
                num(s.resident_max) + ", tail " + num(s.tail_last_start_ns / 1e3) + " us" +
                (step > 1 ? ", every " + std::to_string(step) + "th block drawn" : ""))
      << "</text>\n";
  std::size_t rows_total = 1;
  const std::vector<std::size_t> rows = block_rows(l.blocks, rows_total);
  const double row_h = kBlocksHeight / static_cast<double>(rows_total);
  svg << "<g stroke='" << color << "' stroke-width='" << num(std::clamp(row_h * 0.8, 0.3, 6.0))
      << "'>\n";
  for (std::size_t i = 0; i < l.blocks.size(); i += step) {
    const TraceBlock& b = l.blocks[i];
    const double y = y0 + (static_cast<double>(rows[i]) + 0.5) * row_h;
    const double x1 = kLeft + plot_w * b.start_ns / span_ns;
    const double x2 = std::max(x1 + 0.3, kLeft + plot_w * b.end_ns / span_ns);
    svg << "<line x1='" << num(x1) << "' y1='" << num(y) << "' x2='" << num(x2) << "' y2='"
        << num(y) << "'/>\n";
  }
  svg << "</g>\n<text x='" << num(kLeft - 6) << "' y='" << num(y0 + kBlocksHeight / 2)
      << "' font-size='11' text-anchor='end'>"
      << (s.sm_known ? std::to_string(s.sms_seen) + " SMs" : "SM unknown") << "</text>\n";
  // Residency per SM over time, under the blocks.
  const double ry0 = y0 + kBlocksHeight + 10;
  double top = 1.0;
  for (const ResidencyBin& b : s.residency) top = std::max(top, b.per_sm);
  svg << "<polyline fill='none' stroke='" << color << "' points='";
  for (const ResidencyBin& b : s.residency) {
    const double y = ry0 + kResidencyHeight * (1.0 - b.per_sm / top);
    svg << num(kLeft + plot_w * b.t0_ns / span_ns) << "," << num(y) << " "
        << num(kLeft + plot_w * b.t1_ns / span_ns) << "," << num(y) << " ";
  }
  svg << "'/>\n<text x='" << num(kLeft - 6) << "' y='" << num(ry0 + 10)
      << "' font-size='10' text-anchor='end'>" << num(top) << "</text><text x='" << num(kLeft - 6)
      << "' y='" << num(ry0 + kResidencyHeight)
      << "' font-size='10' text-anchor='end'>0</text><text x='" << num(kLeft - 6) << "' y='"
      << num(ry0 + kResidencyHeight / 2) << "' font-size='10' text-anchor='end'>resident/"
      << (s.sm_known ? "SM" : "GPU") << "</text>\n";
  time_axis(svg, ry0 + kResidencyHeight + 2, span_ns / 1e3);
  return ry0 + kResidencyHeight + kGap;
}

}  // namespace

std::string trace_svg(const TraceDocument& doc) {
  std::vector<const TraceLane*> lanes;
  double span_ns = 0.0;
  for (const TraceLane& l : doc.lanes) {
    if (!lane_ok(l) || l.blocks.empty()) continue;
    lanes.push_back(&l);
    span_ns = std::max(span_ns, l.summary.span_ns);
  }
  if (span_ns <= 0.0) span_ns = 1.0;
  const double height = kTop + static_cast<double>(std::max<std::size_t>(1, lanes.size())) *
                                   (kBlocksHeight + 10 + kResidencyHeight + kGap);
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << num(height)
      << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n"
      << "<text x='" << kLeft << "' y='18' font-size='14'>"
      << escape("cuvk trace " + doc.kernel + ", n = " + std::to_string(doc.n) + ", block " +
                std::to_string(doc.block_size) + ": one line per block (row: SM), time in us")
      << "</text>\n";
  if (lanes.empty()) svg << "<text x='" << kLeft << "' y='60'>no API traced</text>\n";
  double y = kTop + 20;
  for (const TraceLane* l : lanes) y = panel(svg, *l, y, span_ns);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace cuvk
