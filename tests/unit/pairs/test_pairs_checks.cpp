// Issue 20: a pair's data files (.npy, raw), compile errors on both sides and the interface checks
// between the declaration, the CUDA signature (PTX) and the SPIR-V.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "pair.h"
#include "pairs_fixture.h"
#include "spirv_reflect.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;

// The message of the DeclarationError `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const DeclarationError& e) {  // the message, and the log beneath it where any
    return e.log().empty() ? std::string(e.what()) : std::string(e.what()) + "\n" + e.log();
  }
  return "";
}

#define EXPECT_ERROR(expr, part)                                  \
  do {                                                            \
    const std::string message_ = error_of([&] { (void)(expr); }); \
    EXPECT_NE(message_.find(part), std::string::npos)             \
        << "expected '" << (part) << "' in: " << message_;        \
  } while (0)

std::string npy(const std::string& descr, const std::string& shape, std::size_t data_bytes) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(data_bytes, '\x01');
}

std::string with_file(const std::string& type, const std::string& file) {
  return edit("type = \"f32\"\ncount = \"n\"",
              "type = " + type + "\ncount = \"n\"\ninit = \"file\"\nfile = \"" + file + "\"");
}

TEST(PairFilesTest, NpyAndRawFilesAreChecked) {
  PairFiles f;
  const std::string n16 = "name = \"k\"\nn = 16";
  f.write("good.npy", npy("<f4", "(16,)", 64));
  f.write("f8.npy", npy("<f8", "(16,)", 128));
  f.write("short.npy", npy("<f4", "(10,)", 40));
  f.write("cut.npy", npy("<f4", "(16,)", 60));
  f.write("fortran.npy", [] {
    std::string s = npy("<f4", "(4, 4)", 64);
    s.replace(s.find("False"), 5, "True ");
    return s;
  }());
  f.write("notnpy.npy", std::string(200, 'x'));
  f.write("good.raw", std::string(64, '\2'));
  f.write("bad.raw", std::string(63, '\2'));
  f.write("s.npy", npy("|V12", "(16,)", 192));
  f.write("s_u1.npy", npy("|u1", "(16, 12)", 192));
  auto parse = [&](const std::string& type, const std::string& file) {
    std::string text = with_file(type, file);
    return f.parse(text.replace(text.find("name = \"k\""), 10, n16));
  };
  const PairDeclaration d = parse("\"f32\"", "good.npy");
  const std::vector<std::uint8_t> bytes =
      load_buffer_file(d, d.buffers[0], d.buffers[0].init.file, 16);
  EXPECT_EQ(bytes, std::vector<std::uint8_t>(64, 1));
  EXPECT_NO_THROW(parse("\"f32\"", "good.raw"));
  EXPECT_NO_THROW(parse("\"struct\"\nbytes = 12", "s.npy"));
  EXPECT_NO_THROW(parse("\"struct\"\nbytes = 12", "s_u1.npy"));
  EXPECT_ERROR(parse("\"f32\"", "f8.npy"), "buffer 'a': " + f.path("f8.npy") +
                                               ": dtype '<f8' does not fit a buffer of type f32");
  EXPECT_ERROR(parse("\"f32\"", "short.npy"), "shape (10,) holds 10 elements, the buffer 16");
  EXPECT_ERROR(parse("\"f32\"", "cut.npy"), "60 bytes of data, the buffer needs 64 (16 x 4)");
  EXPECT_ERROR(parse("\"f32\"", "fortran.npy"), "fortran_order arrays are not read");
  EXPECT_ERROR(parse("\"f32\"", "notnpy.npy"), "not a .npy file");
  EXPECT_ERROR(parse("\"f32\"", "bad.raw"), "63 bytes of data, the buffer needs 64");
  EXPECT_ERROR(parse("\"struct\"\nbytes = 8", "s.npy"),
               "dtype '|V12' does not fit a buffer of type struct (8 bytes)");
  // At another n, the same file no longer fits.
  EXPECT_ERROR(load_buffer_file(d, d.buffers[0], d.buffers[0].init.file, 17),
               "shape (16,) holds 16 elements, the buffer 17");
}

TEST(PairCompile, GlslErrorsCarryTheLog) {
  PairFiles f;
  f.write("k.comp",
          "#version 450\nlayout(local_size_x_id = 0) in;\nvoid main() { undeclared = 1; }\n");
  const PairDeclaration d = f.parse(kMinimal);
  const std::string m = error_of([&] { compile_glsl(d, cuvk::Binding::descriptor); });
  EXPECT_EQ(m.rfind(f.path("p.toml") + ": GLSL compile failed: " + f.path("k.comp"), 0), 0u) << m;
  EXPECT_NE(m.find(f.path("k.comp") + ":3: error: 'undeclared' : undeclared identifier"),
            std::string::npos)
      << m;
  EXPECT_ERROR(compile_glsl(d, cuvk::Binding::bda), "the shader declares no bda form");
}

TEST(PairCompile, BadSpirvFilesAreNamed) {
  PairFiles f;
  f.write("junk.spv", std::string(64, 'x'));
  std::string words(20, '\0');
  const std::uint32_t header[5] = {0x07230203u, 0x00010300u, 0, 10, 0};
  std::memcpy(words.data(), header, 20);
  f.write("empty.spv", words + std::string(8, '\xff'));
  PairDeclaration d = f.parse(edit("source = \"k.comp\"", "spirv = \"junk.spv\""));
  EXPECT_ERROR(compile_glsl(d, cuvk::Binding::descriptor),
               "glsl.spirv: '" + f.path("junk.spv") + "' is not a SPIR-V module");
  d = f.parse(edit("source = \"k.comp\"", "spirv = \"empty.spv\""));
  EXPECT_ERROR(compile_glsl(d, cuvk::Binding::descriptor),
               "SPIR-V validation failed: " + f.path("empty.spv"));
}

TEST(PairCompile, CudaErrorsCarryTheLog) {
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  PairFiles f;
  f.write("k.cu", "extern \"C\" __global__ void k(float* a, unsigned n) { a[0] = undeclared; }\n");
  const PairDeclaration d = f.parse(kMinimal);
  const std::string m = error_of([&] { compile_cuda(d, kDefaultCudaArch); });
  EXPECT_EQ(m.rfind(f.path("p.toml") + ": CUDA compile failed: " + f.path("k.cu") + " (NVRTC ", 0),
            0u)
      << m;
  EXPECT_NE(m.find("identifier \"undeclared\" is undefined"), std::string::npos) << m;
}

// Issue 36: a misspelt entry was NVRTC's name-map noise ('__nv_name_map(2): error: identifier
// "kernel" is undefined'); now it names the entry, the source and the kernels it has, as written.
TEST(PairCompile, AMisspeltEntryIsNamedWithTheKernelsTheSourceHas) {
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  PairFiles f;
  const PairDeclaration wrong_entry = f.parse(edit("entry = \"k\"", "entry = \"kernel\""));
  EXPECT_EQ(error_of([&] { compile_cuda(wrong_entry, kDefaultCudaArch); }),
            f.path("p.toml") + ": cuda.entry 'kernel' is not a __global__ function of k.cu (it has: k)");
  f.write("k.cu", "__global__ void gather(float* a, unsigned n) { a[0] = n; }\n"
                  "template <typename T> __global__ void scale(T* a) { a[0] *= 2; }\n"
                  "template __global__ void scale<float>(float*);\n"
                  "__device__ float helper(float x) { return x; }\n");
  const PairDeclaration misspelt = f.parse(edit("entry = \"k\"", "entry = \"gahter\""));
  EXPECT_EQ(error_of([&] { compile_cuda(misspelt, kDefaultCudaArch); }),
            f.path("p.toml") +
                ": cuda.entry 'gahter' is not a __global__ function of k.cu (it has: gather, "
                "scale<float>)");
  // A source with errors of its own still shows NVRTC's log, not the list.
  f.write("k.cu", "__global__ void gather(float* a) { a[0] = undeclared; }\n");
  EXPECT_ERROR(compile_cuda(misspelt, kDefaultCudaArch), "identifier \"undeclared\" is undefined");
}

TEST(PairCompile, PtxKernelNamesAreTheEntriesAsWritten) {
  const std::string ptx =
      ".visible .entry gather(\n\t.param .u64 gather_param_0\n)\n"
      ".visible .entry _Z5scaleIfEvPT_(\n)\n// .entry commented(\n.weak .entry _Z1kPfj(\n)\n";
  EXPECT_EQ(ptx_kernel_names(ptx), (std::vector<std::string>{"gather", "scale<float>", "k"}));
}

TEST(PairCompile, CudaProducesPtxCubinAndTheLoweredName) {
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  PairFiles f;
  f.write("k.cu",
          "__global__ void k(float* a, unsigned n) { if (threadIdx.x < n) a[threadIdx.x] = 1; }\n");
  const CompiledCuda c = compile_cuda(f.parse(kMinimal), 80);
  EXPECT_EQ(c.arch, 80);
  EXPECT_EQ(c.lowered_name, "_Z1kPfj");  // a C++ kernel: the mangled name
  EXPECT_NE(c.ptx.find(".target sm_80"), std::string::npos);
  ASSERT_GE(c.cubin.size(), 4u);
  EXPECT_EQ(std::memcmp(c.cubin.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_NE(c.compiler.find("NVRTC "), std::string::npos);
  EXPECT_NE(c.ptxas_log.find("Used "), std::string::npos) << c.ptxas_log;  // registers, for inspect
  EXPECT_EQ(c.log.find("ptxas"), std::string::npos) << c.log;              // not a warning
  EXPECT_EQ(c.options.front(), "--gpu-architecture=sm_80");
}

// Issue 36: a source without a folder ("k.cu": `cuvk run --pair k.toml` in the declaration's
// folder) gets "-I." — a bare "-I" swallowed the toolkit's include as its folder.
TEST(PairCompile, NvrtcOptionsNameTheSourcesFolderEvenWhenItIsTheCurrentOne) {
  const std::vector<std::string> here = nvrtc_options(90, "k.cu", "/cuda/include", {"-DX=1"});
  const std::vector<std::string> want = {"--gpu-architecture=sm_90", "--std=c++17",
                                         "--ptxas-options=-v", "-I.", "-I/cuda/include", "-DX=1"};
  EXPECT_EQ(here, want);
  EXPECT_EQ(nvrtc_options(80, "./k.cu", "", {}).back(), "-I.");
  const std::vector<std::string> there = nvrtc_options(90, "/p/q/k.cu", "", {});
  EXPECT_EQ(there.size(), 4u);  // no toolkit include: no -I for it
  EXPECT_EQ(there.back(), "-I/p/q");
  for (const auto& o : nvrtc_options(90, "k.cu", "/cuda/include", {})) EXPECT_NE(o, "-I");
}

// The same end to end: a declaration read as "p.toml" from its own folder compiles a source that
// includes a toolkit header (before the fix: "cuda_fp16.h: cannot open source file").
TEST(PairCompile, ADeclarationInTheCurrentFolderFindsTheToolkitHeaders) {
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  PairFiles f;
  f.write("k.cu", std::string("#include <cuda_fp16.h>\n") + kCuda);
  f.write("p.toml", kMinimal);
  const fs::path before = fs::current_path();
  fs::current_path(fs::path(f.path("p.toml")).parent_path());
  std::string error;
  CompiledCuda c;
  try {
    c = compile_cuda(read_pair_file("p.toml"), kDefaultCudaArch);
  } catch (const std::exception& e) {
    error = e.what();
  }
  fs::current_path(before);
  EXPECT_EQ(error, "");
  EXPECT_NE(std::find(c.options.begin(), c.options.end(), "-I."), c.options.end());
}

// One mismatch between the declaration and a kernel, and the words the error must carry.
struct Mismatch {
  const char* label;
  const char* from;  // edit of the declaration
  const char* to;
  const char* cuda;  // "" = the fixture's kernel
  const char* glsl;
  const char* error;
};
std::ostream& operator<<(std::ostream& os, const Mismatch& m) {
  return os << m.label;
}

class InterfaceMismatch : public testing::TestWithParam<Mismatch> {};

TEST_P(InterfaceMismatch, IsFoundBeforeLaunch) {
  const Mismatch& c = GetParam();
  PairFiles f;
  if (*c.cuda) f.write("k.cu", c.cuda);
  if (*c.glsl)
    f.write("k.comp", std::string("#version 450\nlayout(local_size_x_id = 0) in;\n") + c.glsl);
  const PairDeclaration d = f.parse(*c.from ? edit(c.from, c.to) : std::string(kMinimal));
  std::string m;
  if (*c.cuda) {
    if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
    const CompiledCuda cu = compile_cuda(d, kDefaultCudaArch);
    m = error_of([&] { check_interfaces(d, &cu, nullptr); });
  } else {
    const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
    m = error_of([&] { check_interfaces(d, nullptr, &spv); });
  }
  EXPECT_EQ(m.rfind(f.path("p.toml") + ": ", 0), 0u) << m;
  EXPECT_NE(m.find(c.error), std::string::npos) << "expected '" << c.error << "' in: " << m;
}

const char* kTwoBuffers = "[[buffer]]\nname = \"b\"\ntype = \"f32\"\ncount = \"n\"\n[[scalar]]";
const char* kPush = "layout(push_constant) uniform S { uint n; };\n";
const char* kA = "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\n";

INSTANTIATE_TEST_SUITE_P(
    Pairs, InterfaceMismatch,
    testing::Values(
        Mismatch{
            "cuda_parameter_count", "[[scalar]]", kTwoBuffers, kCuda, "",
            "cuda.entry 'k' takes 2 parameters; the declaration has 2 buffers + 1 scalars = 3"},
        Mismatch{"cuda_scalar_type", "type = \"u32\"", "type = \"f32\"", kCuda, "",
                 "parameter 1 is '.param .u32 k_param_1'; scalar[0] 'n' is f32 (4 bytes)"},
        Mismatch{"cuda_scalar_size", "type = \"u32\"", "type = \"u64\"", kCuda, "",
                 "scalar[0] 'n' is u64 (8 bytes)"},
        Mismatch{"cuda_buffer_not_pointer", "", "",
                 "extern \"C\" __global__ void k(unsigned a, unsigned n) {}\n", "",
                 "parameter 0 is '.param .u32 k_param_0' (4 bytes); buffer[0] 'a' needs a pointer"},
        Mismatch{"spirv_missing_binding", "[[scalar]]", kTwoBuffers, "",
                 "layout(std430, set = 0, binding = 0) buffer A { float a[]; "
                 "};\nlayout(push_constant) uniform S { uint n; };\nvoid main() {}\n",
                 "buffer[1] 'b' (f32): the shader has no storage buffer at set 0, binding 1"},
        Mismatch{"spirv_extra_binding", "", "", "",
                 "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\nlayout(std430, "
                 "set = 0, binding = 3) buffer B { float b[]; };\nlayout(push_constant) uniform S "
                 "{ uint n; };\nvoid main() {}\n",
                 "the shader binds 'B' (set 0, binding 3)"},
        Mismatch{"spirv_other_set", "", "", "",
                 "layout(std430, set = 1, binding = 0) buffer A { float a[]; "
                 "};\nlayout(push_constant) uniform S { uint n; };\nvoid main() {}\n",
                 "(set 1, binding 0)"},
        Mismatch{"spirv_element_type", "type = \"f32\"", "type = \"i32\"", "",
                 "layout(std430, set = 0, binding = 0) buffer A { float a[]; "
                 "};\nlayout(push_constant) uniform S { uint n; };\nvoid main() {}\n",
                 "buffer[0] 'a' (i32): the shader's 'A' has elements of float"},
        Mismatch{"spirv_struct_stride", "type = \"f32\"", "type = \"struct\"\nbytes = 12", "",
                 "struct P { float x, y, z, w; };\nlayout(std430, set = 0, binding = 0) buffer A { "
                 "P a[]; };\nlayout(push_constant) uniform S { uint n; };\nvoid main() {}\n",
                 "has elements of P (array stride 16)"},
        Mismatch{"spirv_push_count", "", "", "",
                 "layout(std430, set = 0, binding = 0) buffer A { float a[]; "
                 "};\nlayout(push_constant) uniform S { uint n; uint m; };\nvoid main() {}\n",
                 "the push-constant block has 2 members; the declaration has 1 scalars"},
        Mismatch{"spirv_no_push", "", "", "",
                 "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\nvoid main() {}\n",
                 "the push-constant block has 0 members; the declaration has 1 scalars"},
        Mismatch{
            "spirv_push_type", "type = \"u32\"", "type = \"f32\"", "",
            "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\nlayout(push_constant) "
            "uniform S { uint n; };\nvoid main() {}\n",
            "scalar[0] 'n' is f32 at offset 0; push-constant member 0 'n' is uint at offset 0"},
        // Issue 31's mutation audit: only the width differs (same kind, same offset).
        Mismatch{
            "spirv_push_width", "type = \"u32\"", "type = \"u64\"", "",
            "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\nlayout(push_constant) "
            "uniform S { uint n; };\nvoid main() {}\n",
            "scalar[0] 'n' is u64 at offset 0; push-constant member 0 'n' is uint at offset 0"},
        Mismatch{
            "spirv_push_offset", "", "", "",
            "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\nlayout(push_constant) "
            "uniform S { layout(offset = 4) uint n; };\nvoid main() {}\n",
            "'n' is uint at offset 4"}));

TEST(PairInterfaces, FixedWorkgroupSizeIsRefused) {
  PairFiles f;
  f.write("k.comp", std::string("#version 450\nlayout(local_size_x = 64) in;\n") + kA + kPush +
                        "void main() {}\n");
  const PairDeclaration d = f.parse(kMinimal);
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_ERROR(check_interfaces(d, nullptr, &spv),
               "declare `layout(local_size_x_id = 0) in;` (the shader has LocalSize 64 1 1)");
}

// Issue 46: a project's own `layout(constant_id = 0) const bool` beside `local_size_x_id = 0`
// shares SpecId 0 with the workgroup size. cuvk sets SpecId 0 to the block size, which would set
// the flag too (silently wrong outputs); with the two declarations in the other order the shader
// was refused as having "LocalSize 1 1 1". Both orders are refused, naming the constant.
TEST(PairInterfaces, ASpecIdSizingTheWorkgroupAndAFlagIsRefusedInEitherOrder) {
  const std::string flag = "layout(constant_id = 0) const bool USE_BIAS = false;\n";
  const std::string size = "layout(local_size_x_id = 0) in;\n";
  for (const std::string& head : {flag + size, size + flag}) {
    PairFiles f;
    f.write("k.comp", "#version 450\n" + head + kA + kPush +
                          "void main() { if (USE_BIAS) a[gl_GlobalInvocationID.x] = 1.0; }\n");
    const PairDeclaration d = f.parse(kMinimal);
    const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
    EXPECT_ERROR(check_interfaces(d, nullptr, &spv),
                 "SpecId 0 sizes the workgroup (local_size_x_id = 0) and also decorates the "
                 "constant 'USE_BIAS': one value would set both; give 'USE_BIAS' another "
                 "constant_id");
  }
}

TEST(PairInterfaces, AFlagAtItsOwnSpecIdIsAcceptedAndAnotherSizingIdIsNamed) {
  PairFiles f;
  f.write("k.comp", std::string("#version 450\nlayout(constant_id = 1) const bool USE_BIAS = "
                                "false;\nlayout(local_size_x_id = 0) in;\n") +
                        kA + kPush + "void main() { if (USE_BIAS) a[0] = 1.0; }\n");
  const PairDeclaration d = f.parse(kMinimal);
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_NO_THROW(check_interfaces(d, nullptr, &spv));
  const cuvk::spirv::Module m = cuvk::spirv::reflect(spv.words.data(), spv.words.size());
  ASSERT_EQ(m.execution.size_spec_id, std::optional<std::uint32_t>(0));
  ASSERT_EQ(m.execution.spec_constants.size(), 2u);

  PairFiles g;  // the workgroup from SpecId 3: said as such (was "the shader has LocalSize 1 1 1")
  g.write("k.comp", std::string("#version 450\nlayout(local_size_x_id = 3) in;\n") + kA + kPush +
                        "void main() {}\n");
  const PairDeclaration e = g.parse(kMinimal);
  const CompiledSpirv other = compile_glsl(e, cuvk::Binding::descriptor);
  EXPECT_ERROR(check_interfaces(e, nullptr, &other),
               "declare `layout(local_size_x_id = 0) in;` (the shader's is specialization "
               "constant 3)");
}

TEST(PairInterfaces, BdaFormNeedsAddressesAfterTheScalars) {
  PairFiles f;
  f.write("k.comp", std::string("#version 450\n#extension GL_EXT_buffer_reference : require\n"
                                "layout(local_size_x_id = 0) in;\n"
                                "#ifdef CUVK_BDA\n"
                                "layout(buffer_reference, std430) buffer R { int v[]; };\n"
                                "layout(push_constant) uniform S { uint n; R a; };\n"
                                "#else\n") +
                        kA + kPush + "#endif\nvoid main() {}\n");
  const PairDeclaration d =
      f.parse(edit("source = \"k.comp\"", "source = \"k.comp\"\nbda_defines = [\"CUVK_BDA\"]"));
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::bda);
  EXPECT_ERROR(check_interfaces(d, nullptr, &spv),
               "SPIR-V (bda form) vs declaration: buffer[0] 'a' (f32): the shader's reference 'a' "
               "has elements of int");
  const CompiledSpirv descriptor = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_NO_THROW(check_interfaces(d, nullptr, &descriptor));
}

}  // namespace

// Issue 36 item 9: past the device's grid x a `threads` launch is folded into y; a shader that
// indexes by gl_GlobalInvocationID.x alone then repeats y = 0's indices and leaves elements
// unwritten. Reading the declaration warns where a block size of the run folds.
TEST(PairGeometry, AShaderThatIndexesByXAloneIsWarnedAboutWhereTheGridFolds) {
  PairFiles f;  // the fixture's shader: i = gl_GlobalInvocationID.x
  const PairDeclaration d = f.parse(kMinimal);
  const CompiledSpirv x_only = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_FALSE(cuvk::spirv::grid_y_reads(x_only.words.data(), x_only.words.size()).any());
  const std::uint64_t n = 1u << 24;  // 65536 blocks of 256, 32768 of 512
  const std::string warning = fold_warning(d, x_only, n, {512, 256}, 65535);
  EXPECT_NE(warning.find("p.toml: k.comp (descriptor form) reads neither gl_WorkGroupID.y, "
                         "gl_NumWorkGroups nor gl_GlobalInvocationID.y, but at block 256 "
                         "launch.threads = 16777216 takes 65536 workgroups, more than the "
                         "device's 65535 in x: the grid is folded into y"),
            std::string::npos)
      << warning;
  EXPECT_EQ(fold_warning(d, x_only, n, {512}, 65535), "");          // no block size folds
  EXPECT_EQ(fold_warning(d, x_only, n, {256}, 2147483647u), "");    // nor on a larger grid x
  EXPECT_EQ(fold_warning(d, x_only, n, {256}, 0), "");              // an unknown device: silent
  const PairDeclaration grid = f.parse(edit("threads = \"n\"", "grid = [\"n / 256\", \"1\"]"));
  EXPECT_EQ(fold_warning(grid, x_only, n, {256}, 65535), "");  // a named grid is never folded
  const PairDeclaration fixed = f.parse(edit("threads = \"n\"", "threads = \"n\"\nblock_sizes = [512]"));
  EXPECT_EQ(fold_warning(fixed, x_only, n, {256}, 65535), "");  // the declaration's block sizes

  // Shaders that read the grid's y, each a different way: no warning.
  const std::string head = std::string("#version 450\nlayout(local_size_x_id = 0) in;\n") +
                           "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\n" +
                           "layout(push_constant) uniform S { uint n; };\n";
  struct Case {
    const char* label;
    const char* index;
    bool workgroup_id_y, num_workgroups, global_id_y;
  };
  for (const Case& c : {
           Case{"the full formula",
                "(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * "
                "gl_WorkGroupSize.x + gl_LocalInvocationID.x",
                true, true, false},
           Case{"gl_GlobalInvocationID.y", "gl_GlobalInvocationID.y * 65535u * 256u + "
                                           "gl_GlobalInvocationID.x",
                false, false, true},
           Case{"the vector passed on (counted as read)",
                "gl_GlobalInvocationID.x + uint(length(vec3(gl_GlobalInvocationID)))", false, false,
                true},
           Case{"gl_WorkGroupID.y alone", "gl_WorkGroupID.y * 16777216u + gl_GlobalInvocationID.x",
                true, false, false}}) {
    SCOPED_TRACE(c.label);
    f.write("k.comp", head + "void main() { uint i = " + c.index + "; if (i < n) a[i] += 1.0; }\n");
    const CompiledSpirv full = compile_glsl(f.parse(kMinimal), cuvk::Binding::descriptor);
    const cuvk::spirv::GridYReads reads =
        cuvk::spirv::grid_y_reads(full.words.data(), full.words.size());
    EXPECT_EQ(reads.workgroup_id_y, c.workgroup_id_y);
    EXPECT_EQ(reads.num_workgroups, c.num_workgroups);
    EXPECT_EQ(reads.global_id_y, c.global_id_y);
    EXPECT_EQ(fold_warning(d, full, n, {256}, 65535), "");
  }
}
