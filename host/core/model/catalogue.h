// The test catalogue: a test is data. Each entry names the test, its layouts and variants, its
// parameter sweep, and for one parameter point: the kernel to run, the buffer sizes, the launch
// parameters, the traffic under the sector model and the CPU reference.
// Adding a test = one CUDA kernel (cuda/*.cu) + one GLSL shader (glsl/*.comp) + one entry here;
// the kernel tables and SPIR-V modules are derived from the files (docs/ADDING_A_TEST.md).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "axes.h"
#include "kernel_model.h"
#include "params.h"
#include "sector_model.h"
#include "span.h"

namespace cuvk {

struct ResultRow;  // row.h

// One parameter point as the user sees it.
struct Point {
  std::string layout;   // "" where the test has no layout axis
  std::string variant;  // "scalar" unless the test has a wide form
  std::uint32_t n = 0;  // problem size in elements (see each test's description)
  AxisValues axes;      // the sweep point; axes the test does not sweep stay neutral
};

// A point with the given axis values (by name); the others neutral.
Point make_point(const std::string& layout, const std::string& variant, std::uint32_t n,
                 const std::map<std::string, std::uint32_t>& axis_values = {});

// The parameter block of a launch: `threads` threads do work; every sweep axis reaches its field
// (the neutral values where `axes` is left as it is); the other fields 0.
CuvkParams kernel_params(std::uint32_t threads, const AxisValues& axes = AxisValues());

// The least of the limits of every device that runs: each plan is checked and launched within
// them, so both APIs get identical geometry.
struct DeviceLimits {
  std::uint32_t max_x = std::numeric_limits<std::uint32_t>::max(), max_y = max_x, max_block = max_x;
  std::uint64_t max_buffer = std::numeric_limits<std::uint64_t>::max();
  // The host memory a point may take and what sets it (the runner reads it: host_data.h's
  // host_memory_limit_bytes); a CPU reference's host arrays are checked against it.
  std::uint64_t max_host = std::numeric_limits<std::uint64_t>::max();
  std::string max_host_name;
};

// The problem size a plan runs at where it is its own (a kernel pair's), and how it was chosen.
struct OwnSize {
  std::uint64_t n = 0;
  std::string n_rule;  // "declared in saxpy.toml", "--n", ...
};

// What a built-in test's plan_* (catalogue.cpp) says of one point: the kernel, its parameter
// block, the threads, the buffer words, the traffic under the sector model, the CPU reference and
// a chain's steps. make_plan() turns it into the Plan the runner runs.
struct BuiltinPlan {
  std::string kernel;   // CUDA kernel name == SPIR-V module name
  CuvkParams params{};  // params.n = elements (threads that do work, one each)
  // Threads launched, when fewer than params.n: a grid-stride kernel, each thread looping over
  // every launch_threads-th element. 0: params.n threads, one element each.
  std::uint32_t launch_threads = 0;
  std::uint64_t in_words = 0;  // 32-bit words of the input buffer
  std::uint64_t out_words = 0;
  Traffic traffic;
  // Writes the expected output into `out`, which arrives filled with the poison word: elements the
  // kernel must not touch keep it, and are checked too.
  std::function<void(Span<const float> in, Span<float> out)> reference;
  // A chain of dependent dispatches (issue 33): the kernel runs this many times per repetition,
  // each step on the previous one's output (Launch::chain), once per submission mode (a lane
  // dimension of this test only); `reference` applies every step. 0: one dispatch.
  std::uint32_t chain_steps = 0;
};

// What the runner needs to execute and check one point, a built-in test's or a kernel pair's:
// the kernel (CUDA kernel name == SPIR-V module name; a sequence's first), the traffic under the
// sector model (a built-in test's; a pair has none) and the kernel model.
struct Plan {
  std::string kernel;
  Traffic traffic;
  // The kernel model the runner runs (kernel_model.h): its buffers, scalars, launch rule, steps
  // and check. Every plan has one: make_plan() makes a built-in test's from its BuiltinPlan
  // (buffers in and out, the params block as scalars, checked against `reference`), the pair
  // loader a pair's from its declaration. The runner's phases ask the functions below.
  std::shared_ptr<const KernelModel> model;
  const KernelModel& kernel_model() const;  // `model`; an Error where there is none

  // What the runner asks of a point, a built-in test's or a pair's alike (plan.cpp):
  // The launch at `block`; a pair's is its declared threads or grid (UsageError naming the file
  // and field past the limits).
  Geometry geometry(std::uint32_t block, const DeviceLimits& lim) const;
  // Work, sizes and grids against the limits at every block size it runs (block_sizes), before
  // anything is allocated; UsageError naming the test at n (a pair: its file and field).
  void check_limits(const std::string& test, std::uint32_t n,
                    const std::vector<std::uint32_t>& run_blocks, const DeviceLimits& lim) const;
  std::uint64_t device_bytes() const;  // what one lane allocates on the device
  // The modules a backend of `api` must have: the kernel, a sequence's step kernels; none where
  // the API's side was not built (its rows say so).
  std::vector<std::string> required_kernels(Api api) const;
  // The block sizes it runs: its own where it declares them, else the run's.
  std::vector<std::uint32_t> block_sizes(const std::vector<std::uint32_t>& run_blocks) const;
  // At the run's size n: a CPU reference's host arrays and 32-bit indices within the limits
  // (check_plan; UsageError naming the test at n); a declaration, which runs at its own size,
  // is checked by check_limits.
  void check_at_size(const std::string& test, std::uint32_t n, const DeviceLimits& lim) const;
  // Each lane checked against a CPU reference (CheckBy::cpu_reference), else by the point's lanes.
  // Asked only by plan.cpp and the output checkers (check/output_checker.h), which the runner
  // asks instead (tests/house_check.py).
  bool has_cpu_reference() const;
  // A sequence of kernels (a multi-step pair): a lane per submission mode it runs in.
  bool is_sequence() const;
  // Its own problem size where it does not run at the run's n (a pair's); nullopt: the run's.
  std::optional<OwnSize> own_size() const;
  // A pair's declared buffer contents for `seed`; empty without declared contents.
  ModelContents declared_contents(std::uint64_t seed) const;
  // What a row at `geom` reports of the work: n, threads launched, useful and moved bytes (a
  // built-in test's from its sector model; a pair's from its declaration: useful = moved).
  void describe_row(const Geometry& geom, ResultRow& row) const;
  // Whether the row's label names n: a built-in test where the run or the test has several sizes
  // (`run_sized`, the test's own `test_sizes`), a pair where it runs at several (--n).
  bool n_in_label(bool run_sized, std::size_t test_sizes) const;
  // What the API's side says of itself where it cannot run (a pair's "compiled for sm_90 by
  // NVRTC ..."; "" for a built-in test), and whether it has a kernel to launch there at all.
  std::string side_note(Api api) const;
  bool side_built(Api api) const;
};

// A built-in test's Plan at `pt`: its kernel, traffic and kernel model.
Plan make_plan(const BuiltinPlan& b, const Point& pt);

// One planned point at the run's size against `lim` (UsageError naming the test, n and the
// limit): some work to do (threads, buffers), element counts within 32-bit indices, each buffer
// within lim.max_buffer, and the host memory of host_bytes_of() within lim.max_host. Every run,
// `cuvk trace` and the early inputs check each point so before allocating anything (the runner's
// check_plan, which reads the host's memory limit).
constexpr std::uint64_t kMaxIndexWords = std::uint64_t{1} << 32;  // kernels index with uint32
void check_plan_sizes(const std::string& test, std::uint32_t n, const Plan& plan,
                      const DeviceLimits& lim);
std::uint64_t host_bytes_of(const Plan& plan);  // the host memory one point takes, at most

// The run's n and how it was chosen, for the head and settings.n: the built-in tests' (`n`,
// `rule`); in a run of pairs only (`any_builtin` false) that all run at one n, the pairs' n and
// rule; other pairs' sizes are added to the rule ("...; pairs: saxpy at 1048576 (...)").
std::pair<std::uint32_t, std::string> run_n(
    std::uint32_t n, const std::string& rule, bool any_builtin,
    const std::vector<std::pair<std::string, OwnSize>>& pairs);
// The size the rows ran at and its rule, for the head and settings.n: the run's (`n`, `n_rule`)
// where any built-in test ran, else the pairs' own (run_n); `plans` are each point's test and plan.
std::pair<std::uint32_t, std::string> rows_size(
    const std::vector<std::pair<std::string, const Plan*>>& plans, std::uint32_t n,
    const std::string& n_rule);

struct TestCase {
  std::string name;
  std::string description;
  std::vector<std::string> layouts;   // empty: no layout axis
  std::vector<std::string> variants;  // at least one ("scalar"; "engine": the API's copy command)
  std::vector<std::string> sweeps;    // axes (axes.h) this test sweeps; empty: none
  // A built-in test's point as its plan_* describes it (catalogue.cpp); empty for a pair.
  std::function<BuiltinPlan(const Point&)> builtin{};
  // The point's Plan, as the runner runs it: a built-in test's make_plan(builtin(point)) (the
  // catalogue sets it), a pair's from its declaration (host/app/pair_tests.cpp).
  std::function<Plan(const Point&)> plan{};
  // Problem sizes the test runs at when --n is not given (empty: the run's n), on a GPU and on a
  // CPU device (lavapipe, where each step costs the host's cores).
  std::vector<std::uint32_t> sizes{}, cpu_sizes{};
  // A kernel pair's: its sizes above are the ones it runs at with or without --n (the run's
  // sizes within those the pair declares: prepare_pairs), never the run's own.
  bool sizes_fixed = false;
  // Selected only where named (--tests chain), never by default or by "all".
  bool named_only = false;
};

// The chain test's step on one element's bits (params.h CUVK_CHAIN_*), and `steps` steps of it.
std::uint32_t chain_word(std::uint32_t bits);
void chain_reference(Span<const float> in, Span<float> out, std::uint32_t steps);
constexpr std::uint32_t kChainSteps = 64;  // K, the chain test's dependent dispatches

// Kernels with a job in every run, declared here so that the runner names none of them.
struct SuiteKernels {
  // The bandwidth ceiling: "% of ceiling" is each row's moved GB/s over this point's (same API,
  // binding and block size).
  std::string ceiling_test = "copy", ceiling_variant = "vec4";
  // The tiny launch whose host-side cost (launch, submit, round trip) is sampled.
  std::string host_cost_kernel = "copy";
  // Reads a scratch buffer larger than L2 between timed repetitions, and is the clock-settling
  // work; it stores only if a float4 of the scratch sums to the sentinel in params.aux.
  std::string l2_flush_kernel = "l2_flush";
  // The test whose runs open a queue on every Vulkan queue family that can copy
  // (BackendOptions::copy_queues); without it the copy engine runs on the compute queue only.
  std::string copy_queues_test = "copy_engine";
};
const SuiteKernels& suite_kernels();

const std::vector<TestCase>& catalogue();
const TestCase* find_test(const std::string& name);  // built-in or registered pair
// User kernel pairs registered for this process (`cuvk run --pair`): catalogue entries of their
// own kind, found by find_test. Throws UsageError when the name is taken.
void register_pair_test(TestCase test);
// Forgets every registered pair test: a second run in one process (`cuvk explain`'s experiment
// run of a pair) registers the pairs of its --pair files again.
void unregister_pair_tests();

// Kernel name of a point: test[_layout][_variant], the variant omitted when "scalar".
std::string kernel_name(const std::string& test, const std::string& layout,
                        const std::string& variant);

// The points of `t` at size n: layouts x variants x the product of its swept axes' values
// (`axis_values` by axis name; a missing axis sweeps its defaults), filtered by `layouts` and
// `variants` (empty: all).
std::vector<Point> points_of(const TestCase& t, std::uint32_t n,
                             const std::map<std::string, std::vector<std::uint32_t>>& axis_values,
                             const std::vector<std::string>& layouts,
                             const std::vector<std::string>& variants);

// Every kernel a catalogue entry can ask for, and the suite kernels (the start-up consistency
// check).
std::vector<std::string> catalogue_kernels();

// Kernels in `required` missing from `available`; empty when all are there.
std::vector<std::string> missing_kernels(const std::vector<std::string>& required,
                                         const std::vector<std::string>& available);

constexpr std::uint32_t kPoisonWord = 0xFFC0DEADu;  // a NaN: never produced from the inputs

}  // namespace cuvk
