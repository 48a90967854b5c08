// What a run refuses or survives: a device lost in one row, out of memory, sizes that overflow
// 32-bit indices, buffers beyond the device, bad repetitions and block sizes, an unavailable API.
// (Split from tests/test_runner.cpp by concern; the fake backend:
// tests/unit/core/runner_fixture.h.)
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
#include "error.h"
#include "host_data.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "nvml.h"
#include "runner.h"
#include "runner_fixture.h"

using namespace cuvk;
using namespace cuvk::runner_test;

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
