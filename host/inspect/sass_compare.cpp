#include "sass_compare.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace cuvk::inspect {
namespace {

std::string x(const char* what, int n) {
  return fmt::format("{} x{}", what, n);
}

bool global_memory(const std::string& base) {
  return base == "LDG" || base == "STG" || base == "LD" || base == "ST" || base == "ATOMG" ||
         base == "ATOM" || base == "RED" || base == "REDG";
}

void count(std::vector<std::pair<std::string, int>>& forms, const std::string& key) {
  auto it =
      std::find_if(forms.begin(), forms.end(), [&key](const auto& e) { return e.first == key; });
  if (it == forms.end())
    forms.emplace_back(key, 1);
  else
    ++it->second;
}

// "desc[UR4][R2.64+0x10]" -> "desc[UR][R.64+imm]"
std::string address_form(const std::string& operands) {
  static const std::regex address(R"((desc\[[^\]]*\])?\[[^\]]*\])");
  static const std::regex number(R"(0x[0-9a-fA-F]+|\b(U?R)[0-9]+\b)");
  std::smatch m;
  if (!std::regex_search(operands, m, address)) return "";
  std::string form;
  std::string rest = m.str();
  for (std::smatch n; std::regex_search(rest, n, number); rest = n.suffix())
    form += n.prefix().str() + (n[1].matched ? n[1].str() : "imm");
  return form + rest;
}

void memory_access(SassSummary& s, const std::string& operands) {
  static const std::regex predicate_operand(R"(,\s*!?P[0-6]\s*$)");
  if (std::regex_search(operands, predicate_operand)) ++s.guarded_memory;
  if (const std::string form = address_form(operands); !form.empty()) count(s.address_forms, form);
}

}  // namespace

SassSummary summarize_sass(const std::string& function_text) {
  // "/*0040*/  @!P0 IMAD.WIDE R2, R0, R3, c[0x0][0x160] ;" : guard, opcode, operands.
  static const std::regex instruction(
      R"(/\*[0-9a-f]{4,}\*/\s+(@(!?)(U?P[T0-9]+)\s+)?([A-Z][A-Z0-9_.]*)([^;]*))");
  static const std::regex reg(R"(\bR([0-9]+)\b)");
  static const std::regex declared(R"(Register count=([0-9]+))");
  SassSummary s;
  s.ops = sass_memory_ops(function_text);
  if (std::smatch d; std::regex_search(function_text, d, declared))
    s.declared_registers = std::stoi(d[1]);
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
    if (base == "IMAD" && op.find(".WIDE") != std::string::npos) ++s.imad_wide;
    if (base == "LEA") ++s.lea;
    if (base == "IADD3") ++s.iadd3;
    if (base == "SHF") ++s.shifts;
    const std::string operands = m[5];
    if (global_memory(base)) memory_access(s, operands);
    for (auto r = std::sregex_iterator(operands.begin(), operands.end(), reg);
         r != std::sregex_iterator(); ++r)
      s.registers = std::max(s.registers, std::stoi((*r)[1]) + 1);
  }
  return s;
}

std::string format_checks(const SassSummary& s) {
  return fmt::format("{}, predicated {} (guarded EXIT/BRA {}), predicated loads/stores {}",
                     x("ISETP", s.compares), s.predicated, s.guarded_exits, s.guarded_memory);
}

std::string format_registers(const SassSummary& s) {
  const std::string named =
      s.registers == 0 ? "none named" : fmt::format("R0..R{} named", s.registers - 1);
  return s.declared_registers >= 0 ? fmt::format("{} allocated, {}", s.declared_registers, named)
                                   : named;
}

std::string format_addressing(const SassSummary& s) {
  return fmt::format("{} (.WIDE x{}), {}, {}, {}", x("IMAD", s.imad), s.imad_wide, x("LEA", s.lea),
                     x("IADD3", s.iadd3), x("SHF", s.shifts));
}

std::vector<std::string> sass_differences(const SassSummary& a, const SassSummary& b) {
  std::vector<std::string> d;
  auto pair = [&d](const std::string& what, const std::string& va, const std::string& vb) {
    if (va != vb) d.push_back(what + " " + va + " vs " + vb);
  };
  pair("global memory", format_ops(a.ops.global), format_ops(b.ops.global));
  pair("other memory", format_ops(a.ops.other), format_ops(b.ops.other));
  pair("instructions", std::to_string(a.ops.instructions), std::to_string(b.ops.instructions));
  pair("registers", format_registers(a), format_registers(b));
  pair("bounds checks", format_checks(a), format_checks(b));
  pair("address forms", format_ops(a.address_forms), format_ops(b.address_forms));
  pair("address arithmetic", format_addressing(a), format_addressing(b));
  return d;
}

}  // namespace cuvk::inspect
