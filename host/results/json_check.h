// Reading a JSON document under check: every value is read through a JsonIn that knows its path,
// so every problem is one line naming the file, the path and what was wrong
// ("r.json: results[3].params.n: expected an integer from 0 to 4294967295, found -1"), thrown as a
// UsageError (exit code 2). The run file's reader (run_reader.cpp) and its row field table
// (run_file.cpp) read through it.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cuvk {

inline constexpr std::size_t kMaxQuoted = 60;  // longest piece of file content quoted in an error

// Text from outside (a file, a driver, a directory listing) made safe to print: control
// characters as escapes (newline "\n", tab "\t", others "\x1b"; C1 controls "\u009b"; bidi
// controls and line separators "\u202e", "\u2028"), so no such text can steer a terminal, reorder
// what is shown or split a line. The one escaping rule for everything printed that came from
// outside (files, drivers, paths, the command line): every printer and `error:` line uses it.
std::string printable(const std::string& s);

// Text from the file made fit for a one-line error: control characters replaced, cut at
// kMaxQuoted characters, in single quotes.
std::string quoted(const std::string& s);
// A path made fit for a one-line error: like quoted(), but a long path keeps its end (the file
// name tells the user which file) and loses its start: '.../tests/tmp/tmp.0sNy/link.json'.
std::string quoted_path(const std::string& path);
// One line of at most `max` characters (printable(), then cut, "..." where cut).
std::string one_line(const std::string& s, std::size_t max);
const char* type_of(const nlohmann::json& v);  // "null", "a boolean", "a number", ...

class JsonIn {
 public:
  // The document's root; `file` only labels errors and must outlive every JsonIn read from it.
  JsonIn(const std::string& file, const nlohmann::json& root);

  // A member ("params") or element ("results[3]") of this value; absent when it is missing or
  // this is not an object (array).
  JsonIn at(const std::string& key) const;
  JsonIn element(std::size_t index) const;

  bool present() const { return value_ != nullptr; }
  const nlohmann::json& value() const { return *value_; }  // only when present()
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& problem) const;  // "<file>: <path>: <problem>"

  // Checked reads: each fails with the path unless the value is there and of the right kind.
  JsonIn required() const;  // "missing (required)" when absent
  JsonIn object() const;
  JsonIn array() const;
  std::string string() const;
  bool boolean() const;
  std::uint64_t unsigned_int(std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  std::uint32_t u32() const;                   // unsigned_int up to 2^32 - 1
  double number(bool positive = false) const;  // finite, >= 0 (> 0 when `positive`)

  // Lenient reads, for informative fields: nullopt when absent or of another kind.
  std::optional<std::string> if_string() const;
  std::optional<std::uint64_t> if_unsigned() const;

 private:
  JsonIn(const std::string* file, const nlohmann::json* value, std::string path);
  const std::string* file_;
  const nlohmann::json* value_;  // nullptr: absent
  std::string path_;
};

}  // namespace cuvk
