#include "cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build_info.h"
#include "catalogue.h"
#include "commands.h"
#include "error.h"
#include "interrupt.h"
#include "runner.h"  // kMaxReps, kMaxWarmup
#include "host_data.h"  // host_memory_limit_note
#include "json_check.h"  // one_line
#include "standard_output.h"

namespace cuvk {

static std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

namespace {

// The app with every subcommand; the Commands hold what runs and what judges the options.
struct CliApp {
  CLI::App app{"cuvk: does the same memory-bound kernel run the same on CUDA and on Vulkan?\n"
               "Runs equivalent CUDA kernels and GLSL compute shaders through one timing driver on\n"
               "the same GPU, verifies every result, and reports times, bandwidth and parity."};
  std::vector<Command> commands;
};

// What an unsigned option's value must be: digits that fit in 64 bits ("" when it is), so that
// nothing is wrapped (-1 to 2^64 - 1) or saturated (99999999999999999999999 to 2^64 - 1).
std::string unsigned_problem(const std::string& v) {
  const std::size_t first = v.find_first_not_of(" \t");
  if (first != std::string::npos && v[first] == '-')
    return quoted(v) + " is negative; expected a non-negative integer";
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    return quoted(v) + " is not a non-negative integer";
  errno = 0;
  std::strtoull(v.c_str(), nullptr, 10);
  if (errno == ERANGE)
    return fmt::format("{} is too large (at most {})", quoted(v),
                       std::numeric_limits<std::uint64_t>::max());
  return {};
}

// A signed integer option's value: digits (an optional '-') within [lo, hi] ("" when it is).
std::string integer_problem(const std::string& v, long long lo, long long hi) {
  const std::string range = fmt::format(" from {} to {}", lo, hi);
  const std::size_t digits = !v.empty() && v[0] == '-' ? 1 : 0;
  if (v.size() == digits || v.find_first_not_of("0123456789", digits) != std::string::npos)
    return quoted(v) + " is not an integer" + range;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), nullptr, 10);
  if (errno == ERANGE || x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
    return quoted(v) + " is out of range: an integer" + range;
  return {};  // within int: validate_config judges the bounds, naming the value
}

// A floating-point option's value: a finite number ("" when it is); ranges: validate_config.
std::string number_problem(const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0') return quoted(v) + " is not a number";
  // strtod reads hex floats too ("0x10" is 16): a time or a percentage is written in decimal.
  if (v.find_first_of("xX") != std::string::npos)
    return quoted(v) + " is not a decimal number (hexadecimal is not accepted)";
  (void)x;  // inf and nan are numbers: validate_config names their range
  return {};
}

// The bounds of the integer options, named in their messages (validate_config judges them too).
std::pair<long long, long long> integer_bounds(const std::string& option) {
  if (option == "--reps") return {1, kMaxReps};
  if (option == "--warmup") return {0, kMaxWarmup};
  return {std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
}

// Every option that takes a value refuses an empty one (`--n ''` does not mean the default; an
// empty item of a list, `--tests copy,`, is refused as `--offsets 1,` is), and every option of an
// unsigned type (CLI11's "UINT") refuses a negative, non-numeric or too large value, naming the
// option and the value.
void check_option_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() == 0 || opt->get_name().empty()) continue;  // a flag
    const std::string type = opt->get_type_name();
    const bool is_unsigned = type.find("UINT") != std::string::npos;
    const bool is_int = !is_unsigned && type.find("INT") != std::string::npos;
    const bool is_float = type.find("FLOAT") != std::string::npos;
    const auto bounds = integer_bounds(opt->get_name());
    opt->check(CLI::Validator(
        [=](std::string& v) {
          if (v.empty()) return std::string("empty value; give a value or leave the option out");
          if (is_unsigned) return unsigned_problem(v);
          if (is_int) return integer_problem(v, bounds.first, bounds.second);
          return is_float ? number_problem(v) : std::string();
        },
        "", "non-empty"));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_option_values(*sub);
}

std::unique_ptr<CliApp> make_cli_app(const std::string& cmdline) {
  auto cli = std::make_unique<CliApp>();
  CLI::App& app = cli->app;
  app.set_version_flag("--version", std::string("cuvk ") + build::kVersion + " (" +
                                        build::kGitRevision + ")");
  app.require_subcommand(1);
  cli->commands = {
      add_run_command(app, cmdline),    add_list_command(app),
      add_devices_command(app),         add_inspect_command(app),
      add_parity_command(app, cmdline), add_explain_command(app, cmdline),
      add_report_command(app),          add_trace_command(app, cmdline),
      add_p2p_command(app),
      add_help_command(app),  // help: last, it walks the rest
  };
  check_option_values(app);
  return cli;
}

// The top level takes only flags, so its first word that is not one names the command; an unknown
// one is named with the list of commands (CLI11 would say only that an argument was not expected).
void check_command_name(const CliApp& cli, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    std::vector<std::string> known;
    for (const Command& c : cli.commands) {
      if (c.sub->get_name() == word) return;
      known.push_back(c.sub->get_name());
    }
    throw UsageError(
        fmt::format("unknown command {}; commands: {}", quoted(word), fmt::join(known, ", ")));
  }
}

// The comma-separated options (--tests, --api, ...) refuse an empty item as the numeric lists do
// (`--offsets 1,`): CLI11 drops empty items of "copy," and, for ",", takes the next word as the
// value. Checked on the words as given, before CLI11 parses them.
void check_list_items(const CliApp& cli, int argc, const char* const* argv) {
  const CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (sub == nullptr) {
      for (const Command& c : cli.commands)
        if (c.sub->get_name() == word) sub = c.sub;
      continue;
    }
    if (word.rfind("--", 0) != 0) continue;
    const std::size_t eq = word.find('=');
    const std::string name = word.substr(0, eq);
    const CLI::Option* opt = nullptr;
    for (const CLI::Option* o : sub->get_options())
      if (o->check_lname(name.substr(2))) opt = o;
    if (opt == nullptr || opt->get_delimiter() != ',') continue;
    if (eq == std::string::npos && i + 1 >= argc) continue;  // CLI11 says a value is missing
    const std::string value = eq != std::string::npos ? word.substr(eq + 1) : argv[++i];
    if (value.empty() || value.front() == ',' || value.back() == ',' ||
        value.find(",,") != std::string::npos)
      throw UsageError(name + ": empty item in " + quoted(value));
  }
}

const Command* parsed_command(const CliApp& cli) {
  for (const Command& c : cli.commands)
    if (c.sub->parsed()) return &c;
  return nullptr;
}

// CLI11's "Could not convert: OPTION = VALUE" as "OPTION: 'VALUE' does not fit the option's type".
std::string conversion_message(const std::string& what) {
  const std::string tag = "Could not convert: ";
  const std::size_t eq = what.find(" = ");
  if (what.rfind(tag, 0) != 0 || eq == std::string::npos) return what;
  return what.substr(tag.size(), eq - tag.size()) + ": " + quoted(what.substr(eq + 3)) +
         " is out of range or not a value of the option's type (32-bit unsigned for sizes)";
}

}  // namespace

std::string error_text(const std::string& what, const std::string& suffix,
                       const std::string& log) {
  std::string out = "error: " + one_line(what, kMaxErrorLine) + suffix + "\n";
  const std::vector<std::string> lines = split(log, '\n');
  std::size_t shown = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() && i + 1 == lines.size()) break;
    if (++shown > kMaxErrorDetailLines) {
      out += fmt::format("  ... ({} more lines)\n", lines.size() - i);
      break;
    }
    out += "  " + one_line(lines[i], kMaxErrorLine) + "\n";
  }
  return out;
}

// The log an exception carries beneath its message (Error::log), "" for any other.
std::string log_of(const std::exception& e) {
  const auto* c = dynamic_cast<const Error*>(&e);
  return c ? c->log() : std::string();
}

namespace {

int run_cli(int argc, char** argv) {
  set_process_args(argc, argv);
  const std::unique_ptr<CliApp> cli = make_cli_app(command_line(argc, argv));
  try {
    check_command_name(*cli, argc, argv);
    check_list_items(*cli, argc, argv);
    cli->app.parse(argc, argv);
    // Every option judged before the command opens anything: `parity --n banana` said "cannot
    // compare CUDA with Vulkan: CUDA unavailable" (its API check came before its options').
    if (const Command* chosen = parsed_command(*cli); chosen && chosen->check) chosen->check();
  } catch (const CLI::CallForHelp& e) {
    return cli->app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli->app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli->app.exit(e);
  } catch (const CLI::ConversionError& e) {  // "Could not convert: --block-size = 99999999999"
    std::cerr << error_text(conversion_message(e.what()), " (see --help)");
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::cerr << error_text(e.what(), " (see --help)");
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << error_text(e.what(), "", e.log());
    return kExitUsage;
  }
  const Command* chosen = parsed_command(*cli);
  return chosen ? chosen->action() : kExitUsage;
}

// The one place an exception becomes an exit code: one `error:` line, never an abort.
int run_guarded(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const Interrupted& e) {  // an output gave way to SIGINT/SIGTERM/SIGHUP
    std::cerr << error_text(e.what());
    return interrupted_exit_code(interrupt_signal());
  } catch (const UsageError& e) {
    std::cerr << error_text(e.what(), "", e.log());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr
        << "error: out of host memory while running `" << one_line(argc > 1 ? argv[1] : "", 40)
        << "` (std::bad_alloc): the input or the run is larger than this process may allocate\n";
    return kExitEnvironment;
  } catch (const std::system_error& e) {  // std::thread, std::async: no thread could start
    const bool thread = e.code() == std::errc::resource_unavailable_try_again;
    std::cerr << "error: "
              << (thread ? "cannot start a thread (out of host memory or the thread limit): " : "")
              << one_line(e.what(), kMaxErrorLine) << '\n';
    return kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << error_text(e.what(), host_memory_limit_note(e.what()), log_of(e));
    return kExitEnvironment;
  } catch (...) {
    std::cerr << "error: internal error: an unknown exception\n";
    return kExitEnvironment;
  }
}

}  // namespace

void parse_command_line(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const std::unique_ptr<CliApp> cli = make_cli_app("cuvk");
  check_command_name(*cli, static_cast<int>(argv.size()), argv.data());
  check_list_items(*cli, static_cast<int>(argv.size()), argv.data());
  cli->app.parse(static_cast<int>(argv.size()), argv.data());
  if (const Command* chosen = parsed_command(*cli); chosen && chosen->check) chosen->check();
}

int cli_main(int argc, char** argv) {
  try {
    ErrorLineWatch errors;  // every non-zero exit says why on stderr, in one `error:` line
    StandardOutput out;
    return errors.finish(out.finish(run_guarded(argc, argv)));
  } catch (const std::bad_alloc&) {
    // Before the guards stand (their buffers under a small `ulimit -v`): the same exit 3 and
    // one line, written without allocating; it used to end in std::terminate (exit 134).
    static const char kLine[] =
        "error: out of host memory while starting (std::bad_alloc): this process may not "
        "allocate its output buffers\n";
    [[maybe_unused]] const ssize_t w = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
    return kExitEnvironment;
  }
}

}  // namespace cuvk
