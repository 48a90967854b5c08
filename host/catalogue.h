// The test catalogue: a test is data. Each entry names the test, its layouts and variants, its
// parameter sweep, and for one parameter point: the kernel to run, the buffer sizes, the launch
// parameters, the traffic under the sector model and the CPU reference.
// Adding a test = one CUDA kernel + one GLSL shader (glsl/kernels.cmake) + one entry here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "params.h"
#include "sector_model.h"

namespace cuvk {

enum class Sweep { none, offset, stride };

// One parameter point as the user sees it.
struct Point {
  std::string layout;   // "" where the test has no layout axis
  std::string variant;  // "scalar" unless the test has a wide form
  std::uint32_t n = 0;  // problem size in elements (see each test's description)
  std::uint32_t offset = 0;
  std::uint32_t stride = 1;
};

// What the runner needs to execute and check one point.
struct Plan {
  std::string kernel;          // CUDA kernel name == SPIR-V module name
  CuvkParams params{};         // params.n = threads that do work
  std::uint64_t in_words = 0;  // 32-bit words of the input buffer
  std::uint64_t out_words = 0;
  Traffic traffic;
  // Writes the expected output into `out`, which arrives filled with the poison word: elements the
  // kernel must not touch keep it, and are checked too.
  std::function<void(const std::vector<float>& in, std::vector<float>& out)> reference;
};

struct TestCase {
  std::string name;
  std::string description;
  std::vector<std::string> layouts;   // empty: no layout axis
  std::vector<std::string> variants;  // at least {"scalar"}
  Sweep sweep = Sweep::none;
  std::function<Plan(const Point&)> plan;
};

const std::vector<TestCase>& catalogue();
const TestCase* find_test(const std::string& name);

// Kernel name of a point: test[_layout][_variant], the variant omitted when "scalar".
std::string kernel_name(const std::string& test, const std::string& layout,
                        const std::string& variant);

// Every kernel a catalogue entry can ask for (for the start-up consistency check).
std::vector<std::string> catalogue_kernels();

// Kernels in `required` missing from `available`; empty when all are there.
std::vector<std::string> missing_kernels(const std::vector<std::string>& required,
                                         const std::vector<std::string>& available);

constexpr std::uint32_t kPoisonWord = 0xFFC0DEADu;  // a NaN: never produced from the inputs

}  // namespace cuvk
