// The dispatch cost model in the run's outputs (--dispatch-cost; host/core/runner/cost_fit.h): its JSON
// (results/SCHEMA.md, `dispatch_cost`) and its two tables, the fit per API and the sweep itself.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner.h"

namespace cuvk {

nlohmann::json dispatch_cost_json(const std::vector<DispatchCostResult>& results);
std::string dispatch_cost_tables(const std::vector<DispatchCostResult>& results, bool markdown);

}  // namespace cuvk
