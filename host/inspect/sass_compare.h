// One SASS function summarized for comparison (`cuvk inspect`: CUDA SASS beside the Vulkan
// driver's): memory instruction forms, bounds checks and predication, address arithmetic,
// instruction and register counts, and what differs between two such summaries.
#pragma once

#include <string>
#include <vector>

#include "inspect.h"

namespace cuvk::inspect {

struct SassSummary {
  MemoryOps ops;          // global / other memory forms and the instruction count (no NOPs)
  int registers = 0;      // highest R<n> named + 1 (R0..Rn-1): what the code touches
  int compares = 0;       // ISETP (integer compares: bounds checks)
  int predicated = 0;     // instructions under a guard predicate (@P0, @!P1; not @PT)
  int guarded_exits = 0;  // predicated EXIT and BRA: the early returns of bounds checks
  int imad = 0, lea = 0, iadd3 = 0, shifts = 0;  // address arithmetic: IMAD*, LEA*, IADD3, SHF
};
SassSummary summarize_sass(const std::string& function_text);

// Row texts, the same for both sides.
std::string format_checks(const SassSummary& s);      // "ISETP x1, predicated x2 (EXIT/BRA x1)"
std::string format_addressing(const SassSummary& s);  // "IMAD x2, LEA x1, IADD3 x0, SHF x0"

// What differs between `a` and `b` ("CUDA" and "Vulkan"), one item each: global memory forms,
// instructions, registers, bounds checks, address arithmetic. Empty when nothing does.
std::vector<std::string> sass_differences(const SassSummary& a, const SassSummary& b);

}  // namespace cuvk::inspect
