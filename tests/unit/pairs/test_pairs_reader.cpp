// Issue 20: every error of the pair declaration reader names the file, the field and (where toml++
// says) the line; one case per mistake, each an edit of a declaration that reads fine.
#include <gtest/gtest.h>

#include <cstring>

#include "pair.h"
#include "pairs_fixture.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;
using cuvk::ElementType;
using cuvk::Tolerance;

struct Case {
  const char* label;
  const char* from;
  const char* to;
  const char* error;  // a part of the message
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.label;
}

class ReaderError : public testing::TestWithParam<Case> {};

TEST_P(ReaderError, NamesFileAndField) {
  const Case& c = GetParam();
  PairFiles files;
  const std::string text = edit(c.from, c.to);
  ASSERT_EQ(text.find("edit:"), std::string::npos) << text;
  try {
    files.parse(text);
    FAIL() << "no error for " << c.label;
  } catch (const DeclarationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(files.path("p.toml")), std::string::npos) << what;
    EXPECT_NE(what.find(c.error), std::string::npos) << "expected '" << c.error << "' in: " << what;
  }
}

const char* kBuffer = "[[buffer]]\nname = \"a\"\ntype = \"f32\"\ncount = \"n\"\noutput = true\n";
const char* kScalar = "[[scalar]]\nname = \"n\"\ntype = \"u32\"\nvalue = \"n\"\n";

INSTANTIATE_TEST_SUITE_P(
    Pairs, ReaderError,
    testing::Values(
        Case{"toml_syntax", "name = \"k\"", "name = \"k", "p.toml:1:"},
        Case{"character_tomlpp_mishandles", "name = \"k\"",
             "name = \"k\"\ndescription = \"caf\xc3\xa9\"",
             "p.toml:2: character U+00E9 is not read here (toml++ 3.3 mishandles it); write it as "
             "\\u00E9"},
        Case{"name_missing", "name = \"k\"\n", "", ": name: missing (a string)"},
        Case{"name_not_identifier", "name = \"k\"", "name = \"a b\"",
             "p.toml:1: name: 'a b' is not an identifier"},
        Case{"name_wrong_type", "name = \"k\"", "name = 7",
             "p.toml:1: name: must be a string, not an integer"},
        Case{"name_date", "name = \"k\"", "name = 1979-05-27",
             "name: must be a string, not a date or time"},
        Case{"unknown_root_key", "name = \"k\"", "name = \"k\"\ncolour = 1",
             "p.toml:2: colour: unknown key (known here: name,"},
        Case{"description_wrong_type", "name = \"k\"", "name = \"k\"\ndescription = 3",
             "description: must be a string"},
        Case{"n_zero", "name = \"k\"", "name = \"k\"\nn = 0",
             "p.toml:2: n: 0 is out of range [1, 4294967295]"},
        Case{"n_float", "name = \"k\"", "name = \"k\"\nn = 1.5",
             "n: must be an integer, not a float"},
        Case{"useful_bytes_missing", "useful_bytes = \"8 * n\"\n", "", "useful_bytes: missing"},
        Case{"useful_bytes_float", "useful_bytes = \"8 * n\"", "useful_bytes = 1.5",
             "p.toml:2: useful_bytes: must be an integer or an expression string, not a float"},
        Case{"useful_bytes_unknown_name", "\"8 * n\"", "\"8 * m\"",
             "p.toml:2: useful_bytes: '8 * m': unknown name 'm' at column 5 (known: n, block)"},
        Case{"useful_bytes_syntax", "\"8 * n\"", "\"8 * (n\"", "'8 * (n': expected ')' at the end"},
        Case{"useful_bytes_float_literal", "\"8 * n\"", "\"8.5 * n\"",
             "bad number at column 1 (integers only)"},
        Case{"useful_bytes_trailing", "\"8 * n\"", "\"8 * n )\"", "unexpected ')' at column 7"},
        Case{"useful_bytes_negative", "\"8 * n\"", "\"0 - n\"",
             "useful_bytes (at n = 16777216, block = 256): '0 - n' = -16777216 is out of range"},
        Case{"cuda_missing", "[cuda]\nsource = \"k.cu\"\nentry = \"k\"\n", "",
             "[cuda]: missing (a table)"},
        Case{"cuda_not_table", "[cuda]\nsource = \"k.cu\"\nentry = \"k\"\n", "cuda = 1\n",
             "cuda: must be a table, not an integer"},
        Case{"cuda_source_missing_file", "source = \"k.cu\"", "source = \"nope.cu\"",
             "p.toml:4: cuda.source: '"},
        Case{"cuda_entry_missing", "entry = \"k\"\n", "", "cuda.entry: missing"},
        Case{"cuda_entry_not_identifier", "entry = \"k\"", "entry = \"k()\"",
             "cuda.entry: 'k()' is not a C identifier"},
        Case{"cuda_options_not_strings", "entry = \"k\"", "entry = \"k\"\noptions = [1]",
             "p.toml:6: cuda.options: must be an array of strings"},
        Case{"cuda_unknown_key", "entry = \"k\"", "entry = \"k\"\nflags = []",
             "p.toml:6: cuda.flags: unknown key (known here: source, entry, options)"},
        Case{"glsl_missing", "[glsl]\nsource = \"k.comp\"\n", "", "[glsl]: missing"},
        Case{"glsl_source_and_spirv", "source = \"k.comp\"",
             "source = \"k.comp\"\nspirv = \"k.comp\"", "give exactly one of glsl.source"},
        Case{"glsl_neither", "source = \"k.comp\"\n", "", "give exactly one of glsl.source"},
        Case{"glsl_bad_define", "source = \"k.comp\"", "source = \"k.comp\"\ndefines = [\"1X\"]",
             "glsl.defines: '1X' is not NAME or NAME=VALUE"},
        Case{"glsl_bda_both", "source = \"k.comp\"",
             "source = \"k.comp\"\nbda_source = \"k.comp\"\nbda_spirv = \"k.comp\"",
             "at most one of glsl.bda_source and glsl.bda_spirv"},
        Case{"glsl_unknown_key", "source = \"k.comp\"", "source = \"k.comp\"\nstage = \"compute\"",
             "glsl.stage: unknown key"},
        Case{"launch_missing", "[launch]\nthreads = \"n\"\n", "", "[launch]: missing"},
        Case{"launch_threads_and_grid", "threads = \"n\"", "threads = \"n\"\ngrid = [1]",
             "exactly one of launch.threads"},
        Case{"launch_neither", "threads = \"n\"\n", "", "exactly one of launch.threads"},
        Case{"launch_grid_three", "threads = \"n\"", "grid = [1, 2, 3]",
             "launch.grid: must be an array of 1 or 2 entries"},
        Case{"launch_grid_bool", "threads = \"n\"", "grid = [true]",
             "launch.grid: entries must be integers or expression strings"},
        Case{"launch_grid_zero", "threads = \"n\"", "grid = [\"n - n\"]",
             "launch.grid[0] (at n = 16777216, block = 256): 'n - n' = 0 is out of range [1, "
             "4294967295]"},
        Case{"launch_threads_zero", "threads = \"n\"", "threads = \"n - n\"",
             "launch.threads (at n = 16777216, block = 256): 'n - n' = 0 is out of range"},
        Case{"launch_threads_unknown", "threads = \"n\"", "threads = \"blocks\"",
             "launch.threads: 'blocks': unknown name 'blocks'"},
        Case{"launch_block_too_big", "threads = \"n\"", "threads = \"n\"\nblock_sizes = [2048]",
             "launch.block_sizes: entries must be integers in [1, 1024]"},
        Case{"launch_block_twice", "threads = \"n\"", "threads = \"n\"\nblock_sizes = [256, 256]",
             "launch.block_sizes: 256 given twice"},
        Case{"launch_block_empty", "threads = \"n\"", "threads = \"n\"\nblock_sizes = []",
             "launch.block_sizes: must be a non-empty array"},
        Case{"launch_shared_negative", "threads = \"n\"", "threads = \"n\"\nshared_bytes = \"-1\"",
             "launch.shared_bytes (at n = 16777216, block = 256): '-1' = -1 is out of range"},
        Case{"launch_unknown_key", "threads = \"n\"", "threads = \"n\"\nwarps = 4",
             "launch.warps: unknown key"},
        Case{"buffer_missing", kBuffer, "", "buffer: missing (at least one [[buffer]])"},
        Case{"buffer_name_missing", "name = \"a\"\n", "", "buffer[0].name: missing"},
        Case{"buffer_type_unknown", "type = \"f32\"", "type = \"f16\"",
             "p.toml:12: buffer[0].type: unknown type 'f16' (f32, f64, i32, u32, raw16, struct)"},
        Case{"buffer_struct_without_bytes", "type = \"f32\"", "type = \"struct\"",
             "buffer[0].bytes: missing: type = \"struct\" needs its size"},
        Case{"buffer_bytes_not_struct", "type = \"f32\"", "type = \"f32\"\nbytes = 8",
             "buffer[0].bytes: only for type = \"struct\""},
        Case{"buffer_bytes_too_big", "type = \"f32\"", "type = \"struct\"\nbytes = 5000",
             "buffer[0].bytes: 5000 is out of range [1, 4096]"},
        Case{"buffer_count_missing", "count = \"n\"\n", "", "buffer[0].count: missing"},
        Case{"buffer_count_overflow", "count = \"n\"", "count = \"n * n * n * n\"",
             "buffer[0].count (at n = 16777216): 'n * n * n * n': overflows 64-bit integers"},
        Case{"buffer_count_division_by_zero", "count = \"n\"", "count = \"n / (n - n)\"",
             "buffer[0].count (at n = 16777216): 'n / (n - n)': division by zero"},
        Case{"buffer_count_zero", "count = \"n\"", "count = 0",
             "buffer[0].count (at n = 16777216): '0' = 0 is out of range"},
        Case{"buffer_count_block", "count = \"n\"", "count = \"block\"",
             "buffer[0].count: 'block': unknown name 'block'"},
        Case{"buffer_init_unknown", "count = \"n\"", "count = \"n\"\ninit = \"ones\"",
             "buffer[0].init: unknown init 'ones'"},
        Case{"buffer_value_without_constant", "count = \"n\"",
             "count = \"n\"\ninit = \"zero\"\nvalue = 1",
             "buffer[0].value: only with init = \"constant\" (init is \"zero\")"},
        Case{"buffer_constant_without_value", "count = \"n\"", "count = \"n\"\ninit = \"constant\"",
             "buffer[0].value: missing: init = \"constant\" needs a value"},
        Case{"buffer_file_missing", "count = \"n\"", "count = \"n\"\ninit = \"file\"",
             "buffer[0].file: missing"},
        Case{"buffer_file_unreadable", "count = \"n\"",
             "count = \"n\"\ninit = \"file\"\nfile = \"none.npy\"", "buffer[0].file: '"},
        Case{"buffer_file_without_init", "count = \"n\"", "count = \"n\"\nfile = \"k.cu\"",
             "buffer[0].file: only with init = \"file\" (init is \"random\")"},
        Case{"buffer_seed_with_zero", "count = \"n\"", "count = \"n\"\ninit = \"index\"\nseed = 3",
             "buffer[0].seed: only with init = \"random\""},
        Case{"buffer_seed_negative", "count = \"n\"", "count = \"n\"\nseed = -3",
             "buffer[0].seed: -3 is out of range"},
        Case{"buffer_min_not_below_max", "count = \"n\"", "count = \"n\"\nmin = 2.0\nmax = 1.0",
             "buffer[0].min: min (2.000000) must be below max (1.000000)"},
        Case{"buffer_min_nan", "count = \"n\"", "count = \"n\"\nmin = nan",
             "buffer[0].min: must be finite"},
        Case{"buffer_int_min_fraction", "type = \"f32\"", "type = \"u32\"\nmin = 0.5",
             "buffer[0].min: must be an integer in [0, 4294967295] for type u32"},
        Case{"buffer_range_raw16", "type = \"f32\"", "type = \"raw16\"\nmin = 1",
             "buffer[0].min: a range needs a numeric type"},
        Case{"buffer_constant_out_of_range", "type = \"f32\"",
             "type = \"i32\"\ninit = \"constant\"\nvalue = 3e9",
             "buffer[0].value: must be an integer in [-2147483648, 2147483647] for type i32"},
        Case{"buffer_output_not_bool", "output = true", "output = 1",
             "buffer[0].output: must be true or false, not an integer"},
        Case{"buffer_ulp_not_output", "output = true", "output = false\nulp = 4",
             "buffer[0].ulp: only for an output buffer"},
        Case{"buffer_expected_not_output", "output = true", "expected = \"k.cu\"",
             "buffer[0].expected: only for an output buffer"},
        Case{"buffer_ulp_and_abs", "output = true", "output = true\nulp = 4\nabs = 0.5",
             "buffer[0].abs: give at most one of ulp and abs"},
        Case{"buffer_ulp_on_integers", "type = \"f32\"", "type = \"u32\"\nulp = 4",
             "buffer[0].ulp: a ULP tolerance needs f32 or f64, not u32"},
        Case{"buffer_abs_negative", "output = true", "output = true\nabs = -1.0",
             "buffer[0].abs: must not be negative"},
        Case{"buffer_abs_on_struct", "type = \"f32\"", "type = \"struct\"\nbytes = 8\nabs = 1.0",
             "buffer[0].abs: an absolute tolerance needs a numeric type, not struct"},
        Case{"buffer_expected_unreadable", "output = true",
             "output = true\nexpected = \"none.npy\"", "buffer[0].expected: '"},
        Case{"buffer_unknown_key", "count = \"n\"", "count = \"n\"\ncolour = 1",
             "p.toml:14: buffer[0].colour: unknown key"},
        Case{"buffer_duplicate_name", "[[scalar]]",
             "[[buffer]]\nname = \"a\"\ntype = \"f32\"\ncount = 1\n[[scalar]]",
             "p.toml:16: buffer[1].name: 'a' names two buffers"},
        Case{"scalar_name_missing", "name = \"n\"\n", "", "scalar[0].name: missing"},
        Case{"scalar_type_unknown", "type = \"u32\"", "type = \"u16\"",
             "scalar[0].type: unknown type 'u16' (i32, u32, f32, i64, u64, f64)"},
        Case{"scalar_value_missing", "value = \"n\"\n", "", "scalar[0].value: missing"},
        Case{"scalar_float_for_integer", "value = \"n\"", "value = 1.5",
             "scalar[0].value: a float for an integer scalar of type u32"},
        Case{"scalar_value_bool", "value = \"n\"", "value = true",
             "scalar[0].value: must be a number or an expression string, not a boolean"},
        Case{"scalar_value_out_of_range", "type = \"u32\"\nvalue = \"n\"",
             "type = \"i32\"\nvalue = \"n * 1000\"",
             "scalar[0].value (at n = 16777216): 'n * 1000' = 16777216000 is out of range "
             "[-2147483648, 2147483647]"},
        Case{"scalar_u32_negative", "value = \"n\"", "value = -1",
             "scalar[0].value (at n = 16777216): '-1' = -1 is out of range [0, 4294967295]"},
        Case{"scalar_names_buffer", "name = \"n\"", "name = \"a\"",
             "scalar[0].name: 'a' also names a buffer"},
        Case{"scalar_unknown_key", "value = \"n\"", "value = \"n\"\nunit = \"s\"",
             "scalar[0].unit: unknown key"}));

TEST(PairReader, ScalarsMustBeTables) {
  PairFiles files;
  std::string text = std::string("scalar = 3\n") + kMinimal;
  text.erase(text.find(kScalar));
  try {
    files.parse(text);
    FAIL();
  } catch (const DeclarationError& e) {
    EXPECT_NE(
        std::string(e.what()).find("p.toml:1: scalar: must be an array of tables ([[scalar]])"),
        std::string::npos)
        << e.what();
  }
}

TEST(PairReader, AtMost32Buffers) {
  PairFiles files;
  std::string text = kMinimal;
  for (int i = 1; i <= 32; ++i)
    text += "[[buffer]]\nname = \"b" + std::to_string(i) + "\"\ntype = \"u32\"\ncount = 1\n";
  try {
    files.parse(text);
    FAIL();
  } catch (const DeclarationError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer: 33 entries, at most 32"), std::string::npos)
        << e.what();
  }
}

TEST(PairReader, ReadsEveryField) {
  PairFiles files;
  const std::string text = std::string(R"toml(name = "all"
description = "every field"
n = 1000
useful_bytes = "4 * n + block"
[cuda]
source = "k.cu"
entry = "k"
options = ["-DX=1", "-use_fast_math"]
[glsl]
source = "k.comp"
entry = "main"
defines = ["A", "B=2"]
bda_source = "k.comp"
bda_defines = ["CUVK_BDA"]
[launch]
grid = ["ceil_div(n, 32)", 2]
block_sizes = [64, 128]
shared_bytes = "block * 4"
[[buffer]]
name = "f"
type = "f64"
count = "n + 1"
init = "random"
seed = 42
min = -3.0
max = 3.0
[[buffer]]
name = "i"
type = "i32"
count = "n"
init = "constant"
value = -7
[[buffer]]
name = "u"
type = "u32"
count = "n"
init = "index"
output = true
abs = 2
[[buffer]]
name = "h"
type = "raw16"
count = "n"
init = "zero"
output = true
[[buffer]]
name = "s"
type = "struct"
bytes = 12
count = "n"
output = true
[[buffer]]
name = "o"
type = "f32"
count = "2 * n"
output = true
ulp = 3
[[scalar]]
name = "x"
type = "f32"
value = 0.25
[[scalar]]
name = "y"
type = "f64"
value = "n / 2"
[[scalar]]
name = "z"
type = "i64"
value = "-n"
[[scalar]]
name = "w"
type = "u64"
value = 5
)toml");
  const PairDeclaration d = files.parse(text);
  EXPECT_EQ(d.description, "every field");
  EXPECT_EQ(d.n, 1000u);
  EXPECT_EQ(d.cuda.options, (std::vector<std::string>{"-DX=1", "-use_fast_math"}));
  EXPECT_EQ(d.glsl.defines, (std::vector<std::string>{"A", "B=2"}));
  EXPECT_EQ(d.glsl.bda_source, files.path("k.comp"));
  EXPECT_EQ(d.glsl.bda_defines, (std::vector<std::string>{"CUVK_BDA"}));
  EXPECT_TRUE(supports_bda(d));
  EXPECT_EQ(d.launch.grid, (std::vector<std::string>{"ceil_div(n, 32)", "2"}));
  EXPECT_EQ(d.launch.block_sizes, (std::vector<std::uint32_t>{64, 128}));
  EXPECT_EQ(d.launch.shared_bytes, "block * 4");
  ASSERT_EQ(d.buffers.size(), 6u);
  EXPECT_EQ(d.buffers[0].type, ElementType::f64);
  EXPECT_EQ(d.buffers[0].element_bytes, 8u);
  EXPECT_EQ(d.buffers[0].init.seed, 42u);
  EXPECT_EQ(d.buffers[0].init.min, -3.0);
  EXPECT_EQ(d.buffers[0].init.max, 3.0);
  EXPECT_EQ(d.buffers[0].line, 19);
  EXPECT_EQ(d.buffers[1].init.kind, InitKind::constant);
  EXPECT_EQ(d.buffers[1].init.constant, -7.0);
  EXPECT_EQ(d.buffers[1].init.min, 0.0);  // integers default to [0, 1000]
  EXPECT_EQ(d.buffers[1].init.max, 1000.0);
  EXPECT_EQ(d.buffers[1].init.seed, 2u);  // 1 + index
  EXPECT_EQ(d.buffers[2].init.kind, InitKind::index);
  EXPECT_EQ(d.buffers[2].tolerance.kind, Tolerance::Kind::abs);
  EXPECT_EQ(d.buffers[2].tolerance.value, 2.0);
  EXPECT_EQ(d.buffers[3].element_bytes, 2u);
  EXPECT_EQ(d.buffers[3].init.kind, InitKind::zero);
  EXPECT_EQ(d.buffers[4].type, ElementType::bytes);
  EXPECT_EQ(d.buffers[4].element_bytes, 12u);
  EXPECT_EQ(d.buffers[5].tolerance.kind, Tolerance::Kind::ulp);
  EXPECT_EQ(d.buffers[5].tolerance.value, 3.0);
  EXPECT_EQ(d.buffers[5].tolerance.kind, Tolerance::Kind::ulp);
  ASSERT_EQ(d.scalars.size(), 4u);
  EXPECT_EQ(d.scalars[0].number, 0.25);
  EXPECT_EQ(d.scalars[1].value, "n / 2");
  EXPECT_EQ(scalar_layout(d).offsets, (std::vector<std::uint32_t>{0, 8, 16, 24}));
  const std::vector<std::uint8_t> bytes = pack_scalars(d, 1000);
  double y = 0;
  std::int64_t z = 0;
  std::memcpy(&y, bytes.data() + 8, 8);
  std::memcpy(&z, bytes.data() + 16, 8);
  EXPECT_EQ(y, 500.0);
  EXPECT_EQ(z, -1000);
}

}  // namespace

namespace {

// The push constants are the Vulkan device's to judge (issue 46: maxPushConstantsSize, 128 on
// lavapipe, 256 on NVIDIA; once a fixed 128 when the file was read): the scalars, and in the bda
// form the buffers' addresses after them, checked against the device before the module is loaded.
TEST(PairReader, PushConstantsFitTheDevicesLimit) {
  PairFiles files;
  std::string scalars = kMinimal;
  for (int i = 0; i < 16; ++i)
    scalars += "[[scalar]]\nname = \"s" + std::to_string(i) + "\"\ntype = \"f64\"\nvalue = 1.0\n";
  const PairDeclaration wide = files.parse(scalars);  // 136 bytes: the file alone is fine
  try {
    check_push_constant_room(wide, 128, "llvmpipe");
    FAIL();
  } catch (const DeclarationError& e) {
    EXPECT_NE(std::string(e.what()).find("scalar: the scalars take 136 bytes of push constants; the "
                                         "Vulkan device (llvmpipe) allows 128 (maxPushConstantsSize)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_push_constant_room(wide, 256, "NVIDIA H100"));
  std::string buffers = edit("source = \"k.comp\"", "source = \"k.comp\"\nbda_defines = [\"B\"]");
  for (int i = 0; i < 15; ++i)
    buffers += "[[buffer]]\nname = \"b" + std::to_string(i) + "\"\ntype = \"u32\"\ncount = 1\n";
  const PairDeclaration bda = files.parse(buffers);
  try {
    check_push_constant_room(bda, 128, "llvmpipe");
    FAIL();
  } catch (const DeclarationError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "the bda form's push constants (scalars, then 16 buffer addresses) take 136 bytes"),
        std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_push_constant_room(bda, 256, "NVIDIA H100"));
  // Without a bda form the addresses take no room: only the scalars count.
  std::string no_bda = buffers;
  no_bda.erase(no_bda.find("\nbda_defines = [\"B\"]"), std::string("\nbda_defines = [\"B\"]").size());
  const PairDeclaration plain = files.parse(no_bda);
  EXPECT_NO_THROW(check_push_constant_room(plain, 128, "llvmpipe"));
}

// Issue 49, class 10: a NUL in a string of the declaration (written \u0000 in TOML) would cut a
// path at it, so that `source = "k.comp\u0000.y"` silently compiled k.comp: refused, one line
// naming the file, the line and the field's path, for every string field (paths, names, defines).
TEST(PairReader, ANulInAnyStringIsRefusedNamingTheField) {
  PairFiles files;
  files.write("expected.raw", std::string(4, '\0'));
  const struct {
    const char* from;
    const char* to;
    const char* error;
  } cases[] = {
      {"source = \"k.comp\"", "source = \"k.comp\\u0000.y\"", ":7: glsl.source: the string holds"},
      {"source = \"k.cu\"", "source = \"k.cu\\u0000x\"", ":4: cuda.source: the string holds"},
      {"entry = \"k\"", "entry = \"k\\u0000\"", ":5: cuda.entry: the string holds"},
      {"output = true", "output = true\nexpected = \"expected.raw\\u0000\"",
       ":15: buffer[0].expected: the string holds"},
      {"source = \"k.comp\"", "source = \"k.comp\"\ndefines = [\"A\", \"B\\u0000=1\"]",
       ":8: glsl.defines[1]: the string holds"},
      {"name = \"k\"", "name = \"k\"\ndescription = \"a\\u0000b\"", ":2: description: the string"},
  };
  for (const auto& c : cases) {
    const std::string text = edit(c.from, c.to);
    ASSERT_EQ(text.find("edit:"), std::string::npos) << text;
    try {
      files.parse(text);
      ADD_FAILURE() << "read without complaint: " << c.to;
    } catch (const DeclarationError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find(files.path("p.toml") + c.error), 0u) << what;
      EXPECT_NE(what.find("a NUL character (\\u0000) at offset"), std::string::npos) << what;
      EXPECT_EQ(what.find('\0'), std::string::npos);
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

}  // namespace
