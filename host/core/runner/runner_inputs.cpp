// The first point's inputs taken, and their host memory registered with every backend, beside
// the clock settling (FirstInputs, runner_parts.h).
#include <functional>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "runner_parts.h"

namespace cuvk::runner_detail {

FirstInputs::FirstInputs(InputPipeline& inputs, bool needed, const std::vector<ApiState>& apis) {
  if (!needed) return;
  std::vector<Backend*> backends;
  for (const ApiState& a : apis)
    if (a.backend) backends.push_back(a.backend);
  done_ = std::async(std::launch::async, [&inputs, backends] {
    Made made;
    auto t0 = WallClock::now();
    made.in = inputs.take(0);
    made.took.emplace_back("first inputs (beside settling)", seconds_since(t0));
    if (!made.in.slot) return made;  // a pair's point
    // The input and the download array side by side (each array on one thread: HostMemory
    // is not shared between threads), each with every backend in turn.
    const auto register_all = [&backends](HostMemory& m, std::size_t floats, const char* what) {
      std::vector<std::pair<std::string, double>> took;
      for (Backend* b : backends) {
        const auto t = WallClock::now();
        m.register_with(*b, floats);
        took.emplace_back(api_phase(b->info().api, what), seconds_since(t));
      }
      return took;
    };
    HostSlot& slot = *made.in.slot;
    auto download = std::async(std::launch::async, register_all, std::ref(slot.download),
                               made.in.download.size(), "register download (beside settling)");
    const auto input =
        register_all(slot.input, made.in.input.size(), "register input (beside settling)");
    for (const auto& took : {input, download.get()})
      made.took.insert(made.took.end(), took.begin(), took.end());
    return made;
  });
}

FirstInputs::~FirstInputs() {
  if (done_.valid()) done_.wait();  // its thread uses the pipeline and the backends
}

Inputs FirstInputs::take(RunOutcome& out) {
  if (!done_.valid()) return {};
  Made made = done_.get();
  for (const auto& [what, s] : made.took) add_phase(out.background_s, what, s);
  return std::move(made.in);
}

}  // namespace cuvk::runner_detail
