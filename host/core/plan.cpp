// What the runner asks of a planned point (catalogue.h, Plan): a built-in test's plan answers from
// its kernel, parameters and buffer words, a kernel pair's from its UserPlan (runner_user.cpp
// checks and launches it). run_config.cpp, runner.cpp and input_pipeline.cpp ask these instead of
// telling the kinds apart, and so do a row's identity and a lane's refusals (runner_lane.cpp).
// One branch is left in the lane: a pair's lane runs runner_user.cpp (its guarded buffers, the
// other lanes as its check), a built-in test's the CPU-reference path.
#include "catalogue.h"
#include "launch_geometry.h"
#include "runner.h"
#include "runner_parts.h"

namespace cuvk {

using runner_detail::check_user_plan;
using runner_detail::settle_pair_checks;
using runner_detail::user_geometry;

Geometry Plan::geometry(std::uint32_t block, const DeviceLimits& lim) const {
  if (user) return user_geometry(*user, block, lim.max_x, lim.max_y, lim.max_block);
  return launch_geometry(runner_detail::launch_threads(*this), block, lim.max_x, lim.max_y);
}

void Plan::check_limits(const std::string& test, std::uint32_t n,
                        const std::vector<std::uint32_t>& run_blocks,
                        const DeviceLimits& lim) const {
  if (user)  // a pair: its sizes and grids, named by file and field
    check_user_plan(*user, block_sizes(run_blocks), lim.max_x, lim.max_y, lim.max_block,
                    lim.max_buffer);
  else
    check_plan(test, n, *this, lim.max_buffer);  // run_config.cpp: work, indices, buffers, host
}

std::uint64_t Plan::device_bytes() const {
  if (user) return check_user_plan(*user, {}, 0, 0, 0, ~std::uint64_t{0});
  return runner_detail::device_words(*this) * sizeof(float);
}

std::vector<std::string> Plan::required_kernels(Api api) const {
  if (user && user->not_built[api]) return {};  // its side runs no lane (run_lane)
  if (!is_sequence()) return {kernel};
  std::vector<std::string> kernels;
  for (const UserStep& s : user->steps) kernels.push_back(s.kernel);
  return kernels;
}

std::vector<std::uint32_t> Plan::block_sizes(const std::vector<std::uint32_t>& run_blocks) const {
  return user && !user->block_sizes.empty() ? user->block_sizes : run_blocks;
}

bool Plan::has_cpu_reference() const {
  return !user;
}

bool Plan::profiled_first() const {
  return !user && kernel != kCopyEngine;
}

bool Plan::is_sequence() const {
  return user && !user->steps.empty();
}

std::optional<OwnSize> Plan::own_size() const {
  if (!user) return std::nullopt;
  return OwnSize{user->n, user->n_rule};
}

UserContents Plan::declared_contents(std::uint64_t seed) const {
  return user ? user->contents(seed) : UserContents{};
}

void Plan::describe_row(const Geometry& geom, ResultRow& row) const {
  if (!user) {
    row.threads = runner_detail::launch_threads(*this);
    row.useful_bytes = traffic.useful_bytes;
    row.moved_bytes = traffic.moved_bytes;
    return;
  }
  // No sector model: what the declaration says it must move.
  row.useful_bytes = row.moved_bytes = user->launch(geom.block_size).useful_bytes;
  row.n = static_cast<std::uint32_t>(user->n);
  row.threads = geom.grid_x * geom.grid_y * geom.block_size;
}

bool Plan::n_in_label(bool run_sized, std::size_t test_sizes) const {
  return user ? test_sizes > 1 : run_sized || test_sizes > 0;
}

std::string Plan::side_note(Api api) const {
  return user ? user->notes[api] : std::string();
}

bool Plan::side_built(Api api) const {
  return !user || !user->not_built[api];
}

void runner_detail::conclude_point(const Plan& plan, const Inputs& in, std::uint32_t block,
                                   std::vector<ResultRow>& rows) {
  if (plan.has_cpu_reference()) return;  // each lane concluded its own row
  settle_pair_checks(*plan.user, in.reference->by_block[block], rows);
  in.reference->by_block.erase(block);  // the lanes' outputs: only this point compares them
}

}  // namespace cuvk
