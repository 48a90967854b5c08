#include "launch_clock.h"

namespace cuvk {
namespace {

// Initialised with the other statics of the executable, before main runs.
const std::chrono::steady_clock::time_point kLaunch = std::chrono::steady_clock::now();

}  // namespace

std::chrono::steady_clock::time_point launch_time() {
  return kLaunch;
}

double seconds_since_launch() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kLaunch).count();
}

}  // namespace cuvk
