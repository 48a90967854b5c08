// Pipeline executable properties and statistics, as the driver reports them.
#include "vk_pipeline_statistics.h"

#include <volk.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vk_util.h"

namespace cuvk::vk {
namespace {

std::string statistic_value(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 == VK_TRUE ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return format_double(s.value.f64);
    default:
      return "?";
  }
}

}  // namespace

std::vector<PipelineExecutableReport> executable_statistics(const VolkDeviceTable& table,
                                                            VkDevice device, VkPipeline pipeline) {
  VkPipelineInfoKHR pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  pipeline_info.pipeline = pipeline;
  const auto executables = enumerate<VkPipelineExecutablePropertiesKHR>(
      "vkGetPipelineExecutablePropertiesKHR", __FILE__, __LINE__,
      [&table, device, &pipeline_info](std::uint32_t* n, VkPipelineExecutablePropertiesKHR* p) {
        for (std::uint32_t i = 0; p != nullptr && i < *n; ++i) {
          p[i] = {};
          p[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
        }
        return table.vkGetPipelineExecutablePropertiesKHR(device, &pipeline_info, n, p);
      });
  std::vector<PipelineExecutableReport> reports;
  for (std::uint32_t e = 0; e < executables.size(); ++e) {
    PipelineExecutableReport report;
    report.name = executables[e].name;
    report.description = executables[e].description;
    report.subgroup_size = executables[e].subgroupSize;
    VkPipelineExecutableInfoKHR exec_info{};
    exec_info.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    exec_info.pipeline = pipeline_info.pipeline;
    exec_info.executableIndex = e;
    const auto stats = enumerate<VkPipelineExecutableStatisticKHR>(
        "vkGetPipelineExecutableStatisticsKHR", __FILE__, __LINE__,
        [&table, device, &exec_info](std::uint32_t* n, VkPipelineExecutableStatisticKHR* p) {
          for (std::uint32_t i = 0; p != nullptr && i < *n; ++i) {
            p[i] = {};
            p[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
          }
          return table.vkGetPipelineExecutableStatisticsKHR(device, &exec_info, n, p);
        });
    for (const VkPipelineExecutableStatisticKHR& s : stats)
      report.statistics.push_back({s.name, s.description, statistic_value(s)});
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace cuvk::vk
