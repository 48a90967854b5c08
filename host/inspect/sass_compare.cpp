#include "sass_compare.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

namespace cuvk::inspect {
namespace {

std::string x(const char* what, int n) {
  return std::string(what) + " x" + std::to_string(n);
}

}  // namespace

SassSummary summarize_sass(const std::string& function_text) {
  // "/*0040*/  @!P0 IMAD.WIDE R2, R0, R3, c[0x0][0x160] ;" : guard, opcode, operands.
  static const std::regex instruction(
      R"(/\*[0-9a-f]{4,}\*/\s+(@(!?)(U?P[T0-9]+)\s+)?([A-Z][A-Z0-9_.]*)([^;]*))");
  static const std::regex reg(R"(\bR([0-9]+)\b)");
  SassSummary s;
  s.ops = sass_memory_ops(function_text);
  std::istringstream in(function_text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, m, instruction)) continue;
    const std::string op = m[4];
    if (op == "NOP") continue;
    const bool guarded = m[1].matched && m[3] != "PT" && m[3] != "UPT";
    const std::string base = op.substr(0, op.find('.'));
    if (guarded) ++s.predicated;
    if (guarded && (base == "EXIT" || base == "BRA")) ++s.guarded_exits;
    if (base == "ISETP") ++s.compares;
    if (base == "IMAD") ++s.imad;
    if (base == "LEA") ++s.lea;
    if (base == "IADD3") ++s.iadd3;
    if (base == "SHF") ++s.shifts;
    const std::string operands = m[5];
    for (auto r = std::sregex_iterator(operands.begin(), operands.end(), reg);
         r != std::sregex_iterator(); ++r)
      s.registers = std::max(s.registers, std::stoi((*r)[1]) + 1);
  }
  return s;
}

std::string format_checks(const SassSummary& s) {
  return x("ISETP", s.compares) + ", predicated " + std::to_string(s.predicated) +
         " (guarded EXIT/BRA " + std::to_string(s.guarded_exits) + ")";
}

std::string format_addressing(const SassSummary& s) {
  return x("IMAD", s.imad) + ", " + x("LEA", s.lea) + ", " + x("IADD3", s.iadd3) + ", " +
         x("SHF", s.shifts);
}

std::vector<std::string> sass_differences(const SassSummary& a, const SassSummary& b) {
  std::vector<std::string> d;
  auto pair = [&d](const std::string& what, const std::string& va, const std::string& vb) {
    if (va != vb) d.push_back(what + " " + va + " vs " + vb);
  };
  pair("global memory", format_ops(a.ops.global), format_ops(b.ops.global));
  pair("other memory", format_ops(a.ops.other), format_ops(b.ops.other));
  pair("instructions", std::to_string(a.ops.instructions), std::to_string(b.ops.instructions));
  pair("registers named", std::to_string(a.registers), std::to_string(b.registers));
  pair("bounds checks", format_checks(a), format_checks(b));
  pair("address arithmetic", format_addressing(a), format_addressing(b));
  return d;
}

}  // namespace cuvk::inspect
