// The timing driver's logic against a fake backend: bad sizes, out of memory, a kernel that
// writes nothing, a device lost in the middle of a run, an unavailable API.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include "catalogue.h"
#include "cli.h"
#include "cmd_run.h"
#include "error.h"
#include "host_data.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "nvml.h"
#include "parity.h"
#include "runner.h"

using namespace cuvk;

namespace {

class HostBuffer final : public DeviceBuffer {
 public:
  explicit HostBuffer(std::size_t bytes) : DeviceBuffer(bytes), data(bytes / 4 + 1) {}
  std::vector<std::uint32_t> data;
};

// Runs nothing: outputs keep their poison, so verification must fail. Knobs for faults.
class FakeBackend final : public Backend {
 public:
  FakeBackend() {
    info_.api = Api::vulkan;
    info_.name = "fake";
    info_.is_cpu = true;  // a small flush scratch
    info_.max_buffer_bytes = 1ull << 30;
    info_.max_block_size = 1024;
    info_.max_grid_x = 65535;
    info_.max_grid_y = 65535;
    info_.timer = {1.0, 64, "fake ticks"};
  }
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    std::memcpy(static_cast<HostBuffer&>(dst).data.data(), src, bytes);
  }
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    std::memcpy(dst, static_cast<const HostBuffer&>(src).data.data(), bytes);
  }
  void fill(DeviceBuffer& dst, std::uint32_t word) override {
    auto& d = static_cast<HostBuffer&>(dst).data;
    std::fill(d.begin(), d.end(), word);
  }
  std::uint64_t free_memory_bytes() const override { return free_bytes; }
  std::vector<std::string> kernels() const override {
    auto k = catalogue_kernels();
    k.emplace_back(kCopyEngine);
    return k;
  }
  std::vector<QueueFamily> copy_queue_families() const override { return families; }
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override {
    launches.push_back({launch.kernel, launch.queue_family, opt.before_each != nullptr});
    if (launch.kernel == suite_kernels().l2_flush_kernel)  // clock settling
      return std::vector<double>(static_cast<std::size_t>(opt.reps), flush_ms);
    if (launch.params.n == 0) {  // the calibration's empty dispatch
      empty_dispatches += opt.reps;
      std::vector<double> t(static_cast<std::size_t>(opt.reps), empty_ms);
      for (std::size_t i = 0; i < t.size(); ++i) t[i] += (i % 2) * 0.0005;  // 0.5 us apart
      return t;
    }
    if (interrupted()) ++calls_after_interrupt;
    batch_sizes.push_back(opt.reps);
    if (++calls == interrupt_at_call) raise_interrupt_for_testing(SIGTERM);
    if (sleep_ms_per_rep > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(sleep_ms_per_rep * opt.reps));
    if (launch.kernel == lost_on) throw Error("vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
    if (launch.kernel == copies_input || launch.kernel == also_copies) {
      const auto& in = static_cast<const HostBuffer*>(launch.in)->data;
      auto& out = static_cast<HostBuffer*>(launch.out)->data;
      std::copy_n(in.begin(), std::min(in.size(), out.size()), out.begin());
      for (std::uint64_t i : corrupt) out[i] ^= 1u;  // the element's lowest bit
    }
    if (launch.chain.steps > 0) run_chain(launch);
    std::vector<double> times(static_cast<std::size_t>(opt.reps) - (short_times ? 1 : 0), 1.0);
    if (alternate_times)  // half the samples 1 ms, half 3 ms, across calls
      for (double& t : times) t = (samples_given++ % 2) ? 3.0 : 1.0;
    return times;
  }
  HostCostSamples host_cost(const Launch&, int) override { return {{1.0}, {1.0}, {2.0}}; }
  std::string submission_unsupported(Submission s) const override {
    return s == unsupported_submission ? "not here" : "";
  }
  // A chain's steps on the host, as a backend runs them (chain_step), skipping one if asked.
  void run_chain(const Launch& launch) {
    submissions.push_back(launch.chain.submission);
    for (std::uint32_t k = 0; k < launch.chain.steps; ++k) {
      if (static_cast<int>(k) == skip_chain_step) continue;
      const Launch step = chain_step(launch, k);
      const auto& in = static_cast<const HostBuffer*>(step.in)->data;
      auto& out = static_cast<HostBuffer*>(step.out)->data;
      for (std::size_t i = 0; i < launch.params.n; ++i) out[i] = chain_word(in[i]);
    }
  }
  std::vector<std::pair<std::string, double>> startup_ms() const override { return {}; }

  void set_api(Api a) { info_.api = a; }  // issue 21: a CUDA lane beside a Vulkan one
  void set_l2_bytes(std::uint64_t b) { info_.l2_bytes = b; }
  void set_gpu() {  // a GPU: its output checked beside its measuring (a 3 MiB flush scratch)
    info_.is_cpu = false;
    info_.l2_bytes = 1u << 20;
  }
  void set_bus_bits(std::uint32_t b) { info_.memory_bus_bits = b; }
  void set_max_buffer_bytes(std::uint64_t b) { info_.max_buffer_bytes = b; }

  std::uint64_t free_bytes = 1ull << 40;
  std::string lost_on, copies_input, also_copies;
  std::vector<std::uint64_t> corrupt;  // with copies_input: these output elements come out wrong
  bool alternate_times = false;
  std::uint64_t samples_given = 0;
  double flush_ms = 1.0;          // GPU time of each clock-settling launch
  double empty_ms = 0.01;         // GPU time of an empty dispatch (every other one 0.5 us more)
  int empty_dispatches = 0;       // launches with n = 0 (the calibration's)
  int calls = 0;                  // run() calls, settling aside
  int interrupt_at_call = 0;      // raise SIGTERM's flag during this call (0: never)
  int calls_after_interrupt = 0;  // run() calls begun with the flag already raised
  double sleep_ms_per_rep = 0.0;  // wall time each repetition takes
  std::vector<int> batch_sizes;   // opt.reps of every call, settling aside
  bool short_times = false;       // return one time fewer than asked (a broken backend)
  std::vector<QueueFamily> families;  // copy_queue_families
  int skip_chain_step = -1;           // a chain step this backend leaves out (-1: none)
  std::optional<Submission> unsupported_submission;
  std::vector<Submission> submissions;  // of every chain run
  struct Seen {
    std::string kernel;
    std::int32_t queue_family;
    bool flushed;
  };
  std::vector<Seen> launches;

 private:
  DeviceInfo info_;
};

RunConfig config(std::vector<std::string> tests) {
  RunConfig cfg;
  cfg.tests = std::move(tests);
  cfg.apis = {Api::vulkan};
  cfg.n = 1024;
  cfg.reps = 5;
  cfg.warmup = 0;
  cfg.settle_ms = 0.0;
  cfg.host_cost_samples = 2;
  cfg.calibration_samples = 0;  // its launches would count among the rows' (RunnerCalibration)
  cfg.axis_values["offset"] = {0, 1};
  cfg.axis_values["stride"] = {1, 2};
  return cfg;
}

// Rows a run of `cfg` must give per API: its points, derived from the catalogue, not the runner.
std::size_t points(const RunConfig& cfg) {
  std::size_t n = 0;
  for (const std::string& t : cfg.tests)
    n += points_of(*find_test(t), cfg.n, cfg.axis_values, cfg.layouts, cfg.variants).size();
  return n;
}

RunOutcome run(FakeBackend& fake, const RunConfig& cfg) {
  BackendSet set;
  set.backends[Api::vulkan] = &fake;
  return run_suite(cfg, set);
}

}  // namespace

TEST(Runner, KernelThatWritesNothingFailsVerificationWithCountAndIndex) {
  FakeBackend fake;
  const RunOutcome out = run(fake, config({"read_x"}));
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.mismatches, 1024u);
    ASSERT_TRUE(r.first_bad_index.has_value());
    EXPECT_EQ(*r.first_bad_index, 0u);
    EXPECT_NE(r.reason.find("1024 of 1024 elements wrong"), std::string::npos) << r.reason;
    EXPECT_EQ(r.time_ms.samples, 0u);  // a failed check is never a number
  }
}

// Issue 31's mutation audit: a built-in row stayed ok and verified while some, not all, of its
// elements mismatched. Wrong at random positions, the tail among them: the row fails, counts
// every wrong element, names the first, and the run exits 1.
TEST(Runner, APartlyWrongBuiltInOutputFailsTheRowAndTheExitCode) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.corrupt = {1023, 5, 700, 512, 64};
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  RunDocument doc;
  doc.outcome = run(fake, cfg);
  ASSERT_EQ(doc.outcome.rows.size(), 1u);
  const ResultRow& r = doc.outcome.rows[0];
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.checked, 1024u);
  EXPECT_EQ(r.mismatches, 5u);
  ASSERT_TRUE(r.first_bad_index.has_value());
  EXPECT_EQ(*r.first_bad_index, 5u);
  EXPECT_NE(r.reason.find("5 of 1024 elements wrong, first at index 5"), std::string::npos)
      << r.reason;
  EXPECT_EQ(run_exit_code(doc), 1);
  fake.corrupt = {1023};  // the last element alone
  doc.outcome = run(fake, cfg);
  ASSERT_EQ(doc.outcome.rows.size(), 1u);
  EXPECT_EQ(doc.outcome.rows[0].status, Status::failed);
  EXPECT_EQ(doc.outcome.rows[0].mismatches, 1u);
  EXPECT_EQ(run_exit_code(doc), 1);
}

TEST(Runner, ACorrectKernelIsVerifiedAndTimed) {
  FakeBackend fake;
  fake.copies_input = "copy";
  const RunOutcome out = run(fake, config({"copy"}));
  const auto ok = std::count_if(out.rows.begin(), out.rows.end(),
                                [](const ResultRow& r) { return r.status == Status::ok; });
  EXPECT_EQ(ok, 1);  // the fake executes only the kernel named "copy"; vec4 and engine fail
  EXPECT_EQ(std::count_if(out.rows.begin(), out.rows.end(),
                          [](const ResultRow& r) { return r.variant == "scalar"; }),
            1);
  for (const ResultRow& r : out.rows)
    if (r.variant == "scalar") {
      EXPECT_TRUE(r.verified);
      EXPECT_EQ(r.check, Check::verified);  // against the CPU's own result: independent
      EXPECT_EQ(r.checked_against, std::vector<std::string>{"cpu reference"});
      EXPECT_EQ(r.checked, 1024u);
      EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0);
      EXPECT_EQ(r.stop_reason, "converged");
    }
}

TEST(EarlyInputs, TakenOnlyForThePlanAndSeedTheyWereMadeFor) {
  RunConfig cfg = config({"copy"});
  const std::shared_ptr<EarlyInputs> early = start_first_inputs(cfg, false);
  ASSERT_NE(early, nullptr);
  const Plan copy_scalar = find_test("copy")->plan(make_point("", "scalar", cfg.n));
  EXPECT_FALSE(early->take_for(copy_scalar, cfg.seed).has_value());  // the ceiling is vec4
  const Point ceiling = make_point("", suite_kernels().ceiling_variant, cfg.n);
  const Plan first = find_test("copy")->plan(ceiling);
  EXPECT_FALSE(early->take_for(first, cfg.seed + 1).has_value());
  std::optional<std::future<Inputs>> taken = early->take_for(first, cfg.seed);
  ASSERT_TRUE(taken.has_value());
  EXPECT_FALSE(early->take_for(first, cfg.seed).has_value());  // once
  const Inputs got = taken->get();
  const Inputs want = prepare_inputs(first, cfg.seed, 0);
  EXPECT_TRUE(std::equal(got.input.begin(), got.input.end(), want.input.begin(), want.input.end()));
  EXPECT_EQ(hash_output(got.expected.data(), got.expected.size() * 4), want.expected_hash.get());
  // A configuration that does not plan starts nothing: run_suite gives the reason.
  cfg.tests = {"no_such_test"};
  EXPECT_EQ(start_first_inputs(cfg, false), nullptr);
}

TEST(EarlyInputs, ARunWithThemMeasuresWhatARunWithoutThemDoes) {
  FakeBackend with, without;
  with.copies_input = without.copies_input = "copy_vec4";
  RunConfig cfg = config({"copy"});
  const RunOutcome plain = run(without, cfg);
  cfg.first_inputs = start_first_inputs(cfg, false);  // the fake is a CPU device
  const RunOutcome early = run(with, cfg);
  ASSERT_EQ(early.rows.size(), plain.rows.size());
  ASSERT_EQ(plain.rows.size(), points(cfg));
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    EXPECT_EQ(early.rows[i].status, plain.rows[i].status) << i;
    EXPECT_EQ(early.rows[i].output_hash, plain.rows[i].output_hash) << i;
  }
  EXPECT_EQ(early.rows[0].variant, "vec4");
  EXPECT_TRUE(early.rows[0].verified);
  const Plan first = find_test("copy")->plan(make_point("", "vec4", cfg.n));
  EXPECT_FALSE(cfg.first_inputs->take_for(first, cfg.seed))
      << "the run did not take the early inputs";
}

TEST(Runner, DeviceLostInOneRowLeavesTheOthersRunning) {
  FakeBackend fake;
  fake.lost_on = "read_offset";
  fake.copies_input = "stride";
  const RunOutcome out = run(fake, config({"read_offset", "stride"}));
  std::size_t lost = 0, stride_1 = 0;
  for (const ResultRow& r : out.rows) {
    if (r.test == "read_offset") {
      ++lost;
      EXPECT_EQ(r.status, Status::failed);
      EXPECT_NE(r.reason.find("VK_ERROR_DEVICE_LOST"), std::string::npos);
    } else if (r.axes.get("stride") == 1) {
      ++stride_1;
      EXPECT_EQ(r.status, Status::ok) << r.reason;
    }
  }
  EXPECT_EQ(lost, points(config({"read_offset"})));  // offsets 0 and 1: every row, none lost
  EXPECT_EQ(stride_1, 1u);                           // the one stride-1 point ran on
  EXPECT_EQ(out.rows.size(), points(config({"read_offset", "stride"})));
}

TEST(Runner, OutOfMemoryIsRefusedBeforeAllocatingWithBytesNeededAndFree) {
  FakeBackend fake;
  fake.free_bytes = 1000;
  try {
    run(fake, config({"copy"}));
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("1000 bytes are free"), std::string::npos) << m;
  }
}

// The index check itself, not the buffer cap: the fake allows buffers far beyond 2^32 floats, so
// only the 32-bit index check can refuse n + offset = 4.4e9 > 2^32 - 1.
TEST(Runner, SizesThatOverflow32BitIndicesAreRefused) {
  FakeBackend fake;
  fake.set_max_buffer_bytes(std::uint64_t{1} << 40);  // 1 TiB: 2^38 floats
  RunConfig cfg = config({"read_offset"});
  cfg.n = 4000000000u;
  cfg.axis_values["offset"] = {400000000u};
  try {
    run(fake, cfg);
    FAIL() << "n + offset beyond 2^32 ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("4400000000 elements overflow 32-bit indices"),
              std::string::npos)
        << e.what();
  }
  cfg.axis_values["offset"] = {294967295u};  // n + offset = 2^32 - 1: the largest that fits
  cfg.n = 4000000000u;
  fake.free_bytes = 0;  // refused later, for memory, past the index check
  try {
    run(fake, cfg);
    FAIL() << "expected the memory check";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
  }
}

TEST(Runner, BuffersLargerThanTheDeviceAllowsAreRefused) {
  FakeBackend fake;
  RunConfig cfg = config({"read_x"});
  cfg.n = 1u << 28;  // 4 GiB of particles > the fake's 1 GiB buffers
  EXPECT_THROW(run(fake, cfg), UsageError);
}

TEST(Runner, BadRepetitionsAndBlockSizesAreRefused) {
  FakeBackend fake;
  RunConfig cfg = config({"copy"});
  cfg.reps = 0;
  EXPECT_THROW(run(fake, cfg), UsageError);
  cfg = config({"copy"});
  cfg.block_sizes = {100};
  EXPECT_THROW(run(fake, cfg), UsageError);
  cfg.block_sizes = {2048};  // above the device's 1024
  EXPECT_THROW(run(fake, cfg), UsageError);
}

TEST(Runner, UnavailableApiRowsCarryTheReason) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.apis = {Api::cuda, Api::vulkan};
  BackendSet set;
  set.backends[Api::vulkan] = &fake;
  set.reasons[Api::cuda] = "no CUDA driver found";
  const RunOutcome out = run_suite(cfg, set);
  std::size_t cuda_rows = 0;
  for (const ResultRow& r : out.rows)
    if (r.api == Api::cuda) {
      ++cuda_rows;
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_EQ(r.reason, "no CUDA driver found");
    }
  EXPECT_EQ(cuda_rows, points(cfg));  // one per point, as on Vulkan
}

// Issue 20, found on the H100: a pair whose CUDA side was not compiled (no NVRTC) on a machine
// with a CUDA GPU. The CUDA backend is open but holds no kernel of the pair: its rows say why
// (the note), the run goes on, and nothing is launched for that side.
TEST(Runner, APairSideThatWasNotBuiltIsUnavailableWhereItsDeviceIsOpen) {
  FakeBackend cuda;
  cuda.set_api(Api::cuda);
  TestCase t;
  t.name = "unbuilt_pair";
  t.description = "a pair without its CUDA side";
  t.variants = {"scalar"};
  t.plan = [](const Point&) {
    Plan plan;
    plan.kernel = "pair:unbuilt_pair";  // not in cuda.kernels()
    auto u = std::make_shared<UserPlan>();
    u->file = "unbuilt.toml";
    u->n = 1024;
    UserBuffer out;
    out.name = "out";
    out.element = UserElement::u32;
    out.count = 1024;
    out.output = out.poisoned = true;
    u->buffers = {out};
    u->notes[Api::cuda] = "not compiled (NVRTC unavailable: none here)";
    u->not_built[Api::cuda] = true;
    u->launch = [](std::uint32_t) { return UserLaunch{1024, std::nullopt, 0, 4096}; };
    u->contents = [](std::uint64_t) { return UserContents{{{}}, {{}}}; };
    plan.user = std::move(u);
    return plan;
  };
  register_pair_test(std::move(t));
  RunConfig cfg = config({"unbuilt_pair"});
  cfg.apis = {Api::cuda};
  cfg.block_sizes = {256};
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  const RunOutcome out = run_suite(cfg, set);  // before the fix: "cuda backend lacks kernels"
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::unavailable);
  EXPECT_EQ(out.rows[0].reason,
            "not compiled (NVRTC unavailable: none here), not run: no cuda kernel to launch");
  for (const auto& seen : cuda.launches) EXPECT_NE(seen.kernel, "pair:unbuilt_pair");
}

// Issue 19: BackendSet keeps one backend per API, looked up by the lane's API.
TEST(Runner, EachApiRunsOnTheBackendKeyedByIt) {
  FakeBackend cuda, vulkan;
  cuda.set_api(Api::cuda);
  cuda.copies_input = vulkan.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};  // the kernel the fakes run ("copy"); vec4 and engine would fail
  cfg.apis = {Api::vulkan, Api::cuda};
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  set.backends[Api::vulkan] = &vulkan;
  const RunOutcome out = run_suite(cfg, set);
  EXPECT_EQ(cuda.batch_sizes.empty(), false);
  EXPECT_EQ(vulkan.batch_sizes.empty(), false);
  std::size_t cuda_rows = 0, vulkan_rows = 0;
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::ok) << api_name(r.api) << ": " << r.reason;
    ++(r.api == Api::cuda ? cuda_rows : vulkan_rows);
  }
  EXPECT_EQ(cuda_rows, points(cfg));
  EXPECT_EQ(vulkan_rows, points(cfg));
}

TEST(Runner, AnInterruptStopsAtTheNextMeasurementAndKeepsWhatCompleted) {
  FakeBackend fake;
  fake.copies_input = "stride";
  install_interrupt_handlers();
  raise_interrupt_for_testing(2);
  const RunOutcome out = run(fake, config({"stride"}));
  EXPECT_TRUE(out.interrupted);
  EXPECT_TRUE(out.rows.empty());
  install_interrupt_handlers();  // clears the flag for the other tests
}

TEST(Runner, LayoutAndVariantFiltersSelectPoints) {
  FakeBackend fake;
  RunConfig cfg = config({"read_x", "copy"});
  cfg.layouts = {"soa"};
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].kernel, "read_x_soa");
  EXPECT_EQ(out.rows[1].kernel, "copy");
}

namespace {

// NVML stand-in: a clock that drops (or not) and throttle bits on demand.
class FakeClocks final : public ClockMonitor {
 public:
  ClockSample sample() override {
    ClockSample s;
    s.sm_mhz = drop ? 1980 - 15 * static_cast<std::uint32_t>(calls) : 1980;  // falls each sample
    s.mem_mhz = 2619;
    s.event_reasons = reasons;
    ++calls;
    return s;
  }
  std::uint32_t max_sm_mhz() const override { return 1980; }
  std::uint32_t max_mem_mhz() const override { return mem_mhz; }
  bool drop = false;
  std::uint64_t reasons = 0;
  std::uint32_t mem_mhz = 2619;
  int calls = 0;
};

RunOutcome run_with_clocks(FakeBackend& fake, const RunConfig& cfg, FakeClocks& clocks) {
  BackendSet set;
  set.backends[Api::vulkan] = &fake;
  set.clocks = &clocks;
  return run_suite(cfg, set);
}

std::vector<std::string> flags_of(const RunOutcome& out, const std::string& kernel) {
  for (const ResultRow& r : out.rows)
    if (r.kernel == kernel && r.status == Status::ok) return r.flags;
  return {"<no ok row>"};
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(RunnerFlags, SteadyClocksAndAConvergedMedianCarryNoFlags) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  const auto flags = flags_of(run_with_clocks(fake, config({"copy"}), clocks), "copy");
  EXPECT_TRUE(flags.empty()) << flags.front();
}

TEST(RunnerFlags, AClockThatFellDuringTheRowIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  clocks.drop = true;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  EXPECT_TRUE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "clock_below_start"));
}

TEST(RunnerFlags, ThrottleReasonsAreFlaggedButIdleIsNot) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  clocks.reasons = 0x1;  // gpu_idle: not a throttle
  EXPECT_FALSE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "throttled"));
  clocks.reasons = kNvmlSwPowerCap;
  EXPECT_TRUE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "throttled"));
}

TEST(RunnerFlags, BandwidthAboveTheDramPeakIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.set_bus_bits(8);  // a 1-byte bus: the fake's 1 ms per 8 KB copy is far above its "peak"
  FakeClocks clocks;
  clocks.mem_mhz = 1;    // peak = 2 * 1 MHz * 1 byte = 0.002 GB/s
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run_with_clocks(fake, cfg, clocks);
  ASSERT_TRUE(out.dram_peak_gbps.has_value());
  EXPECT_NEAR(*out.dram_peak_gbps, 0.002, 1e-12);
  EXPECT_TRUE(has(flags_of(out, "copy"), "above_dram_peak"));
}

TEST(RunnerFlags, WarmL2WithDataThatFitsIsCacheResident) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.set_l2_bytes(1 << 20);  // 1 MiB L2; the copy moves 8 KiB
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.l2 = L2Mode::warm;
  EXPECT_TRUE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
  cfg.l2 = L2Mode::cold;  // flushed: the same row is DRAM traffic
  EXPECT_FALSE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
  fake.set_l2_bytes(4096);  // warm, but the data does not fit
  cfg.l2 = L2Mode::warm;
  EXPECT_FALSE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
}

TEST(RunnerFlags, AMedianThatDidNotConvergeIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.alternate_times = true;  // 1 ms, 3 ms, 1 ms, ...: the median's CI stays wide
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.max_time_s = 0.01;
  const RunOutcome out = run(fake, cfg);
  EXPECT_TRUE(has(flags_of(out, "copy"), "ci_not_met"));
  ASSERT_EQ(std::count_if(out.rows.begin(), out.rows.end(),
                          [](const ResultRow& r) { return r.kernel == "copy"; }),
            1);
  for (const ResultRow& r : out.rows) {
    if (r.kernel == "copy") {
      EXPECT_EQ(r.stop_reason, "time_budget");
    }
  }
}

// ---- Issue 12, class 3: bounded work, prompt signals ----

namespace {

// Clears the interrupt flag however the test ends.
struct InterruptScope {
  InterruptScope() { install_interrupt_handlers(); }
  ~InterruptScope() { install_interrupt_handlers(); }
};

double wall_s(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(RunnerBounds, EveryBoundedValueIsRefusedNamingItsBound) {
  const std::vector<std::pair<std::function<void(RunConfig&)>, std::string>> cases = {
      {[](RunConfig& c) { c.reps = kMaxReps + 1; }, "--reps must be between 1 and 10000"},
      {[](RunConfig& c) { c.warmup = kMaxWarmup + 1; }, "--warmup must be between 0 and 10000"},
      {[](RunConfig& c) { c.warmup = -1; }, "--warmup must be between 0 and 10000"},
      {[](RunConfig& c) { c.settle_ms = 1e12; }, "--settle-ms must be between 0 and 60000"},
      {[](RunConfig& c) { c.settle_ms = std::nan(""); }, "--settle-ms must be between"},
      {[](RunConfig& c) { c.max_time_s = 1e9; }, "--max-time must be between 0 and 600 seconds"},
      {[](RunConfig& c) { c.max_time_s = std::numeric_limits<double>::infinity(); },
       "--max-time must be between 0 and 600"},
      {[](RunConfig& c) { c.target_ci = 1e-9; }, "--target-ci must be at least 0.01"},
      {[](RunConfig& c) { c.max_samples = kMaxSamples + 1; },
       "max_samples must be between 1 and 1000000"},
      {[](RunConfig& c) { c.host_cost_samples = kMaxHostCostSamples + 1; },
       "host_cost_samples must be between 0 and 100000"},
      {[](RunConfig& c) { c.block_sizes.assign(kMaxBlockSizes + 1, 256); },
       "--block-sizes: more than 64 values (at most 64)"},
      {[](RunConfig& c) { c.axis_values["offset"].assign(kMaxAxisValues + 1, 0); },
       "--offsets: more than 1024 values (at most 1024)"},
  };
  for (const auto& [change, message] : cases) {
    RunConfig cfg = config({"copy"});
    change(cfg);
    try {
      validate_config(cfg);
      ADD_FAILURE() << "accepted: " << message;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  RunConfig at_bounds = config({"copy"});  // the bounds themselves are allowed
  at_bounds.reps = kMaxReps;
  at_bounds.warmup = kMaxWarmup;
  at_bounds.settle_ms = kMaxSettleMs;
  at_bounds.max_time_s = kMaxTimeS;
  at_bounds.target_ci = kMinTargetCi;
  EXPECT_NO_THROW(validate_config(at_bounds));
}

// A driver whose timestamps read zero (or NaN) would make "settle until N ms of GPU time" endless.
TEST(RunnerSignals, SettlingEndsWhenTheGpuClockDoesNotAdvance) {
  for (double t : {0.0, std::nan(""), -1.0, std::numeric_limits<double>::infinity()}) {
    FakeBackend fake;
    fake.copies_input = "copy";
    fake.flush_ms = t;
    RunConfig cfg = config({"copy"});
    cfg.settle_ms = kMaxSettleMs;
    RunOutcome out;
    EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0) << t;  // liveness, not speed
    EXPECT_FALSE(out.interrupted);
    EXPECT_EQ(out.settle.at("vulkan"), 0.0) << t;
    EXPECT_FALSE(out.rows.empty());
  }
}

// Timestamps that advance, but barely: the wall-time cap (2 x --settle-ms + 0.5 s) ends it.
TEST(RunnerSignals, SettlingEndsWithinItsWallTimeCap) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.flush_ms = 1e-12;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.settle_ms = 100.0;  // cap 0.7 s of wall time
  RunOutcome out;
  EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0);
  EXPECT_LT(out.settle.at("vulkan"), 100.0);
}

TEST(RunnerSignals, AnInterruptWhileSettlingStopsIt) {
  InterruptScope scope;
  FakeBackend fake;
  RunConfig cfg = config({"copy"});
  cfg.settle_ms = kMaxSettleMs;
  raise_interrupt_for_testing(SIGTERM);
  RunOutcome out;
  EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(out.settle.at("vulkan"), 0.0);
  EXPECT_EQ(fake.calls, 0);  // no point started
}

// SIGTERM in the middle of a row: no further batch, the unfinished row is not reported, the rows
// completed before it are.
TEST(RunnerSignals, AnInterruptMidMeasureStopsBeforeTheNextBatch) {
  InterruptScope scope;
  FakeBackend fake;
  fake.copies_input = "stride";
  RunConfig cfg = config({"stride"});  // two points, stride 1 and 2
  cfg.max_time_s = kMaxTimeS;
  cfg.target_ci = kMinTargetCi;
  fake.alternate_times = true;  // never converges: only the time budget would end a row
  cfg.max_samples = 20;         // ... or the sample budget, for the first point
  const RunOutcome first = run(fake, cfg);
  ASSERT_EQ(first.rows.size(), 2u);
  const int calls_per_point = fake.calls / 2;
  ASSERT_GE(calls_per_point, 3);  // correctness run, then at least two batches

  FakeBackend fake2;
  fake2.copies_input = "stride";
  fake2.alternate_times = true;
  fake2.interrupt_at_call = calls_per_point + 3;  // the second point's second batch
  const RunOutcome out = run(fake2, cfg);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(fake2.calls_after_interrupt, 0);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::ok);
  EXPECT_EQ(out.rows[0].axes.get("stride"), 1u);
}

TEST(RunnerSignals, AnInterruptDuringWarmUpStopsIt) {
  InterruptScope scope;
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.interrupt_at_call = 2;  // the correctness run, then the first warm-up batch
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};  // the one copy the fake performs (the ceiling would run first)
  cfg.warmup = kMaxWarmup;
  const RunOutcome out = run(fake, cfg);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(fake.calls_after_interrupt, 0);
  EXPECT_TRUE(out.rows.empty());
}

// A long repetition gets short batches (about 0.25 s each), so a signal is seen promptly; the
// first call has one repetition, to learn how long one takes.
TEST(RunnerSignals, LongRepetitionsGoInShortBatches) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.sleep_ms_per_rep = 20.0;  // at most 12 repetitions fit in 0.25 s
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.reps = 30;
  cfg.warmup = 5;
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_GE(out.rows[0].time_ms.samples, 30u);
  ASSERT_GE(fake.batch_sizes.size(), 3u);
  EXPECT_EQ(fake.batch_sizes[1], 1);  // [0] is the correctness run
  for (int b : fake.batch_sizes) EXPECT_LE(b, 12);
}

// Quick repetitions keep whole batches of --reps.
TEST(RunnerSignals, QuickRepetitionsKeepWholeBatches) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.reps = 50;
  cfg.warmup = 10;
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].time_ms.samples, 50u);
  ASSERT_GE(fake.batch_sizes.size(), 3u);
  EXPECT_EQ(fake.batch_sizes[1], 1);  // [0] is the correctness run; then warm-up 1, 9
  // Far more than the 12 a 20 ms repetition gets (only a stall of ~0.2 s could shrink these).
  EXPECT_GT(*std::max_element(fake.batch_sizes.begin(), fake.batch_sizes.end()), 12);
}

TEST(RunnerSignals, ABackendReturningTooFewTimesFailsTheRow) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.short_times = true;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::failed);
  EXPECT_NE(out.rows[0].reason.find("returned 0 times for 1 repetitions"), std::string::npos)
      << out.rows[0].reason;
}

// Copy-engine points get a row per copy queue family: the own family's on the native lane, one
// lane per other family; a family without timestamps or queues is unavailable with the reason,
// and one that runs no kernels copies without the L2 flush (flagged). Other tests get no such rows.
TEST(RunnerQueues, EveryCopyFamilyGetsItsOwnEngineRow) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  fake.families = {{0, "graphics|compute|transfer", 16, 64, true, true},
                   {1, "transfer", 2, 64, false, false},
                   {2, "compute|transfer", 8, 0, true, false},
                   {3, "compute|transfer", 0, 64, true, false}};
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar", "engine"};
  cfg.axis_values["copy_mib"] = {1};
  const RunOutcome out = run(fake, cfg);
  std::map<std::uint32_t, int> engine_rows;  // per queue family, over copy/engine and copy_engine
  for (const ResultRow& r : out.rows) {
    SCOPED_TRACE(r.test + " " + r.variant);
    if (r.kernel != kCopyEngine) {
      EXPECT_FALSE(r.queue_family.has_value());
      EXPECT_TRUE(r.queue_flags.empty());
      continue;
    }
    ASSERT_TRUE(r.queue_family.has_value());
    ++engine_rows[*r.queue_family];
    EXPECT_EQ(r.binding, Binding::descriptor);
    EXPECT_EQ(r.queue_flags, fake.families[*r.queue_family].flags);
    const bool no_flush =
        std::find(r.flags.begin(), r.flags.end(), "l2_not_flushed") != r.flags.end();
    switch (*r.queue_family) {
      case 0:
      case 2:
      case 3:
        EXPECT_FALSE(no_flush);
        break;
      case 1:
        EXPECT_TRUE(no_flush);
        break;
    }
    if (*r.queue_family <= 1) {
      EXPECT_EQ(r.status, Status::ok) << r.reason;
      EXPECT_TRUE(r.verified);
    } else {
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_NE(r.reason.find(*r.queue_family == 2 ? "timestampValidBits = 0" : "no queues"),
                std::string::npos)
          << r.reason;
    }
  }
  EXPECT_EQ(engine_rows, (std::map<std::uint32_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
  // The own family runs on the backend's own queue (-1); the flush is skipped only on family 1.
  int own = 0, other = 0;
  for (const FakeBackend::Seen& s : fake.launches) {
    if (s.kernel != kCopyEngine) continue;
    EXPECT_TRUE(s.queue_family == -1 || s.queue_family == 1) << s.queue_family;
    (s.queue_family == -1 ? own : other) += 1;
    if (s.queue_family == 1) {
      EXPECT_FALSE(s.flushed);
    }
  }
  EXPECT_GT(own, 0);
  EXPECT_GT(other, 0);
}

// The streamed table sizes its columns before the first row from RunOutcome::planned (issue 36
// item 7): every row the run streams is planned, in order, with its variant label and lane.
TEST(RunnerQueues, ThePlanListsEveryRowTheRunStreams) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  fake.families = {{0, "graphics|compute|transfer|sparse", 16, 64, true, true},
                   {1, "transfer", 2, 64, false, false}};
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar", "engine"};
  cfg.axis_values["copy_mib"] = {1};
  cfg.block_sizes = {128, 256};
  std::vector<ResultRow> planned;
  cfg.on_start = [&planned](const RunOutcome& settings) { planned = settings.planned; };
  const RunOutcome out = run(fake, cfg);
  ASSERT_GE(out.rows.size(), 6u);
  ASSERT_EQ(planned.size(), out.rows.size());
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(same_point(planned[i], out.rows[i]));
    EXPECT_TRUE(same_lane(planned[i], out.rows[i]));
    EXPECT_EQ(variant_label(planned[i]), variant_label(out.rows[i]));
  }
}

// A lane is (API, binding, queue family): rows of one point on two queue families are two lanes.
TEST(RunnerQueues, SameLaneTellsQueueFamiliesApart) {
  ResultRow a;
  a.api = Api::vulkan;
  a.binding = Binding::descriptor;
  a.queue_family = 0;
  ResultRow b = a;
  EXPECT_TRUE(same_lane(a, b));
  b.queue_family = 1;
  EXPECT_FALSE(same_lane(a, b));
  EXPECT_TRUE(same_point(a, b));
}

// The copy-engine size sweep is off unless --copy-mibs gives sizes: the default run has no
// copy_engine rows, and selecting only copy_engine without sizes says which option turns it on.
TEST(RunnerQueues, CopyEngineSweepIsOffWithoutSizes) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar"};
  cfg.axis_values["copy_mib"] = {};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);  // copy scalar alone: copy_engine has no points
  for (const ResultRow& r : out.rows) EXPECT_EQ(r.test, "copy");
  cfg.tests = {"copy_engine"};
  try {
    run(fake, cfg);
    FAIL() << "an empty selection ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("copy_engine runs only with --copy-mibs"),
              std::string::npos)
        << e.what();
  }
}

// ---- issue 21 (counters): the order of the two instruments and the sampled batch ----

namespace {

// Counters that note which profiler holds the hardware and how often a row switched it, and
// give samples of a busy GPU: `busy` busy samples per batch (the first batch of each row gets
// `first_busy` where that is set).
class FakeCounters final : public CounterSession {
 public:
  std::string chip() const override { return "FAKE"; }
  std::vector<std::string> pm_names() const override { return std::vector<std::string>(kPmCount); }
  std::uint64_t interval_ns() const override { return 20000; }
  std::string kernel_unavailable() const override { return {}; }
  std::string sampling_unavailable() const override { return {}; }
  bool range_enabled() const override { return range_on; }
  std::vector<std::pair<std::string, double>> take_costs() override {
    return {{"switches", static_cast<double>(switches)}};
  }
  KernelCounters profile_kernel(const std::function<void()>& before,
                                const std::function<void()>& kernel, double ctas) override {
    if (!range_on) ++switches;
    range_on = true;
    calls.push_back("profile");
    if (fail_profiles > 0) {
      --fail_profiles;
      throw Error("cuptiRangeProfilerStart: the hardware is busy");
    }
    before();
    kernel();
    return decode_kernel({4, 1, 4, 1, 64, 64, ctas, 50, 100, 1000}, 4);
  }
  std::vector<PmSample> sample(const std::function<void()>& work) override {
    if (range_on) ++switches;
    range_on = false;
    calls.push_back("sample");
    work();
    const std::size_t n = first_of_row && first_busy ? first_busy : busy;
    first_of_row = !first_of_row && first_busy;  // the second batch is the row's last
    std::vector<PmSample> s(n + 1);
    for (std::size_t k = 0; k < s.size(); ++k) {
      s[k].start_ns = k * 20000;
      s[k].end_ns = s[k].start_ns + 20000;
      s[k].values.assign(kPmCount, 1.0);
      s[k].values[kPmGpcCycles] = 1000;
      s[k].values[kPmSmActiveCycles] = 900;
    }
    return s;
  }
  void dump(const std::string&, const std::string&, std::uint32_t, double) override {}

  bool range_on = false;
  int switches = 0;
  int fail_profiles = 0;            // the first this many profiles throw
  std::vector<std::string> calls;   // "profile" / "sample", in order
  std::size_t busy = 130, first_busy = 0;
  bool first_of_row = true;
};

RunOutcome run_with_counters(FakeBackend& cuda, FakeBackend& vulkan, FakeCounters& counters,
                             RunConfig cfg) {
  cuda.set_api(Api::cuda);
  cuda.copies_input = vulkan.copies_input = "copy";
  cfg.apis = {Api::cuda, Api::vulkan};
  cfg.counters = true;
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  set.backends[Api::vulkan] = &vulkan;
  set.counters = &counters;
  return run_suite(cfg, set);
}

// Every CUDA kernel launch is profiled before the first row, so the counters switch between the
// range profiler and the PM sampler twice in the run, not on every CUDA row (each switch
// re-enables a profiler: host time).
TEST(RunnerCounters, KernelsProfiledBeforeTheFirstRowSwitchTwice) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.block_sizes = {64, 128, 256, 512, 1024, 32};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  std::size_t cuda_rows = 0;
  for (const ResultRow& r : out.rows) {
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_TRUE(r.counters.has_value());
    EXPECT_TRUE(r.counters->sampled.has_value()) << r.counters->sampled_unavailable;
    if (r.api == Api::cuda) {
      ++cuda_rows;
      ASSERT_TRUE(r.counters->kernel.has_value()) << r.counters->kernel_unavailable;
      // The session is told the launch's CTAs (it refuses counts that are not the launch's).
      EXPECT_EQ(r.counters->kernel->ctas_launched,
                static_cast<double>(r.geometry.grid_x) * r.geometry.grid_y);
    }
  }
  ASSERT_EQ(cuda_rows, 6u);
  EXPECT_EQ(counters.switches, 2);  // twice per CUDA row: 12
  const std::vector<std::string> first(counters.calls.begin(), counters.calls.begin() + 6);
  EXPECT_EQ(first, std::vector<std::string>(6, "profile"));  // one per launch, before any row
  EXPECT_EQ(std::count(counters.calls.begin(), counters.calls.end(), "profile"), 6);
  // The session's costs reach the run's, beside the phase "counters".
  ASSERT_FALSE(out.counters_cost_s.empty());
  EXPECT_EQ(out.counters_cost_s.front().first, "switches");
  EXPECT_TRUE(std::any_of(out.phase_s.begin(), out.phase_s.end(),
                          [](const auto& p) { return p.first == "counters"; }));
}

// A launch the range profiler could not measure before the first row is measured with its row,
// the profiler the previous CUDA row left on first: about one switch per CUDA row, not two (the
// APIs take turns: c v | v c | c v ...).
TEST(RunnerCounters, KernelsNotProfiledFirstAreProfiledWithTheirRow) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  counters.fail_profiles = 6;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.block_sizes = {64, 128, 256, 512, 1024, 32};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  for (const ResultRow& r : out.rows)
    if (r.api == Api::cuda) {
      ASSERT_TRUE(r.counters.has_value());
      EXPECT_TRUE(r.counters->kernel.has_value()) << r.counters->kernel_unavailable;
    }
  EXPECT_EQ(std::count(counters.calls.begin(), counters.calls.end(), "profile"), 12);
  EXPECT_LE(counters.switches, 8);  // twice per CUDA row: 13
}

// A batch that gave fewer than 100 busy samples (a kernel faster without the flush than its
// timed median said) is sampled again, longer; one that gave enough is not.
TEST(RunnerCounters, TooFewBusySamplesSampleALongerBatchOnce) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  counters.first_busy = 60;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    ASSERT_TRUE(r.counters && r.counters->sampled) << r.reason;
    EXPECT_EQ(r.counters->sampled->busy_samples, 130u);
  }
  // Per row: the timed batches, then the first sampled batch, then one larger.
  const std::vector<int>& b = vulkan.batch_sizes;
  ASSERT_GE(b.size(), 2u);
  EXPECT_GT(b.back(), b[b.size() - 2]);
  EXPECT_EQ(b.back(), rebatch_dispatches(b[b.size() - 2], 60));
}

}  // namespace

// Issue 22: on a GPU each lane's output is checked on the host while the GPU measures. The check
// still decides: a wrong output fails its row and its timings are dropped, never reported.
TEST(RunnerCheckBesideMeasuring, AWrongOutputOnAGpuFailsAndIsNeverANumber) {
  FakeBackend fake;
  fake.set_gpu();
  const RunOutcome out = run(fake, config({"read_x"}));
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.mismatches, 1024u);
    EXPECT_NE(r.reason.find("1024 of 1024 elements wrong"), std::string::npos) << r.reason;
    EXPECT_EQ(r.time_ms.samples, 0u);
    EXPECT_TRUE(r.stop_reason.empty()) << r.stop_reason;
    EXPECT_TRUE(r.flags.empty());
  }
}

TEST(RunnerCheckBesideMeasuring, ARightOutputOnAGpuIsVerifiedTimedAndAccounted) {
  FakeBackend fake;
  fake.set_gpu();
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  const ResultRow& r = out.rows[0];
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.checked, 1024u);
  EXPECT_TRUE(r.output_hash.has_value());
  EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0);
  const auto named = [](const std::vector<std::pair<std::string, double>>& v, const char* name) {
    return std::any_of(v.begin(), v.end(), [name](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(named(out.background_s, "verify (beside measuring)"));
  EXPECT_TRUE(named(out.phase_s, "vulkan verify"));  // the wait for it after measuring
}

// What the first row waited for: the phases as they stood when it went out (a prefix of the run's
// phases, none larger than at the end), and the first point's inputs and registration beside the
// settling.
TEST(RunnerFirstRow, PhasesBeforeTheFirstRowAreRecorded) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.sleep_ms_per_rep = 0.2;
  RunConfig cfg = config({"copy", "read_x"});
  cfg.variants = {"scalar"};  // copy scalar first: the one kernel the fake runs
  cfg.settle_ms = 5.0;
  const RunOutcome out = run(fake, cfg);
  ASSERT_GT(out.rows.size(), 2u);
  ASSERT_FALSE(out.first_row_phase_s.empty());
  EXPECT_LT(out.first_row_phase_s.size(), out.phase_s.size() + 1);
  double first = 0.0, all = 0.0;
  for (std::size_t i = 0; i < out.first_row_phase_s.size(); ++i) {
    EXPECT_EQ(out.first_row_phase_s[i].first, out.phase_s[i].first);
    EXPECT_LE(out.first_row_phase_s[i].second, out.phase_s[i].second);
    first += out.first_row_phase_s[i].second;
  }
  for (const auto& p : out.phase_s) all += p.second;
  EXPECT_LT(first, all);  // later rows took time too
  const auto has = [](const std::vector<std::pair<std::string, double>>& v, const char* name) {
    return std::any_of(v.begin(), v.end(), [name](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(has(out.first_row_phase_s, "settle"));
  EXPECT_TRUE(has(out.first_row_phase_s, "vulkan measure"));
  EXPECT_TRUE(has(out.first_row_background_s, "first inputs (beside settling)"));
  EXPECT_TRUE(has(out.first_row_background_s, "vulkan register input (beside settling)"));
  EXPECT_TRUE(has(out.first_row_background_s, "vulkan register download (beside settling)"));
}

// Issue 36: the head's n (settings.n) is the n the rows ran at. A run of one pair: the pair's n
// and rule (it said "n = 1048576 (default for CPU devices)" while saxpy ran at 16M); with built-in
// tests too, the built-ins' n, the pairs' sizes said beside it.
TEST(Runner, TheHeadsNIsThePairsWhereOnlyPairsRun) {
  UserPlan saxpy, transpose;
  saxpy.n = 1u << 20;
  saxpy.n_rule = "saxpy.toml's n = 16777216 scaled down for CPU devices to 8 MiB of buffers";
  transpose.n = 1024;
  transpose.n_rule = "declared in transpose.toml";
  const auto one = cuvk::run_n(1u << 20, "default for CPU devices", false, {{"saxpy", &saxpy}});
  EXPECT_EQ(one.first, 1u << 20);
  EXPECT_EQ(one.second, saxpy.n_rule);
  saxpy.n = 16u << 20;
  saxpy.n_rule = "declared in saxpy.toml";
  const auto alone = cuvk::run_n(1u << 20, "default for CPU devices", false, {{"saxpy", &saxpy}});
  EXPECT_EQ(alone, std::make_pair(16u << 20, std::string("declared in saxpy.toml")));
  const auto mixed = cuvk::run_n(1u << 20, "default for CPU devices", true,
                                 {{"saxpy", &saxpy}, {"transpose", &transpose}});
  EXPECT_EQ(mixed.first, 1u << 20);
  EXPECT_EQ(mixed.second,
            "default for CPU devices; pairs: saxpy at 16777216 (declared in saxpy.toml), transpose "
            "at 1024 (declared in transpose.toml)");
  EXPECT_EQ(cuvk::run_n(64, "--n", true, {}), std::make_pair(64u, std::string("--n")));
}

// Issue 33: the chain test has one lane per submission mode of the API (Vulkan here), each chain
// verified against the K-step reference, its time the chain's span over K, and its host wall time
// per step measured; a mode the backend cannot run is unavailable with the reason.
TEST(RunnerChain, EveryVulkanModeIsARowVerifiedAndTimedPerStep) {
  FakeBackend fake;
  fake.unsupported_submission = Submission::wait_each;
  const RunOutcome out = run(fake, config({"chain"}));
  ASSERT_EQ(out.rows.size(), 4u);
  const std::vector<std::string> modes = {"recorded", "rerecorded", "submit-each", "wait-each"};
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    const ResultRow& r = out.rows[i];
    ASSERT_TRUE(r.submission.has_value());
    EXPECT_EQ(submission_name(*r.submission), modes[i]);
    EXPECT_EQ(r.n, 1024u);
    if (*r.submission == Submission::wait_each) {
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_EQ(r.reason, "not here");
      continue;
    }
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.verified);
    EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0 / kChainSteps);  // the fake's 1 ms span over K
    ASSERT_TRUE(r.host_us_per_step.has_value());
    EXPECT_GT(*r.host_us_per_step, 0.0);
    EXPECT_EQ(variant_label(r), "scalar " + modes[i]);
  }
  EXPECT_NE(std::find(fake.submissions.begin(), fake.submissions.end(), Submission::submit_each),
            fake.submissions.end());
}

// A chain that leaves out one step (any of them) fails verification on every element: the
// K-step reference is what is checked, not a single dispatch.
TEST(RunnerChain, ASkippedStepFailsTheRow) {
  for (int skip : {0, 31, static_cast<int>(kChainSteps) - 1}) {
    FakeBackend fake;
    fake.skip_chain_step = skip;
    const RunOutcome out = run(fake, config({"chain"}));
    ASSERT_EQ(out.rows.size(), 4u);
    for (const ResultRow& r : out.rows) {
      EXPECT_EQ(r.status, Status::failed) << skip;
      EXPECT_EQ(r.mismatches, 1024u) << skip;
    }
  }
}

// Without --n the chain runs at its own sizes (a CPU device: cpu_sizes); other tests' rows and
// lanes are untouched by the submission lanes.
TEST(RunnerChain, OwnSizesWithoutNAndNoModesOnOtherTests) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy", "chain"});
  cfg.variants = {"scalar"};
  cfg.n = 0;
  const RunOutcome out = run(fake, cfg);
  std::vector<std::uint32_t> chain_sizes;
  for (const ResultRow& r : out.rows) {
    if (r.test != "chain") {
      EXPECT_FALSE(r.submission.has_value());
      EXPECT_EQ(r.n, kDefaultCpuN);
      continue;
    }
    if (r.submission == Submission::recorded) chain_sizes.push_back(r.n);
  }
  EXPECT_EQ(chain_sizes, find_test("chain")->cpu_sizes);
}

TEST(RunnerChain, TheDefaultSelectionLeavesTheChainOut) {
  const std::vector<std::string> all = parse_tests({}), named = parse_tests({"chain"});
  EXPECT_EQ(std::find(all.begin(), all.end(), "chain"), all.end());
  EXPECT_EQ(named, std::vector<std::string>{"chain"});
  const std::vector<std::string> every = parse_tests({"all"});
  EXPECT_EQ(std::find(every.begin(), every.end(), "chain"), every.end());
}

// Parity pairs the modes that correspond (docs/MEASURING.md, "Chains"): graph with recorded,
// stream with rerecorded, wait-each with wait-each; pdl and submit-each have no counterpart.
TEST(RunnerChain, ParityPairsCorrespondingModes) {
  std::vector<ResultRow> rows;
  const auto add = [&rows](Api api, Submission s) {
    ResultRow r;
    r.test = "chain";
    r.variant = "scalar";
    r.n = 4096;
    r.block_size = 256;
    r.api = api;
    r.binding = native_binding(api);
    r.submission = s;
    r.status = Status::ok;
    r.time_ms.median = 1.0;
    rows.push_back(r);
  };
  for (Submission s :
       {Submission::stream, Submission::graph, Submission::pdl, Submission::wait_each})
    add(Api::cuda, s);
  for (Submission s : {Submission::recorded, Submission::rerecorded, Submission::submit_each,
                       Submission::wait_each})
    add(Api::vulkan, s);
  std::map<std::string, std::string> pairs;  // CUDA mode -> Vulkan mode ("-": none)
  for (const ApiPair& p : pair_apis(rows)) {
    const std::string c = p.cuda ? submission_name(*p.cuda->submission) : "-";
    const std::string v = p.vulkan ? submission_name(*p.vulkan->submission) : "-";
    EXPECT_TRUE(pairs.emplace(c == "-" ? "- " + v : c, v).second) << c << " " << v;
  }
  EXPECT_EQ(pairs["graph"], "recorded");
  EXPECT_EQ(pairs["stream"], "rerecorded");
  EXPECT_EQ(pairs["wait-each"], "wait-each");
  EXPECT_EQ(pairs["pdl"], "-");
  EXPECT_EQ(pairs["- submit-each"], "submit-each");
  EXPECT_EQ(pairs.size(), 5u);
}

// Issue 33: problem size is a point dimension. Every point runs at every size, next to each
// other, each verified at its own n; the label names n; "% ceiling" divides by the ceiling at the
// same n.
TEST(RunnerSizes, EveryPointRunsAtEverySizeVerifiedAtItsOwnN) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.also_copies = "copy_vec4";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar", "vec4"};
  cfg.sizes = {1024, 4096};
  const RunOutcome out = run(fake, cfg);
  EXPECT_EQ(out.sizes, cfg.sizes);
  ASSERT_EQ(out.rows.size(), 4u);
  const std::vector<std::pair<std::string, std::uint32_t>> order = {
      {"vec4", 1024}, {"vec4", 4096}, {"scalar", 1024}, {"scalar", 4096}};  // the ceiling first
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ResultRow& r = out.rows[i];
    EXPECT_EQ(r.variant, order[i].first);
    EXPECT_EQ(r.n, order[i].second);
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.checked, r.n);
    EXPECT_TRUE(r.n_in_label);
    EXPECT_EQ(point_label(r), r.n == 1024 ? "n=1k" : "n=4k");
    ASSERT_TRUE(r.pct_of_ceiling) << i;
    EXPECT_DOUBLE_EQ(*r.pct_of_ceiling, 100.0) << i;  // same bytes, same time, same n
  }
  EXPECT_EQ(out.planned.size(), 4u);
  // One size: labels as before.
  cfg.sizes = {};
  for (const ResultRow& r : run(fake, cfg).rows) EXPECT_EQ(point_label(r), "");
}

// Issue 33: each API's empty dispatch is timed before the first point, by run() as rows are, and
// a row below 10x its API's is flagged launch_bound.
TEST(RunnerCalibration, EmptyDispatchIsMeasuredAndSmallRowsAreLaunchBound) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.calibration_samples = 50;
  RunOutcome out = run(fake, cfg);
  EXPECT_EQ(fake.empty_dispatches, kCalibrationWarmup + 50);
  ASSERT_EQ(out.calibration.size(), 1u);
  const Calibration& c = out.calibration[0];
  EXPECT_EQ(c.api, Api::vulkan);
  EXPECT_EQ(c.empty_dispatch_ms.samples, 50u);
  EXPECT_NEAR(c.empty_dispatch_ms.median, 0.01025, 1e-9);  // half 0.0100, half 0.0105
  EXPECT_EQ(c.timer.valid_bits, 64u);
  EXPECT_NEAR(c.observed_step_ns, 500.0, 1e-6);
  ASSERT_EQ(out.rows.size(), 1u);
  const auto flagged = [](const ResultRow& r) {
    return std::count(r.flags.begin(), r.flags.end(), "launch_bound") == 1;
  };
  EXPECT_FALSE(flagged(out.rows[0]));  // 1 ms against 10 x 0.01025 ms
  fake.empty_ms = 0.2;                 // 1 ms is below 10 x 0.2 ms
  out = run(fake, cfg);
  EXPECT_TRUE(flagged(out.rows[0]));
  cfg.calibration_samples = 0;  // none measured: nothing flagged
  out = run(fake, cfg);
  EXPECT_TRUE(out.calibration.empty());
  EXPECT_FALSE(flagged(out.rows[0]));
}

TEST(RunnerCalibration, LaunchBoundAndTheTimerStepOnSyntheticData) {
  EXPECT_NEAR(smallest_step_ns({1.0, 1.0, 1.002, 1.0005}), 500.0, 1e-6);
  EXPECT_DOUBLE_EQ(smallest_step_ns({2.0, 2.0}), 0.0);
  Calibration cuda;
  cuda.api = Api::cuda;
  cuda.empty_dispatch_ms.median = 0.002;
  ResultRow r;
  r.api = Api::cuda;
  r.status = Status::ok;
  r.time_ms.median = 0.0199;
  EXPECT_TRUE(launch_bound(r, {cuda}));
  r.time_ms.median = 0.02;  // exactly 10x: not below
  EXPECT_FALSE(launch_bound(r, {cuda}));
  r.time_ms.median = 0.001;
  r.api = Api::vulkan;  // no Vulkan calibration: not judged
  EXPECT_FALSE(launch_bound(r, {cuda}));
  r.api = Api::cuda;
  r.status = Status::failed;
  EXPECT_FALSE(launch_bound(r, {cuda}));
}
