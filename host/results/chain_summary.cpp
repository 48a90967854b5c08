#include "chain_summary.h"

#include "parity.h"
#include "printing.h"
#include "util.h"

namespace cuvk {
namespace {

// A side's mode, GPU us per step, interval and host us per step; "-" where it has none.
std::vector<std::string> side_cells(const std::optional<ResultRow>& r) {
  if (!r || !r->submission) return {"-", "-", "-", "-"};
  const std::string mode = submission_name(*r->submission);
  if (r->status != Status::ok)
    return {mode, r->status == Status::failed ? "FAILED" : "-", "-", "-"};
  return {mode, format_number("{:.2f}", 1000.0 * r->time_ms.median),
          format_number("{:.1f}", 100.0 * r->time_ms.ci_rel_half_width),
          r->host_us_per_step ? format_number("{:.2f}", *r->host_us_per_step) : "-"};
}

}  // namespace

std::string chain_summary_table(const std::vector<ResultRow>& rows, bool markdown) {
  std::vector<std::vector<std::string>> t = {{"test", "n", "block", "CUDA mode", "GPU us/step",
                                              "±CI %", "host us/step", "Vulkan mode", "GPU us/step",
                                              "±CI %", "host us/step", "Vulkan/CUDA"}};
  for (const ApiPair& p : pair_apis(rows)) {
    const ResultRow& any = p.cuda ? *p.cuda : *p.vulkan;
    // A multi-step kernel pair (kernel "pair:<name>") times whole sequences, not steps.
    if (!any.submission || any.kernel.rfind("pair:", 0) == 0) continue;
    std::vector<std::string> line = {any.test, std::to_string(any.n),
                                     std::to_string(any.block_size)};
    for (const std::optional<ResultRow>* side : {&p.cuda, &p.vulkan})
      for (std::string& c : side_cells(*side)) line.push_back(std::move(c));
    const bool both = p.cuda && p.vulkan && p.cuda->status == Status::ok &&
                      p.vulkan->status == Status::ok && p.cuda->time_ms.median > 0;
    line.push_back(both ? format_number("{:.3f}", p.vulkan->time_ms.median / p.cuda->time_ms.median)
                        : "-");
    t.push_back(std::move(line));
  }
  if (t.size() == 1) return "";
  return "\n" +
         heading(3, markdown,
                 "Chains: dependent dispatches side by side (GPU us/step = the chain's GPU span / "
                 "its steps; host us/step = wall time per step over >= 1000 steps, each chain "
                 "waited for; pairs: graph/recorded, stream/rerecorded, wait-each)") +
         format_text_table(t, markdown);
}

}  // namespace cuvk
