// Integer expressions of a pair declaration: a recursive-descent parser that evaluates as it goes,
// every operation checked (64-bit signed overflow, division by zero).
#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "pair.h"

namespace cuvk::pairs {
namespace {

constexpr std::size_t kMaxDepth = 64;  // nesting bound: a hostile expression cannot blow the stack

class Parser {
 public:
  Parser(const std::string& expr, const std::map<std::string, std::int64_t>* vars,
         const std::vector<std::string>* names, const std::string& where)
      : s_(expr), vars_(vars), names_(names), where_(where) {}

  std::int64_t parse() {
    skip();
    if (pos_ >= s_.size()) fail("empty expression");
    const std::int64_t v = sum(0);
    skip();
    if (pos_ < s_.size()) fail(std::string("unexpected '") + s_[pos_] + "' at column " + col());
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw DeclarationError(where_ + ": '" + s_ + "': " + why);
  }
  // Arithmetic errors: when only checking, the placeholder values are not the user's mistake.
  std::int64_t arith(const std::string& why) const {
    if (!vars_) return 1;
    fail(why);
  }
  std::string col() const { return std::to_string(pos_ + 1); }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) {
      if (pos_ >= s_.size()) fail(std::string("expected '") + c + "' at the end");
      fail(std::string("expected '") + c + "' at column " + col());
    }
  }

  std::int64_t add(std::int64_t a, std::int64_t b, char op) const {
    std::int64_t r = 0;
    const bool bad =
        op == '+' ? __builtin_add_overflow(a, b, &r) : __builtin_sub_overflow(a, b, &r);
    return bad ? arith("overflows 64-bit integers") : r;
  }
  std::int64_t mul(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? arith("overflows 64-bit integers") : r;
  }
  std::int64_t div(std::int64_t a, std::int64_t b, char op) const {
    if (b == 0) return arith(op == '%' ? "modulo by zero" : "division by zero");
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
      return arith("overflows 64-bit integers");
    return op == '%' ? a % b : a / b;
  }

  std::int64_t sum(std::size_t depth) {
    std::int64_t v = product(depth);
    for (;;) {
      if (eat('+')) {
        v = add(v, product(depth), '+');
      } else if (eat('-')) {
        v = add(v, product(depth), '-');
      } else {
        return v;
      }
    }
  }
  std::int64_t product(std::size_t depth) {
    std::int64_t v = unary(depth);
    for (;;) {
      if (eat('*')) {
        v = mul(v, unary(depth));
      } else if (eat('/')) {
        v = div(v, unary(depth), '/');
      } else if (eat('%')) {
        v = div(v, unary(depth), '%');
      } else {
        return v;
      }
    }
  }
  std::int64_t unary(std::size_t depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    if (eat('-')) return add(0, unary(depth + 1), '-');
    if (eat('+')) return unary(depth + 1);
    return primary(depth);
  }
  std::int64_t primary(std::size_t depth) {
    skip();
    if (pos_ >= s_.size()) fail("expression ends early");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t v = sum(depth + 1);
      expect(')');
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name(depth);
    fail(std::string("unexpected '") + c + "' at column " + col());
  }
  std::int64_t number() {
    const std::size_t start = pos_;
    std::int64_t v = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      const std::int64_t digit = s_[pos_] - '0';
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v))
        fail(fmt::format("number at column {} overflows 64-bit integers", start + 1));
      ++pos_;
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
      fail(fmt::format("bad number at column {} (integers only)", start + 1));
    return v;
  }
  std::int64_t name(std::size_t depth) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    const std::string id = s_.substr(start, pos_ - start);
    if (id == "min" || id == "max" || id == "ceil_div") {
      expect('(');
      const std::int64_t a = sum(depth + 1);
      expect(',');
      const std::int64_t b = sum(depth + 1);
      expect(')');
      if (id == "min") return std::min(a, b);
      if (id == "max") return std::max(a, b);
      // ceil_div(a, b) = (a + b - 1) / b for a >= 0, b > 0; refuses the rest.
      if (b <= 0 || a < 0) return arith("ceil_div needs a >= 0 and b > 0");
      return a / b + (a % b != 0 ? 1 : 0);
    }
    if (vars_) {
      const auto it = vars_->find(id);
      if (it != vars_->end()) return it->second;
    } else if (std::find(names_->begin(), names_->end(), id) != names_->end()) {
      return 1;  // check only: any value
    }
    std::string known;
    if (vars_) {
      for (const auto& [k, v] : *vars_) known += (known.empty() ? "" : ", ") + k;
    } else {
      for (const auto& k : *names_) known += (known.empty() ? "" : ", ") + k;
    }
    fail(fmt::format(
        "unknown name '{}' at column {}{}", id, start + 1,
        known.empty() ? std::string(" (no variables here)") : " (known: " + known + ")"));
  }

  const std::string& s_;
  const std::map<std::string, std::int64_t>* vars_;
  const std::vector<std::string>* names_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

}  // namespace

std::int64_t eval_expr(const std::string& expr, const std::map<std::string, std::int64_t>& vars,
                       const std::string& where) {
  return Parser(expr, &vars, nullptr, where).parse();
}

std::int64_t eval_in_n(const std::string& expr, std::uint64_t n, const std::string& where) {
  if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw DeclarationError(fmt::format("{}: n = {} overflows 64-bit integers", where, n));
  return eval_expr(expr, {{"n", static_cast<std::int64_t>(n)}}, where);
}

void check_expr(const std::string& expr, const std::vector<std::string>& names,
                const std::string& where) {
  Parser(expr, nullptr, &names, where).parse();  // syntax and names only
}

}  // namespace cuvk::pairs
