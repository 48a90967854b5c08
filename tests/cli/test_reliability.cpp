// Issue 23 (reliability, third round): the unit side of each class. The CLI side is in
// tests/cli/reliability.sh and the cli_error.* tests of the block in tests/CMakeLists.txt.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>

#include "catalogue.h"
#include "error.h"
#include "host_data.h"
#include "interrupt.h"
#include "json_check.h"
#include "numbers.h"
#include "printing.h"
#include "runner.h"
#include "standard_output.h"
#include "util.h"

namespace cuvk {
namespace {

// Class 3: ceil_div never wraps, so a size near 2^32 cannot become 0 threads.
TEST(Overflow, CeilDivDoesNotWrapAtTheTypesMaximum) {
  EXPECT_EQ(ceil_div<std::uint32_t>(4294967295u, 4u), 1073741824u);
  EXPECT_EQ(ceil_div<std::uint32_t>(65536u, 4294967295u), 1u);
  EXPECT_EQ(ceil_div<std::uint32_t>(4294967292u, 4u), 1073741823u);
  EXPECT_EQ(ceil_div<std::uint64_t>(std::numeric_limits<std::uint64_t>::max(), 2u),
            std::uint64_t{1} << 63);
  EXPECT_EQ(ceil_div<std::uint32_t>(0u, 7u), 0u);
}

// The one round_up (host/contract/numbers.h): a multiple of `to` at or above `v`, the
// quotient taken without the wrap of (v + to - 1) (a value that fits stays as it is).
TEST(Overflow, RoundUpDoesNotWrapAtTheTypesMaximum) {
  EXPECT_EQ(round_up<std::uint32_t>(4294967295u, 3u), 4294967295u);  // (v + 2) / 3 * 3 would be 0
  EXPECT_EQ(round_up<std::uint32_t>(4294967292u, 4u), 4294967292u);
  EXPECT_EQ(round_up<std::uint32_t>(13u, 8u), 16u);
  EXPECT_EQ(round_up<std::uint32_t>(16u, 8u), 16u);
  EXPECT_EQ(round_up<std::uint32_t>(0u, 8u), 0u);
  EXPECT_EQ(round_up<std::uint32_t>(13u, 0u), 13u);  // to 0: unchanged
  EXPECT_EQ(round_up<std::uint64_t>(std::uint64_t{1} << 40 | 1, 256u),
            (std::uint64_t{1} << 40) + 256);
}

TEST(Overflow, Vec4CopyAtTheLargestNPlansEveryElement) {
  const BuiltinPlan p = find_test("copy")->builtin(make_point("", "vec4", 4294967295u));
  EXPECT_EQ(p.params.n, 1073741824u);
  EXPECT_EQ(p.in_words, std::uint64_t{1} << 32);
}

TEST(Overflow, APointThatWouldDoNoWorkIsAUsageError) {
  const Point pt = make_point("", "scalar", 1024);
  BuiltinPlan p = find_test("copy")->builtin(pt);
  p.params.n = 0;
  EXPECT_THROW(check_plan("copy", 1024, make_plan(p, pt), 1u << 30), UsageError);
  EXPECT_THROW(launch_geometry(0, 256, 65535, 65535), UsageError);
  EXPECT_THROW(launch_geometry(256, 0, 65535, 65535), UsageError);
}

// Class 1: sizes checked against the device's buffer limit and the host's memory, by number,
// before anything is allocated.
TEST(Limits, BuffersBeyondTheDeviceAreRefusedNamingTheLimit) {
  const Plan p = find_test("copy")->plan(make_point("", "vec4", 4294967292u));
  try {
    check_plan("copy", 4294967292u, p, 134217728);
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a buffer of 17179869168 bytes; the device allows "
                                         "134217728"),
              std::string::npos)
        << e.what();
  }
}

TEST(Limits, HostMemoryIsCheckedBeforeAllocating) {
  std::string why;
  const std::uint64_t limit = host_memory_limit_bytes(&why);
  EXPECT_GT(limit, 0u);
  EXPECT_FALSE(why.empty());
  const Plan small = find_test("copy")->plan(make_point("", "scalar", 1024));
  EXPECT_NO_THROW(check_plan("copy", 1024, small, std::numeric_limits<std::uint64_t>::max()));
  EXPECT_EQ(host_bytes_of(small), 2 * (1024 + 2 * 1024) * 4u);  // two slots: in, expected, download
  // Without a buffer limit, 2^32 floats need 96 GiB of host memory: more than this test host
  // (or any CI runner) allows, so the host check must refuse it, naming host memory.
  const Plan big = find_test("copy")->plan(make_point("", "vec4", 4294967295u));
  if (host_bytes_of(big) <= limit) {  // a host with more than 96 GiB to give
    EXPECT_NO_THROW(check_plan("copy", 4294967295u, big, std::numeric_limits<std::uint64_t>::max()));
    return;
  }
  try {
    check_plan("copy", 4294967295u, big, std::numeric_limits<std::uint64_t>::max());
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes of host memory"), std::string::npos) << e.what();
  }
}

TEST(Limits, RunSizesAreCheckedForEveryPointOfTheSelection) {
  RunConfig cfg;
  cfg.tests = {"read_x", "copy"};
  EXPECT_NO_THROW(check_run_sizes(cfg, 1024, 1u << 20));
  EXPECT_THROW(check_run_sizes(cfg, 1u << 20, 1u << 20), UsageError);  // 4 MiB buffers
}

// Class 8: a non-zero exit without an `error:` line gets one saying what the code means.
TEST(ErrorLine, ANonZeroExitWithoutAnErrorLineGetsOne) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  {
    ErrorLineWatch watch;
    std::cerr << "note: something\n";
    EXPECT_EQ(watch.finish(3), 3);
  }
  {
    ErrorLineWatch watch;
    std::cerr << "error: the reason\n";
    EXPECT_EQ(watch.finish(2), 2);
  }
  {
    ErrorLineWatch watch;
    EXPECT_EQ(watch.finish(0), 0);
  }
  std::cerr.rdbuf(old);
  EXPECT_EQ(captured.str(), std::string("note: something\nerror: ") + exit_code_meaning(3) +
                                "\nerror: the reason\n");
}

// Class 12: one escaping rule: bidi controls and line separators are escaped like controls.
TEST(Escaping, BidiControlsAndLineSeparatorsAreEscaped) {
  EXPECT_EQ(printable("a\u202eb\u2028c\u2029d\u2066e\u200ff\u061cg"),
            "a\\u202eb\\u2028c\\u2029d\\u2066e\\u200ff\\u061cg");
  EXPECT_EQ(printable("wrote r\x1b[31m\n.json"), "wrote r\\x1b[31m\\n.json");
  EXPECT_EQ(printable("\u00e9t\u00e9 \u2014 \u4e2d"), "\u00e9t\u00e9 \u2014 \u4e2d");  // kept
}

// Class 6: a Markdown cell never splits: '|' is escaped.
TEST(Markdown, PipesInCellsAreEscaped) {
  EXPECT_EQ(md_cell("engine q0 (graphics|compute|transfer)"),
            "engine q0 (graphics\\|compute\\|transfer)");
  const std::string t = format_text_table({{"variant", "ms"}, {"a|b", "1.0"}}, true);
  EXPECT_NE(t.find("| a\\|b "), std::string::npos) << t;
}

// Class 5: no temporary outlives the process on a signal that can be caught. A child process
// registers a temporary file and a temporary folder with a file in it, as output_file.cpp and the
// plotter do, and gets the signal; the parent finds both gone and the child ended as the rule
// says: SIGINT/SIGTERM/SIGHUP with exit 128 + N, the others by the signal itself.
TEST(Temporaries, NoneOutlivesACatchableSignal) {
  const std::string base = ::testing::TempDir() + "cuvk_temporaries_" + std::to_string(getpid());
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE, SIGABRT, SIGXCPU}) {
    SCOPED_TRACE(sig);
    const std::string file = base + ".json.cuvk-x", folder = base + ".plot";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const rlimit no_core{0, 0};  // SIGQUIT, SIGABRT: no core file
      setrlimit(RLIMIT_CORE, &no_core);
      install_signal_handlers();
      std::ofstream(file) << "partial";
      mkdir(folder.c_str(), 0700);
      mkdir((folder + "/plotting").c_str(), 0700);
      std::ofstream(folder + "/plotting/plot.py") << "x";
      const TemporaryPath live_file(file), live_folder(folder, true);
      raise(sig);
      _exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    struct stat st {};
    EXPECT_NE(stat(file.c_str(), &st), 0) << file << " left";
    EXPECT_NE(stat(folder.c_str(), &st), 0) << folder << " left";
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      ASSERT_TRUE(WIFEXITED(status)) << status;
      EXPECT_EQ(WEXITSTATUS(status), interrupted_exit_code(sig));
    } else {
      ASSERT_TRUE(WIFSIGNALED(status)) << status;
      EXPECT_EQ(WTERMSIG(status), sig);
    }
    std::remove(file.c_str());
  }
}

// Class 5: beyond the file-size limit is a failed write, not a death by SIGXFSZ.
TEST(Temporaries, TheFileSizeLimitIsAFailedWrite) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_signal_handlers();
    raise(SIGXFSZ);
    _exit(7);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

}  // namespace
}  // namespace cuvk
