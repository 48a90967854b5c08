// What the runner asks of a planned point (catalogue.h, Plan): every answer is read from the
// plan's kernel model (kernel_model.h), which a built-in test's plan and a kernel pair's fill
// alike. run_config.cpp, runner.cpp, input_pipeline.cpp and the lane (runner_lane.cpp) ask these
// instead of telling kinds of test apart.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalogue.h"
#include "error.h"
#include "launch_geometry.h"
#include "row.h"

namespace cuvk {

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
  check_at_size(test, n, lim);
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

void Plan::check_at_size(const std::string& test, std::uint32_t n, const DeviceLimits& lim) const {
  // A CPU reference's host arrays and 32-bit indices at the run's size; a declaration runs at its
  // own size, checked with the devices' limits (check_model).
  if (has_cpu_reference()) check_plan_sizes(test, n, *this, lim);
}

void check_plan_sizes(const std::string& test, std::uint32_t n, const Plan& plan,
                      const DeviceLimits& lim) {
  const std::string at = fmt::format("{} at n={}", test, n);
  const KernelModel& m = plan.kernel_model();
  const std::uint64_t in_words = input_words(m), out_words = output_words(m);
  // A built-in launch rule's threads do not depend on the block size (a pair's never come here:
  // Plan::check_at_size).
  if (in_words == 0 || out_words == 0 || m.launch(0).threads == 0)
    throw UsageError(at + ": the point would do no work (0 threads or an empty buffer)");
  for (std::uint64_t words : {in_words, out_words}) {
    if (words > kMaxIndexWords)
      throw UsageError(fmt::format("{}: {} elements overflow 32-bit indices", at, words));
    if (words * sizeof(float) > lim.max_buffer)
      throw UsageError(fmt::format("{} needs a buffer of {} bytes; the device allows {}", at,
                                   words * sizeof(float), lim.max_buffer));
  }
  const std::uint64_t host = host_bytes_of(plan);
  if (host > lim.max_host)
    throw UsageError(
        fmt::format("{} needs about {} bytes of host memory (inputs, expected and downloaded "
                    "outputs of two points); {} allows {}",
                    at, host, lim.max_host_name, lim.max_host));
}

std::uint64_t host_bytes_of(const Plan& plan) {
  // Two slots of host memory (input_pipeline.h: this point's and the next one's, prepared
  // meanwhile), each an input, an expected output and a download buffer: words are at most 2^33
  // each, so this cannot overflow.
  const KernelModel& m = plan.kernel_model();
  return 2 * (input_words(m) + 2 * output_words(m)) * sizeof(float);
}

std::pair<std::uint32_t, std::string> rows_size(
    const std::vector<std::pair<std::string, const Plan*>>& plans, std::uint32_t n,
    const std::string& n_rule) {
  bool any_builtin = false;
  std::vector<std::pair<std::string, OwnSize>> pairs;
  for (const auto& [test, plan] : plans) {
    const std::optional<OwnSize> own = plan->own_size();
    if (!own)
      any_builtin = true;
    else if (pairs.empty() || pairs.back().first != test)
      pairs.emplace_back(test, *own);
  }
  return run_n(n, n_rule, any_builtin, pairs);
}

std::pair<std::uint32_t, std::string> run_n(
    std::uint32_t n, const std::string& rule, bool any_builtin,
    const std::vector<std::pair<std::string, OwnSize>>& pairs) {
  if (pairs.empty()) return {n, rule};
  const OwnSize& first = pairs.front().second;
  if (!any_builtin && pairs.size() == 1) return {static_cast<std::uint32_t>(first.n), first.n_rule};
  std::vector<std::string> each;
  for (const auto& [name, own] : pairs)
    each.push_back(fmt::format("{} at {} ({})", name, own.n, own.n_rule));
  const std::string said = fmt::format("{}", fmt::join(each, ", "));
  if (!any_builtin) return {static_cast<std::uint32_t>(first.n), "pairs: " + said};
  return {n, rule + "; pairs: " + said};
}

}  // namespace cuvk
