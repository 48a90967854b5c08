// What the runner asks of a planned point (catalogue.h, Plan): every answer is read from the
// plan's kernel model (kernel_model.h), which a built-in test's plan and a kernel pair's fill
// alike. run_config.cpp, runner.cpp, input_pipeline.cpp and the lane (runner_lane.cpp) ask these
// instead of telling kinds of test apart.
#include "catalogue.h"
#include "error.h"
#include "launch_geometry.h"
#include "runner.h"
#include "runner_parts.h"

namespace cuvk {

using runner_detail::check_model;
using runner_detail::model_geometry;

std::uint64_t input_words(const KernelModel& m) {
  for (const ModelBuffer& b : m.buffers)
    if (b.point_input) return b.bytes() / sizeof(float);
  return 0;
}

std::uint64_t output_words(const KernelModel& m) {
  for (const ModelBuffer& b : m.buffers)
    if (b.output && !b.guarded) return b.bytes() / sizeof(float);
  return 0;
}

const KernelModel& Plan::kernel_model() const {
  if (!model)  // e.g. a hand-made Plan or a pair's plan function that set none
    throw Error("the plan of kernel '" + kernel +
                "' has no kernel model (a built-in test's comes from make_plan(), a pair's from "
                "the pair loader)");
  return *model;
}

Geometry Plan::geometry(std::uint32_t block, const DeviceLimits& lim) const {
  return model_geometry(kernel_model(), block, lim.max_x, lim.max_y, lim.max_block);
}

void Plan::check_limits(const std::string& test, std::uint32_t n,
                        const std::vector<std::uint32_t>& run_blocks,
                        const DeviceLimits& lim) const {
  // A CPU reference's indices and host arrays first (run_config.cpp: named by test and n), then
  // the model's buffers and grids (a pair's named by its file and field).
  check_at_size(test, n, lim.max_buffer);
  check_model(kernel_model(), block_sizes(run_blocks), lim.max_x, lim.max_y, lim.max_block,
              lim.max_buffer);
}

std::uint64_t Plan::device_bytes() const {
  return check_model(kernel_model(), {}, 0, 0, 0, ~std::uint64_t{0}) +
         (kernel_model().chain_steps > 0 ? output_words(kernel_model()) * sizeof(float)
                                         : 0);  // a chain's ping-pong buffer
}

std::vector<std::string> Plan::required_kernels(Api api) const {
  if (kernel_model().not_built[api]) return {};  // its side runs no lane (LaneRun)
  if (!is_sequence()) return {kernel};
  std::vector<std::string> kernels;
  for (const ModelStep& s : kernel_model().steps) kernels.push_back(s.kernel);
  return kernels;
}

std::vector<std::uint32_t> Plan::block_sizes(const std::vector<std::uint32_t>& run_blocks) const {
  return kernel_model().block_sizes.empty() ? run_blocks : kernel_model().block_sizes;
}

bool Plan::has_cpu_reference() const {
  return kernel_model().check == CheckBy::cpu_reference;
}

bool Plan::is_sequence() const {
  return !kernel_model().steps.empty();
}

std::optional<OwnSize> Plan::own_size() const {
  if (kernel_model().file.empty()) return std::nullopt;  // a declaration runs at its own size
  return OwnSize{kernel_model().n, kernel_model().n_rule};
}

ModelContents Plan::declared_contents(std::uint64_t seed) const {
  return kernel_model().contents ? kernel_model().contents(seed) : ModelContents{};
}

void Plan::describe_row(const Geometry& geom, ResultRow& row) const {
  // The declared launch's useful bytes; the moved ones from the sector model where the test has
  // one (a built-in test's), else what the declaration says it must move.
  const ModelLaunch l = kernel_model().launch(geom.block_size);
  row.n = static_cast<std::uint32_t>(kernel_model().n);
  row.useful_bytes = l.useful_bytes;
  row.moved_bytes = traffic.moved_bytes > 0 ? traffic.moved_bytes : l.useful_bytes;
  // The threads that do work: the declared ones; where the launch is a grid (or a sequence's
  // steps, which have their own shapes) the threads of the row's geometry.
  row.threads = l.grid || l.threads == 0 ? geom.grid_x * geom.grid_y * geom.block_size
                                         : static_cast<std::uint32_t>(l.threads);
}

bool Plan::n_in_label(bool run_sized, std::size_t test_sizes) const {
  return own_size() ? test_sizes > 1 : run_sized || test_sizes > 0;
}

std::string Plan::side_note(Api api) const {
  return kernel_model().notes[api];
}

bool Plan::side_built(Api api) const {
  return !kernel_model().not_built[api];
}

void Plan::check_at_size(const std::string& test, std::uint32_t n,
                         std::uint64_t max_buffer_bytes) const {
  // A CPU reference's host arrays and 32-bit indices at the run's size; a declaration runs at its
  // own size, checked with the devices' limits (check_model).
  if (has_cpu_reference()) check_plan(test, n, *this, max_buffer_bytes);
}

std::pair<std::uint32_t, std::string> runner_detail::rows_size(const std::vector<Job>& jobs,
                                                               std::uint32_t n,
                                                               const std::string& n_rule) {
  bool any_builtin = false;
  std::vector<std::pair<std::string, OwnSize>> pairs;
  for (const Job& j : jobs) {
    const std::optional<OwnSize> own = j.plan.own_size();
    if (!own)
      any_builtin = true;
    else if (pairs.empty() || pairs.back().first != j.test->name)
      pairs.emplace_back(j.test->name, *own);
  }
  return run_n(n, n_rule, any_builtin, pairs);
}

}  // namespace cuvk
