// `cuvk report`'s work: saved runs read, merged, indexed (host/cli/cmd_report.cpp gathers its
// options).
#pragma once

#include <string>
#include <vector>

namespace cuvk {

struct ReportArgs {
  std::vector<std::string> files;
  std::string index_dir, format = "md", output, tolerance = "3";
  bool fleet = false, no_plots = false;
};

int report_command(const ReportArgs& a);

}  // namespace cuvk
