#include "input_pipeline.h"

#include <chrono>
#include <cstring>

#include "host_data.h"

namespace cuvk {

Inputs prepare_inputs(const Plan& plan, std::uint64_t run_seed, std::size_t index) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  Inputs in;
  auto t0 = Clock::now();
  if (plan.user) {  // a pair: its declared contents; no CPU reference (the APIs check each other)
    in.user = plan.user->contents(splitmix64(run_seed) + index);
    in.reference = std::make_shared<UserReference>();
    in.made_s.emplace_back("pair contents", seconds(t0));
    return in;
  }
  in.input = random_input(plan.in_words, splitmix64(run_seed) + index);
  in.made_s.emplace_back("random inputs", seconds(t0));
  t0 = Clock::now();
  in.expected.assign(plan.out_words, poison_float());
  plan.reference(in.input, in.expected);
  in.made_s.emplace_back("references", seconds(t0));
  const float* data = in.expected.data();  // the vector's buffer moves with it, unchanged
  const std::size_t bytes = in.expected.size() * sizeof(float);
  in.expected_hash = std::async(std::launch::async, [data, bytes] { return hash_output(data, bytes); }).share();
  return in;
}

EarlyInputs::EarlyInputs(Plan plan, std::uint64_t run_seed) : plan_(std::move(plan)), seed_(run_seed) {
  inputs_ = std::async(std::launch::async, [this] { return prepare_inputs(plan_, seed_, 0); });
}

EarlyInputs::~EarlyInputs() {
  if (inputs_.valid()) inputs_.wait();  // its thread reads plan_
}

std::optional<std::future<Inputs>> EarlyInputs::take_for(const Plan& plan, std::uint64_t run_seed) {
  const bool fits = inputs_.valid() && run_seed == seed_ && !plan.user && !plan_.user &&
                    plan.kernel == plan_.kernel &&
                    plan.in_words == plan_.in_words && plan.out_words == plan_.out_words &&
                    std::memcmp(&plan.params, &plan_.params, sizeof plan.params) == 0;
  if (!fits) return std::nullopt;
  return std::move(inputs_);
}

InputPipeline::InputPipeline(std::vector<const Plan*> plans, std::uint64_t run_seed, bool needed,
                             EarlyInputs* early)
    : plans_(std::move(plans)), seed_(run_seed), needed_(needed) {
  std::optional<std::future<Inputs>> first;
  if (early && needed_ && !plans_.empty()) first = early->take_for(*plans_[0], seed_);
  if (first)
    next_ = std::move(*first);
  else
    start(0);
}

InputPipeline::~InputPipeline() {
  if (next_.valid()) next_.wait();
}

Inputs InputPipeline::take(std::size_t j) {
  Inputs in = next_.valid() ? next_.get() : Inputs{};
  start(j + 1);
  return in;
}

void InputPipeline::start(std::size_t j) {
  if (!needed_ || j >= plans_.size()) return;
  const Plan* plan = plans_[j];
  const std::uint64_t seed = seed_;
  next_ = std::async(std::launch::async, [plan, seed, j] { return prepare_inputs(*plan, seed, j); });
}

}  // namespace cuvk
