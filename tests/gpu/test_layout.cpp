// The layout check (host/layout_check.h): every buffer and push-constant block of every embedded
// SPIR-V module, reflected from the words, against the C++/CUDA structs; and proof that the check
// catches a wrong layout (a vec3 snippet compiled at build time, and a wrong C++ expectation).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "inspect_printer.h"
#include "kernel_inspection.h"
#include "layout_check.h"
#include "layout_mismatch.h"  // tests/glsl/layout_mismatch.comp, compiled by tests/CMakeLists.txt
#include "spirv_modules.h"
#include "spirv_reflect.h"

using namespace cuvk;

namespace {

std::string failures(const std::vector<LayoutCheck>& checks) {
  std::string s;
  for (const LayoutCheck& c : checks)
    if (!c.ok) s += "\n  " + c.where + ": GLSL " + c.glsl + ", C++ " + c.cpp;
  return s;
}

bool has_check(const std::vector<LayoutCheck>& checks, const std::string& where_part) {
  return std::any_of(checks.begin(), checks.end(), [&](const LayoutCheck& c) {
    return c.where.find(where_part) != std::string::npos;
  });
}

// The embedded module of that name; null when it is gone (renamed), which the callers assert.
const SpirvModule* module_named(const std::string& name) {
  for (const SpirvModule& m : spirv_modules())
    if (name == m.name) return &m;
  return nullptr;
}

spirv::Module mismatch_module() {
  return spirv::reflect(cuvk_spirv_layout_mismatch,
                        sizeof(cuvk_spirv_layout_mismatch) / sizeof(std::uint32_t));
}

}  // namespace

TEST(Layout, EveryEmbeddedModuleMatchesTheCppStructs) {
  ASSERT_FALSE(spirv_modules().empty());
  for (const SpirvModule& m : spirv_modules()) {
    SCOPED_TRACE(m.name);
    const spirv::Module r = spirv::reflect(m.code, m.words);
    const std::vector<LayoutCheck> checks = check_layouts(r, m.name);
    EXPECT_TRUE(failures(checks).empty()) << failures(checks);
    // Every kernel has its push constants and an input and an output buffer to check.
    EXPECT_TRUE(has_check(checks, "push constants")) << m.name;
    EXPECT_TRUE(has_check(checks, "CuvkIn.")) << m.name;
    EXPECT_TRUE(has_check(checks, "CuvkOut.")) << m.name;
  }
}

TEST(Layout, BdaModulesReachBuffersThroughPushConstantPointers) {
  for (const SpirvModule& m : spirv_modules()) {
    const std::string name = m.name;
    const bool bda = name.size() > 4 && name.compare(name.size() - 4, 4, "_bda") == 0;
    const bool traced = name.find("_trace") != std::string::npos;  // `cuvk trace`: + the trace
    const long buffers = traced ? 3 : 2;
    const spirv::Module r = spirv::reflect(m.code, m.words);
    std::vector<std::uint32_t> classes;
    for (const spirv::Block& b : r.blocks) classes.push_back(b.storage_class);
    const auto n = [&classes](std::uint32_t sc) { return std::count(classes.begin(), classes.end(), sc); };
    EXPECT_EQ(n(spirv::kPushConstant), 1) << name;
    EXPECT_EQ(n(bda ? spirv::kPhysicalStorageBuffer : spirv::kStorageBuffer), buffers) << name;
    EXPECT_EQ(n(bda ? spirv::kStorageBuffer : spirv::kPhysicalStorageBuffer), 0) << name;
    for (const spirv::Block& b : r.blocks)
      if (b.storage_class == spirv::kStorageBuffer) {
        EXPECT_EQ(b.set.value_or(99), 0u) << name;
        EXPECT_TRUE(b.binding == 0u || b.binding == 1u || (traced && b.binding == 2u)) << name;
      }
  }
}

TEST(Layout, ReflectionReadsOffsetsStridesAndNames) {
  const SpirvModule* aos = nullptr;
  for (const SpirvModule& m : spirv_modules())
    if (std::string(m.name) == "read_x_aos") aos = &m;
  ASSERT_NE(aos, nullptr);
  const spirv::Module r = spirv::reflect(aos->code, aos->words);
  bool seen = false;
  for (const auto& [id, t] : r.types) {
    if (t.kind != spirv::Type::Kind::runtime_array || r.type_name(t.element) != "CuvkParticle") continue;
    seen = true;
    EXPECT_EQ(t.array_stride.value_or(0), 16u);
    const spirv::Type* p = r.type(t.element);
    ASSERT_EQ(p->members.size(), 4u);
    EXPECT_EQ(p->members[3].name, "w");
    EXPECT_EQ(p->members[3].offset.value_or(0), 12u);
    EXPECT_EQ(r.size_of(t.element), 16u);
  }
  EXPECT_TRUE(seen);
}

// The check itself must fail on a deliberately mismatched struct: a GLSL particle {float x; vec3
// yzw;} against the C++ CuvkParticle {x, y, z, w}.
TEST(Layout, Vec3StructIsReportedAsAMismatch) {
  const spirv::Module r = mismatch_module();
  const std::vector<LayoutCheck> checks = check_layouts(r, "layout_mismatch");
  const std::string report = failures(checks);
  EXPECT_FALSE(report.empty());
  auto failed = [&checks](const std::string& where_part, const std::string& glsl, const std::string& cpp) {
    return std::any_of(checks.begin(), checks.end(), [&](const LayoutCheck& c) {
      return !c.ok && c.where.find(where_part) != std::string::npos && c.glsl == glsl &&
             c.cpp.rfind(cpp, 0) == 0;
    });
  };
  EXPECT_TRUE(failed("particles[] array stride", "32", "16")) << report;  // sizeof(CuvkParticle)
  EXPECT_TRUE(failed("(CuvkParticle).yzw offset", "16", "4")) << report;  // offsetof(..., y)
  EXPECT_TRUE(failed("(CuvkParticle) member count", "2", "4")) << report;
}

// ... and on a wrong expectation on the C++ side: the real read_x_aos shader against a C++ twin
// whose y sits at offset 8 (as if a padding float had slipped in).
TEST(Layout, WrongCppExpectationIsReportedAsAMismatch) {
  std::vector<CppLayout> wrong = cpp_layouts();
  for (CppLayout& l : wrong)
    if (l.glsl_name == "CuvkParticle") {
      l.members[1].offset = 8;
      l.size = 20;
    }
  const SpirvModule* m = module_named("read_x_aos");
  ASSERT_NE(m, nullptr) << "no embedded SPIR-V module read_x_aos";
  const std::vector<LayoutCheck> checks =
      check_layouts(spirv::reflect(m->code, m->words), m->name, wrong);
  const std::string report = failures(checks);
  EXPECT_NE(report.find("CuvkIn.particles[] array stride: GLSL 16, C++ 20"), std::string::npos)
      << report;
  EXPECT_NE(report.find(".y offset: GLSL 4, C++ 8"), std::string::npos) << report;
}

TEST(Layout, TypeWithoutCppTwinIsAFailure) {
  std::vector<CppLayout> none;
  for (const CppLayout& l : cpp_layouts())
    if (l.glsl_name != "vec4") none.push_back(l);
  const SpirvModule* m = module_named("copy_vec4");
  ASSERT_NE(m, nullptr) << "no embedded SPIR-V module copy_vec4";
  const std::string report =
      failures(check_layouts(spirv::reflect(m->code, m->words), m->name, none));
  EXPECT_NE(report.find("element type: GLSL vec4, C++ no C++ twin"), std::string::npos) << report;
}

// A struct of 32-bit scalars needs no hand-kept twin: its C layout (member k at 4*k) is derived,
// so read_x_aos checks out even with CuvkParticle taken out of the table.
TEST(Layout, ScalarStructWithoutTwinGetsADerivedTwin) {
  std::vector<CppLayout> without;
  for (const CppLayout& l : cpp_layouts())
    if (l.glsl_name != "CuvkParticle") without.push_back(l);
  const SpirvModule* m = module_named("read_x_aos");
  ASSERT_NE(m, nullptr) << "no embedded SPIR-V module read_x_aos";
  const std::vector<LayoutCheck> checks =
      check_layouts(spirv::reflect(m->code, m->words), m->name, without);
  EXPECT_EQ(failures(checks), "");
  EXPECT_TRUE(std::any_of(checks.begin(), checks.end(), [](const LayoutCheck& c) {
    return c.cpp.find("derived") != std::string::npos;
  }));
}

TEST(Layout, NotSpirvIsAnError) {
  const std::uint32_t junk[] = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(spirv::reflect(junk, 6), std::exception);
  EXPECT_THROW(spirv::reflect(junk, 2), std::exception);
}

// The verdict travels: a mismatching module's checks reach inspect's analysis (its count is
// `cuvk inspect`'s exit status: tests/CMakeLists.txt, inspect_layout_mismatch) and the report's
// layout row; the embedded modules' inspection counts none.
TEST(Layout, MismatchesReachTheInspectionAndItsReport) {
  inspect::VulkanSide v;
  v.module_name = "layout_mismatch";
  v.code = cuvk_spirv_layout_mismatch;
  v.words = sizeof(cuvk_spirv_layout_mismatch) / sizeof(std::uint32_t);
  v.reflected = mismatch_module();
  v.layout = check_layouts(v.reflected, v.module_name);
  const std::ptrdiff_t failed =
      std::count_if(v.layout.begin(), v.layout.end(), [](const LayoutCheck& c) { return !c.ok; });
  ASSERT_GT(failed, 0);
  const inspect::KernelInspection k =
      inspect::inspect_kernel("layout_mismatch", inspect::CudaSide{}, {v}, {128, 256}, false);
  EXPECT_EQ(k.layout_mismatches, failed);
  EXPECT_EQ(k.shown, 256u);
  ASSERT_EQ(k.occupancy.size(), 2u);
  std::ostringstream out;
  print_kernel_inspection(out, k, false);
  const std::string report = out.str();
  const std::size_t row = report.find("std430 layout vs C++");
  ASSERT_NE(row, std::string::npos) << report;
  const std::string line = report.substr(row, report.find('\n', row) - row);
  EXPECT_NE(line.find("Vulkan descriptor"), std::string::npos) << line;
  EXPECT_NE(line.find("  " + std::to_string(failed) + " MISMATCHES: "), std::string::npos) << line;

  const SpirvModule* read_x = module_named("read_x_aos");
  ASSERT_NE(read_x, nullptr);
  inspect::VulkanSide ok;
  ok.module_name = read_x->name;
  ok.code = read_x->code;
  ok.words = read_x->words;
  ok.reflected = spirv::reflect(ok.code, ok.words);
  ok.layout = check_layouts(ok.reflected, ok.module_name);
  EXPECT_EQ(inspect::inspect_kernel("read_x_aos", {}, {ok}, {256}, false).layout_mismatches, 0);
}
