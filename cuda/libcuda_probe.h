// Why the CUDA driver library cannot be used, told apart: the CUDA runtime (linked statically)
// opens libcuda.so.1 itself and says only that no driver answered. Plain C++, no CUDA headers.
#pragma once

#include <string>

namespace cuvk {

// Opens libcuda.so.1 as the runtime does and says what is wrong with it: not installed (the
// loader's reason), found at PATH but lacking cuInit (a stub, not a driver), or found at PATH but
// cuInit failed (the CUresult decoded by the library's own cuGetErrorName where it has one).
// Empty when cuInit succeeds: the problem lies elsewhere.
std::string libcuda_problem();

}  // namespace cuvk
