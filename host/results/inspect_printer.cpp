#include "inspect_printer.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cuvk {
namespace {

using inspect::CudaSide;
using inspect::KernelInspection;
using inspect::VulkanSide;
using Rows = std::vector<std::vector<std::string>>;

std::string label(const VulkanSide& v) {
  return std::string("Vulkan ") + binding_name(v.binding);
}
std::string sass_label(const VulkanSide& v) {
  return std::string("Vulkan SASS (") + binding_name(v.binding) + ")";
}
std::string no_ptx(const CudaSide& c) {
  return "unavailable: " + c.unavailable;
}
std::string cuda_arch(const CudaSide& c) {
  return c.have_code ? " " + c.arch : "";
}

// Registers: ptxas -v's, the CUDA runtime's, each Vulkan binding's pipeline statistics.
void register_rows(Rows& rows, const KernelInspection& k) {
  const CudaSide& c = k.cuda;
  std::string regs = inspect::cuda_registers(c).text;  // ptxas -v's, else the runtime's
  if (c.ptxas)
    regs += fmt::format("; stack {} B, spills {}/{} B", c.ptxas->stack_bytes,
                        c.ptxas->spill_store_bytes, c.ptxas->spill_load_bytes);
  rows.push_back({"registers", "CUDA" + cuda_arch(c), regs});
  rows.push_back(
      {"", "CUDA runtime",
       c.runtime ? fmt::format("{} (cudaFuncGetAttributes, sm_{} SASS on {})", c.runtime->registers,
                               c.runtime->binary_version, c.runtime->device)
                 : "unavailable: " + c.runtime_unavailable});
  for (const VulkanSide& v : k.vulkan)
    rows.push_back(
        {"", label(v),
         v.shown_registers
             ? fmt::format("{} (pipeline statistics, block {})", *v.shown_registers, k.shown)
         : !v.statistics_unavailable.empty() ? "unavailable: " + v.statistics_unavailable
                                             : "the driver's statistics name no register count"});
}

// Global memory instructions, then parameters: kernel parameters (CUDA's constant bank) vs push
// constants.
void memory_rows(Rows& rows, const KernelInspection& k) {
  const CudaSide& c = k.cuda;
  rows.push_back({"global loads/stores", "CUDA PTX",
                  c.have_code ? inspect::format_ops(c.ptx_ops.global) : no_ptx(c)});
  rows.push_back({"", "CUDA SASS",
                  !c.sass.text.empty() ? inspect::format_ops(c.sass_ops.global)
                  : c.have_code        ? "unavailable: " + c.sass.unavailable
                                       : no_ptx(c)});
  for (const VulkanSide& v : k.vulkan)
    rows.push_back({"", label(v) + " SPIR-V",
                    v.code ? inspect::format_ops(v.spirv_global) : "no module " + v.module_name});
  for (const VulkanSide& v : k.vulkan)
    rows.push_back({"", sass_label(v),
                    !v.sass.text.empty() ? inspect::format_ops(v.sass_summary.ops.global)
                                         : "unavailable: " + v.sass.unavailable});
  rows.push_back({"parameter, shared", "CUDA PTX",
                  c.have_code ? inspect::format_ops(c.ptx_ops.other) : no_ptx(c)});
  if (!c.sass.text.empty())
    rows.push_back({"", "CUDA SASS", inspect::format_ops(c.sass_ops.other)});
  for (const VulkanSide& v : k.vulkan)
    if (v.code) rows.push_back({"", label(v) + " SPIR-V", inspect::format_ops(v.spirv_push)});
}

// The size of the code, then the layout check.
void size_and_layout_rows(Rows& rows, const KernelInspection& k) {
  const CudaSide& c = k.cuda;
  std::string sizes =
      c.have_code ? fmt::format("PTX {} instructions", c.ptx_ops.instructions) : no_ptx(c);
  if (!c.sass.text.empty())
    sizes += fmt::format(
        ", SASS {} instructions = {} bytes without NOPs ({} with cuobjdump's alignment NOPs)",
        c.sass_ops.instructions, 16 * c.sass_ops.instructions, c.sass_ops.bytes);
  rows.push_back({"code size", "CUDA", sizes});
  for (const VulkanSide& v : k.vulkan) {
    if (!v.code) continue;
    std::string size =
        fmt::format("{} SPIR-V instructions, {} words", v.reflected.instructions, v.words);
    if (v.shown_code_bytes)
      size += fmt::format("; machine code {} bytes (pipeline statistics)", *v.shown_code_bytes);
    rows.push_back({"", label(v), size});
  }
  for (const VulkanSide& v : k.vulkan) {
    if (!v.code) continue;
    const bool first = v.binding == k.vulkan.front().binding;
    if (!v.layout_note.empty()) {
      rows.push_back({first ? "interfaces" : "", label(v), v.layout_note});
      continue;
    }
    std::vector<std::string> bad;
    for (const LayoutCheck& l : v.layout)
      if (!l.ok) bad.push_back(l.where + ": GLSL " + l.glsl + ", C++ " + l.cpp);
    rows.push_back({first ? "std430 layout vs C++" : "", label(v),
                    bad.empty()
                        ? fmt::format("{} checks, all match", v.layout.size())
                        : fmt::format("{} MISMATCHES: {}", bad.size(), fmt::join(bad, "; "))});
  }
}

// The machine code side by side: CUDA's SASS (cubin) beside each Vulkan binding's (pipeline
// cache), summarized the same way, then what differs. Sides without SASS are left out (the global
// loads/stores rows say why in one line).
Rows sass_rows(const KernelInspection& k) {
  struct Side {
    std::string name;
    const inspect::SassSummary* summary;
  };
  std::vector<Side> sides;
  if (!k.cuda.sass.text.empty()) sides.push_back({"CUDA SASS", &k.cuda.sass_summary});
  for (const VulkanSide& v : k.vulkan)
    if (!v.sass.text.empty()) sides.push_back({sass_label(v), &v.sass_summary});
  if (sides.empty()) return {};
  Rows rows = {{"", fmt::format("SASS (block {})", k.shown), ""}};
  using Format = std::string (*)(const inspect::SassSummary&);
  const std::vector<std::pair<const char*, Format>> kinds = {
      {"SASS instructions",
       [](const inspect::SassSummary& s) { return std::to_string(s.ops.instructions); }},
      {"registers", inspect::format_registers},
      {"bounds checks", inspect::format_checks},
      {"address forms",
       [](const inspect::SassSummary& s) { return inspect::format_ops(s.address_forms); }},
      {"address arithmetic", inspect::format_addressing},
      {"parameter loads",
       [](const inspect::SassSummary& s) { return inspect::format_ops(s.ops.other); }}};
  for (const auto& [what, format] : kinds)
    for (const Side& side : sides)
      rows.push_back({&side == &sides.front() ? what : "", side.name, format(*side.summary)});
  const char* differs = "differs";
  for (const VulkanSide& v : k.vulkan) {
    if (!v.sass_differences) continue;
    rows.push_back({differs, "CUDA vs " + sass_label(v),
                    v.sass_differences->empty()
                        ? "nothing in these counts"
                        : fmt::format("{}", fmt::join(*v.sass_differences, "; "))});
    differs = "";
  }
  return rows;
}

std::string cell(const std::optional<inspect::Occupancy>& o, const char* none) {
  if (!o) return none;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d (%.0f%%)", o->blocks_per_sm, o->percent);
  return buf;
}

void print_occupancy(std::ostream& out, const KernelInspection& k) {
  out << "\n  Occupancy (resident blocks per SM and warps of the maximum; no shared memory, so "
         "threads, blocks and registers limit it). Model: "
      << k.limits_source << ".\n";
  std::vector<std::string> head = {"block", "CUDA runtime", "model, ptxas registers"};
  for (const VulkanSide& v : k.vulkan) {
    head.push_back(label(v) + " registers");
    head.push_back("model, " + label(v));
  }
  Rows occ = {head};
  for (const inspect::OccupancyRow& o : k.occupancy) {
    std::vector<std::string> r = {std::to_string(o.block), cell(o.runtime, "needs a CUDA GPU"),
                                  cell(o.ptxas_model, "-")};
    for (std::size_t i = 0; i < o.vulkan_registers.size(); ++i) {
      r.push_back(o.vulkan_registers[i] ? std::to_string(*o.vulkan_registers[i]) : "n/a");
      r.push_back(cell(o.vulkan_model[i], "-"));
    }
    occ.push_back(r);
  }
  out << inspect_columns(occ);
  if (!k.any_vulkan_statistics)
    out << "  Vulkan registers: n/a = the driver reports no pipeline statistics here "
           "(VK_KHR_pipeline_executable_properties); NVIDIA's driver does.\n";
}

void print_sass_listing(std::ostream& out, const inspect::Sass& sass) {
  if (!sass.text.empty())
    out << "(" << sass.tool << ")\n" << sass.text;
  else
    out << "unavailable: " << sass.unavailable << '\n';
}

void print_listings(std::ostream& out, const KernelInspection& k) {
  const CudaSide& c = k.cuda;
  if (c.have_code) {
    out << "\n--- " << k.kernel << ": CUDA PTX (" << c.arch << ", " << c.compiler << ") ---\n"
        << c.ptx;
    out << "\n--- " << k.kernel << ": CUDA SASS (" << c.arch << ") ---\n";
    print_sass_listing(out, c.sass);
  }
  for (const VulkanSide& v : k.vulkan) {
    out << "\n--- " << k.kernel << ": " << sass_label(v) << ", block " << k.shown << " ---\n";
    print_sass_listing(out, v.sass);
  }
  for (const VulkanSide& v : k.vulkan) {
    if (!v.code) continue;
    for (const auto& [b, reports] : v.statistics) {
      if (b != k.shown) continue;
      out << "\n--- " << k.kernel << ": " << label(v) << " pipeline statistics (block " << b
          << ") ---\n";
      for (const PipelineExecutableReport& e : reports) {
        out << e.name << " (" << e.description << "), subgroup size " << e.subgroup_size << '\n';
        for (const PipelineStatistic& s : e.statistics)
          out << "  " << s.name << ": " << s.value << "  (" << s.description << ")\n";
      }
    }
    out << "\n--- " << k.kernel << ": " << label(v) << " SPIR-V (module " << v.module_name
        << ") ---\n"
        << v.spirv_listing;
  }
}

}  // namespace

std::string inspect_columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t c = 0; c < rows[i].size(); ++c)
      out += "  " + rows[i][c] +
             (c + 1 < rows[i].size() ? std::string(width[c] - rows[i][c].size(), ' ') : "");
    out += '\n';
    if (i == 0) {
      for (std::size_t c = 0; c < width.size(); ++c) out += "  " + std::string(width[c], '-');
      out += '\n';
    }
  }
  return out;
}

void print_kernel_inspection(std::ostream& out, const KernelInspection& k, bool listings) {
  out << "\n== " << k.kernel << " ==\n";
  Rows summary = {{"", "API", ""}};
  register_rows(summary, k);
  memory_rows(summary, k);
  size_and_layout_rows(summary, k);
  out << inspect_columns(summary);
  if (const Rows rows = sass_rows(k); !rows.empty()) out << '\n' << inspect_columns(rows);
  print_occupancy(out, k);
  if (listings) print_listings(out, k);
}

}  // namespace cuvk
