#include "input_pipeline.h"

#include "host_data.h"

namespace cuvk {

Inputs prepare_inputs(const Plan& plan, std::uint64_t run_seed, std::size_t index) {
  Inputs in;
  in.input = random_input(plan.in_words, splitmix64(run_seed) + index);
  in.expected.assign(plan.out_words, poison_float());
  plan.reference(in.input, in.expected);
  const float* data = in.expected.data();  // the vector's buffer moves with it, unchanged
  const std::size_t bytes = in.expected.size() * sizeof(float);
  in.expected_hash = std::async(std::launch::async, [data, bytes] { return fnv1a64(data, bytes); }).share();
  return in;
}

InputPipeline::InputPipeline(std::vector<const Plan*> plans, std::uint64_t run_seed, bool needed)
    : plans_(std::move(plans)), seed_(run_seed), needed_(needed) {
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
