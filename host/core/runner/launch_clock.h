// Seconds since the process started, for the wall times a run records (wall_s, first_row_s and
// the start-up phase): the clock starts during static initialisation, before main.
#pragma once

#include <chrono>

namespace cuvk {

std::chrono::steady_clock::time_point launch_time();
double seconds_since_launch();

}  // namespace cuvk
