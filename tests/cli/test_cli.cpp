#include <fcntl.h>
#include <gtest/gtest.h>

#include <csignal>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "interrupt.h"
#include "error.h"
#include "runner.h"

using cuvk::parse_count;
using cuvk::parse_uint_list;
using cuvk::UsageError;

namespace {
int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(CliParse, ListsAndRanges) {
  EXPECT_EQ(parse_uint_list("0,1,8", "x", 100), (std::vector<std::uint32_t>{0, 1, 8}));
  EXPECT_EQ(parse_uint_list("0-3", "x", 100), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_uint_list("0-32:16,7", "x", 100), (std::vector<std::uint32_t>{0, 16, 32, 7}));
  EXPECT_EQ(parse_uint_list("4294967295", "x", 100), (std::vector<std::uint32_t>{4294967295u}));
  EXPECT_EQ(parse_uint_list("4294967290-4294967295:4", "x", 100),
            (std::vector<std::uint32_t>{4294967290u, 4294967294u}));
}

// What cuvk writes, cuvk reads (issue 12, class 5): a value given twice is one point, so no run
// file holds duplicate rows that report/parity/--baseline would refuse.
TEST(CliParse, DuplicatesAreMergedAtParseTime) {
  EXPECT_EQ(parse_uint_list("1,1", "--offsets", 100), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(parse_uint_list("64,64,128", "--block-sizes", 100),
            (std::vector<std::uint32_t>{64, 128}));
  EXPECT_EQ(parse_uint_list("0-4,2,4-6", "--offsets", 100),
            (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cuvk::parse_apis({"cuda", "cuda", "vulkan"}),
            (std::vector<cuvk::Api>{cuvk::Api::cuda, cuvk::Api::vulkan}));
}

// --api and --vk-binding share one parser (parse_choices): "all", each name once, and the same
// error texts as before it.
TEST(CliParse, ApiAndBindingChoicesNameTheirOptionsChoices) {
  using cuvk::Binding;
  EXPECT_EQ(cuvk::parse_vk_bindings({"bda", "descriptor", "bda"}),
            (std::vector<Binding>{Binding::bda, Binding::descriptor}));
  EXPECT_EQ(cuvk::parse_apis({"vulkan", "all"}),
            (std::vector<cuvk::Api>{cuvk::Api::cuda, cuvk::Api::vulkan}));
  const auto error_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const cuvk::UsageError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(error_of([] { cuvk::parse_apis({"all", "metal"}); }),
            "--api 'metal': expected cuda, vulkan or all");
  EXPECT_EQ(error_of([] { cuvk::parse_apis({}); }), "--api: no API given");
  EXPECT_EQ(error_of([] { cuvk::parse_vk_bindings({"ssbo"}); }),
            "--vk-binding 'ssbo': expected descriptor, bda or all");
  EXPECT_EQ(error_of([] { cuvk::parse_vk_bindings({}); }), "--vk-binding: no binding mode given");
}

TEST(CliParse, BadListsAreUsageErrors) {
  for (const char* bad : {"", "a", "1,,2", "5-1", "0-8:0", "-3", "1.5", "99999999999"})
    EXPECT_THROW(parse_uint_list(bad, "--offsets", 100), UsageError) << bad;
}

// A huge range costs no memory: at most `cap` values come back (validate_config refuses the
// excess with its bound), and the rest of the text is still checked.
TEST(CliParse, ListsStopExpandingAtTheCap) {
  EXPECT_EQ(parse_uint_list("0-4294967295", "--offsets", 1025).size(), 1025u);
  EXPECT_EQ(parse_uint_list("0-4294967295:1,0-4294967295", "--offsets", 65).size(), 65u);
  EXPECT_EQ(parse_uint_list("1-4294967295:18446744073709551615", "--offsets", 3),
            (std::vector<std::uint32_t>{1}));  // a huge step does not wrap around
  EXPECT_THROW(parse_uint_list("0-4294967295,nope", "--offsets", 10), UsageError);
  EXPECT_THROW(parse_uint_list("0-4294967296", "--offsets", 10), UsageError);  // 32-bit
}

TEST(CliParse, CountsWithSuffixes) {
  EXPECT_EQ(parse_count("1048576", "--n"), 1u << 20);
  EXPECT_EQ(parse_count("64M", "--n"), 64ull << 20);
  EXPECT_EQ(parse_count("4k", "--n"), 4096u);
  EXPECT_EQ(parse_count("2G", "--n"), 2ull << 30);
  for (const char* bad : {"", "M", "-1", "1.5M", "ten", "1T"})
    EXPECT_THROW(parse_count(bad, "--n"), UsageError) << bad;
}

TEST(CliRun, BadArgumentsExitWithUsageCode) {
  EXPECT_EQ(run_cli({"run", "--tests", "nope"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--api", "opengl"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--reps", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "-5"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "lots"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--format", "xml"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--l2", "lukewarm"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--strides", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--block-size", "100"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--block-size", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--no-such-option"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--output", "/nonexistent-dir/r.json"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({}), cuvk::kExitUsage);  // a subcommand is required
}

TEST(CliRun, ListSucceeds) { EXPECT_EQ(run_cli({"list"}), cuvk::kExitOk); }

// Issue 12, class 3: values that would make a run endless are refused before anything runs.
TEST(CliRun, ValuesBeyondTheirBoundsAreUsageErrors) {
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--reps", "10001"},
                                             {"--warmup", "10001"},
                                             {"--settle-ms", "60001"},
                                             {"--max-time", "601"},
                                             {"--max-time", "nan"},
                                             {"--target-ci", "0.001"},
                                             {"--offsets", "0-4294967295"},
                                             {"--block-sizes", "32-4294967264:32"}}) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), bad.begin(), bad.end());
    EXPECT_EQ(run_cli(args), cuvk::kExitUsage) << bad[0] << ' ' << bad[1];
  }
  EXPECT_EQ(run_cli({"inspect", "copy", "--block-sizes", "32-65536:32"}), cuvk::kExitUsage);
}

// ---- Issue 12, class 2: standard output ----

namespace {

// Runs the CLI with file descriptor 1 on `path` (e.g. /dev/full), then puts it back.
int run_cli_with_stdout(const char* path, std::vector<std::string> args) {
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int fd = open(path, O_WRONLY);
  if (saved < 0 || fd < 0) return -1;
  dup2(fd, STDOUT_FILENO);
  close(fd);
  const int code = run_cli(std::move(args));
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::clearerr(stdout);
  return code;
}

}  // namespace

TEST(CliStdout, AFailedWriteIsAnIoError) {
  EXPECT_EQ(run_cli_with_stdout("/dev/full", {"list"}), cuvk::kExitEnvironment);
  EXPECT_EQ(run_cli_with_stdout("/dev/full", {"run", "--help"}), cuvk::kExitEnvironment);
  // Usage errors print nothing on stdout: they keep their own code.
  EXPECT_EQ(run_cli_with_stdout("/dev/full", {"run", "--reps", "0"}), cuvk::kExitUsage);
  // And standard output works again afterwards (std::cout's state is not left failed).
  EXPECT_EQ(run_cli_with_stdout("/dev/null", {"list"}), cuvk::kExitOk);
  EXPECT_TRUE(std::cout.good());
}

// ---- Issue 12, class 1: output files ----

namespace {

namespace fs = std::filesystem;

// A fresh folder, removed with everything in it.
struct Folder {
  fs::path path = fs::temp_directory_path() /
                  ("cuvk_test_cli_" + std::to_string(getpid()) + "_" + std::to_string(count++));
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::set<std::string> names() const {
    std::set<std::string> n;
    for (const auto& e : fs::directory_iterator(path)) n.insert(e.path().filename().string());
    return n;
  }
  static inline int count = 0;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST(OutputFile, ADirectoryIsRefusedNamingIt) {
  Folder d;
  try {
    cuvk::check_writable(d.path.string());
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(d.path.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuvk::check_writable(d / "sub/"), UsageError);
  EXPECT_THROW(cuvk::write_output_file(d.path.string(), "x"), cuvk::Error);
  EXPECT_TRUE(d.names().empty());
}

TEST(OutputFile, TheProbeTouchesNoOtherFile) {
  Folder d;
  put(d / "r.json.cuvk-probe", "a user's file");
  cuvk::check_writable(d / "r.json");
  EXPECT_EQ(slurp(d / "r.json.cuvk-probe"), "a user's file");
  EXPECT_EQ(d.names(), (std::set<std::string>{"r.json.cuvk-probe"}));  // no r.json, no temporary
  EXPECT_THROW(cuvk::check_writable(d / "missing/r.json"), UsageError);
}

TEST(OutputFile, ARegularFileIsReplacedWholeKeepingItsMode) {
  Folder d;
  put(d / "r.json", "old");
  chmod((d / "r.json").c_str(), 0640);
  cuvk::write_output_file(d / "r.json", "new");
  EXPECT_EQ(slurp(d / "r.json"), "new");
  struct stat st {};
  ASSERT_EQ(stat((d / "r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(d.names(), (std::set<std::string>{"r.json"}));
}

TEST(OutputFile, ASymbolicLinkIsWrittenThroughAndKept) {
  Folder d;
  put(d / "real.json", "old");
  fs::create_symlink("real.json", d / "link.json");
  fs::create_symlink("made.json", d / "dangling.json");
  cuvk::check_writable(d / "link.json");
  cuvk::write_output_file(d / "link.json", "new");
  cuvk::write_output_file(d / "dangling.json", "made");
  EXPECT_TRUE(fs::is_symlink(d / "link.json"));
  EXPECT_TRUE(fs::is_symlink(d / "dangling.json"));
  EXPECT_EQ(slurp(d / "real.json"), "new");
  EXPECT_EQ(slurp(d / "made.json"), "made");
  EXPECT_EQ(d.names(),
            (std::set<std::string>{"dangling.json", "link.json", "made.json", "real.json"}));
}

TEST(OutputFile, ADeviceIsWrittenDirectlyNeverReplaced) {
  Folder d;
  if (mknod((d / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP()
        << "mknod needs root";  // a copy of /dev/null: a regression cannot harm the real one
  cuvk::check_writable(d / "null");
  cuvk::write_output_file(d / "null", "data");
  struct stat st {};
  ASSERT_EQ(lstat((d / "null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(d.names(), (std::set<std::string>{"null"}));
}

TEST(OutputFile, AFailedWriteIsAnIoErrorNotAUsageError) {
  cuvk::check_writable("/dev/full");  // writable: the failure shows only when writing
  try {
    cuvk::write_output_file("/dev/full", "data");
    FAIL() << "expected an Error";
  } catch (const UsageError& e) {
    FAIL() << "a usage error: " << e.what();
  } catch (const cuvk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
}

// Issue 12: the exit-code table (docs/REFERENCE.md since issue 26) lists exactly the codes the CLI
// returns (cli.h, ExitCode), each row says what its code stands for, and the --baseline rules are
// spelled out.
TEST(Cli, ReadmeExitCodeTableAgreesWithTheCode) {
  std::ifstream f(std::string(CUVK_SOURCE_DIR) + "/docs/REFERENCE.md");
  const std::string readme((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t section = readme.find("\n## Exit codes\n");
  ASSERT_NE(section, std::string::npos);
  std::map<int, std::string> rows;  // code -> its row's text
  std::istringstream lines(readme.substr(section, readme.find("\n## ", section + 1) - section));
  for (std::string line; std::getline(lines, line);) {
    int code = -1;
    if (std::sscanf(line.c_str(), "| %d |", &code) == 1) rows[code] = line;
  }
  using namespace cuvk;
  const std::set<int> used = {kExitOk,          kExitFailed,      kExitUsage,      kExitDiffers,
                              kExitNotCompared, kExitEnvironment,
                              interrupted_exit_code(SIGINT)};
  std::set<int> documented;
  for (const auto& [code, text] : rows) documented.insert(code);
  EXPECT_EQ(documented, used);
  const auto says = [&rows](int code, const std::string& what) {
    EXPECT_NE(rows[code].find(what), std::string::npos) << code << ": " << rows[code];
  };
  says(kExitFailed, "`failed` row");
  says(kExitDiffers, "`--baseline`: a SLOWER or UNCERTAIN row");
  says(kExitNotCompared, "`--baseline`: no row of the run could be compared");
  says(kExitUsage, "an unknown command");
  says(kExitEnvironment, "out of host memory");
  says(kExitEnvironment, "No space left on device");
  // One rule for every command: 128 + the signal's number (issue 23, class 7).
  for (const char* what : {"128 + the signal's number", "SIGTERM", "143", "SIGHUP", "129",
                           "every command"})
    says(interrupted_exit_code(SIGINT), what);
  EXPECT_NE(readme.find("**`--baseline FILE`**"), std::string::npos);
}

// The parse-and-judge seam (the fuzzer's entry point): options are judged as the command would
// judge them, nothing runs; every unsigned option refuses a negative value, naming the option.
TEST(Cli, CommandLineIsJudgedWithoutRunning) {
  using cuvk::parse_command_line;
  EXPECT_NO_THROW(parse_command_line({"cuvk", "run", "--tests", "copy", "--n", "1k"}));
  EXPECT_NO_THROW(parse_command_line({"cuvk", "devices"}));  // nothing opened
  EXPECT_THROW(parse_command_line({"cuvk", "run", "--reps", "0"}), UsageError);
  EXPECT_THROW(parse_command_line({"cuvk", "parity", "--format", "xml"}), UsageError);
  EXPECT_THROW(parse_command_line({"cuvk", "report", "x.json", "--tolerance", "-3"}), UsageError);
  EXPECT_THROW(parse_command_line({"cuvk", "run", "--help"}), CLI::CallForHelp);
  try {
    parse_command_line({"cuvk", "rnu", "--tests", "copy"});
    FAIL() << "an unknown command was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown command 'rnu'; commands: run, list"),
              std::string::npos)
        << e.what();
  }
  for (const char* option : {"--seed", "--block-size", "--reps", "--warmup"}) {
    try {
      parse_command_line({"cuvk", "run", option, "-1"});
      FAIL() << option << " -1 was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(option) + ": '-1' is negative"),
                std::string::npos)
          << e.what();
    } catch (const UsageError& e) {  // a signed option: refused by its bound
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  }
}

// Issue 36: a message's further lines (a compiler's log) are lines of their own under the one
// `error:` line, indented, escaped one by one: never a literal "\n".
TEST(Cli, AnErrorsLogComesAsIndentedLines) {
  EXPECT_EQ(cuvk::error_text("p.toml: CUDA compile failed: k.cu (NVRTC 13.0):", "",
                             "k.cu(1): error: x\nk.cu(2): error: \ty\x1b\n"),
            "error: p.toml: CUDA compile failed: k.cu (NVRTC 13.0):\n  k.cu(1): error: x\n"
            "  k.cu(2): error: \\ty\\x1b\n");
  EXPECT_EQ(cuvk::error_text("one line", " (see --help)"), "error: one line (see --help)\n");
  std::string many = "head";
  for (int i = 0; i < 300; ++i) many += "\nline " + std::to_string(i);
  const std::string text = cuvk::error_text("msg", "", many);
  EXPECT_NE(text.find("  line 198\n  ... (101 more lines)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("line 199"), std::string::npos);
  // The message itself stays one line whatever it holds (a file name with a newline).
  EXPECT_EQ(cuvk::error_text("cannot read 'a\nb.json'"), "error: cannot read 'a\\nb.json'\n");
}

// Issue 36: `cuvk help` is cuvk's --help (its commands listed), then each command's --help, each
// once. It printed help's own usage twice (CLI11 hands the root's help to the parsed subcommand)
// and never listed the commands.
TEST(Cli, HelpListsTheCommandsThenEachCommandsHelpOnce) {
  Folder dir;
  const std::string file = dir / "help.txt";
  put(file, "");
  ASSERT_EQ(run_cli_with_stdout(file.c_str(), {"help"}), cuvk::kExitOk);
  const std::string text = slurp(file);
  const auto count = [&text](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("Subcommands:"), 1u) << text;
  for (const char* c : {"run", "list", "devices", "inspect", "parity", "report", "trace", "help"}) {
    EXPECT_EQ(count(std::string("Usage: cuvk ") + c + " "), 1u) << c << "\n" << text;
    EXPECT_NE(text.find(std::string("\n  ") + c + " "), std::string::npos) << c << " not listed";
  }
}

// Issue 33: --n takes lists, arithmetic ranges and log ranges; sizes keep their k/M/G suffixes.
TEST(CliSizes, ListsAndRangesOfSizes) {
  using cuvk::parse_size_list;
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(parse_size_list("1M", "--n", 100), (V{1u << 20}));
  EXPECT_EQ(parse_size_list("16k,1M,64M", "--n", 100), (V{16u << 10, 1u << 20, 64u << 20}));
  EXPECT_EQ(parse_size_list("1M-4M:1M", "--n", 100), (V{1u << 20, 2u << 20, 3u << 20, 4u << 20}));
  EXPECT_EQ(parse_size_list("1-3", "--n", 100), (V{1, 2, 3}));
  const V log = parse_size_list("1k-256M:x4", "--n", 100);
  ASSERT_EQ(log.size(), 10u);  // 1k, 4k, ..., 256M: 4^9 = 2^18
  for (std::size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], 1024u << (2 * i)) << i;
  EXPECT_EQ(parse_size_list("1k-5k:x2", "--n", 100), (V{1024, 2048, 4096}));     // stops below 5k
  EXPECT_EQ(parse_size_list("1k-4294967295:x2", "--n", 100).back(), 1u << 31);
  EXPECT_EQ(parse_size_list("4k,1k-4k:x2", "--n", 100), (V{4096, 1024, 2048}));  // each once
  EXPECT_EQ(parse_size_list("1-4294967295:x65536", "--n", 100), (V{1, 65536}));
}

TEST(CliSizes, BadSizeListsAreUsageErrors) {
  using cuvk::parse_size_list;
  for (const char* bad :
       {"", ",", "1k,", "0", "1k-256M:x1", "1k-256M:x0", "1k-256M:x", "4k-1k", "1k-4k:0",
        "1-4294967296", "8G", "1k-8G:x2", "-1k", "1.5k", "x4", "1k-4k:y2", "1k-", "1k-4k-16k"})
    EXPECT_THROW(parse_size_list(bad, "--n", 100), UsageError) << bad;
  EXPECT_THROW(parse_size_list("1-101", "--n", 100), UsageError);  // more than the cap
  EXPECT_EQ(parse_size_list("1-100", "--n", 100).size(), 100u);
  try {
    parse_size_list("1k-256M:x1", "--n", 100);
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--n: factor x1 in '1k-256M:x1'; a log range multiplies by at least 2");
  }
}

// A list beyond the run's point cap (points x sizes x block sizes x binding modes) is refused in
// one line, exit 2.
TEST(CliSizes, ListsBeyondThePointCapAreRefused) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_cli({"run", "--tests", "read_offset", "--offsets", "0-1023", "--n", "1k-32k:x2"}),
            2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(" points x 6 sizes (--n) x 1 block sizes"), std::string::npos) << err;
  EXPECT_NE(err.find("at most 4096 in one run"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  // Issue 34's `--pair nope.toml --n 1k,4k` (a missing file still named) opens the devices first:
  // cli_error.pair_missing_with_sizes, beside the other tests that load a driver.
}
