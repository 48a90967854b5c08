// The Vulkan side of a pair: GLSL compiled at run time with shaderc (Debian: libshaderc-dev), for
// Vulkan 1.1 / SPIR-V 1.3 as cuvk's own shaders are, or a ready SPIR-V file.
#include <shaderc/shaderc.h>
#include <spirv-tools/libspirv.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "bounded_read.h"
#include "pair.h"
#include "spirv/unified1/spirv.hpp"

namespace cuvk::pairs {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxSourceBytes = 16u << 20;

// #include is bounded (a self-include recursed for 49 s to 7.6 GB; a FIFO blocked): at most
// kMaxIncludeDepth deep, kMaxIncludes files and kMaxSourceBytes in all, each a regular file of at
// most kMaxSourceBytes (read_bounded). An error names the chain of includes that led to it.
constexpr std::size_t kMaxIncludeDepth = 32;
constexpr std::size_t kMaxIncludes = 4096;

struct IncludeContext {
  std::string first_source;                   // #include <x> resolves against its folder
  std::uint64_t total_bytes = 0;              // every included file's bytes together
  std::size_t count = 0;                      // includes resolved
  std::map<std::string, std::string> parent;  // an included file -> the file that included it
  std::vector<std::string> files;             // every file read, for the run's input check
};

// "a.comp -> b.glsl -> c.glsl": from the first source to `name`, the middle elided when long.
std::string include_chain(const IncludeContext& c, const std::string& requesting,
                          const std::string& requested) {
  std::vector<std::string> chain = {requested, requesting};
  for (std::string at = requesting; chain.size() <= kMaxIncludeDepth + 2;) {
    const auto up = c.parent.find(at);
    if (up == c.parent.end() || up->second == at) break;
    chain.push_back(up->second);
    at = up->second;
  }
  std::string out;
  const std::size_t n = chain.size();
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t from_start = n - 1 - k;
    if (n > 7 && from_start == 3) {
      out += fmt::format(" -> ... ({} more)", n - 6);
      k = 3;
    }
    out += (out.empty() ? "" : " -> ") + chain[k];
  }
  return out;
}

// #include "x" resolves against the including file's folder, #include <x> against the first
// source's folder; each result owns its strings.
struct Include {
  shaderc_include_result result{};
  std::string name, content;
};

shaderc_include_result* resolve_include(void* user, const char* requested, int type,
                                        const char* requesting, std::size_t depth) {
  IncludeContext& c = *static_cast<IncludeContext*>(user);
  const fs::path base = type == shaderc_include_type_relative
                            ? fs::path(requesting).parent_path()
                            : fs::path(c.first_source).parent_path();
  auto inc = std::make_unique<Include>();
  const fs::path p = fs::path(requested).is_absolute() ? fs::path(requested) : base / requested;
  const std::string name = p.lexically_normal().string();
  const auto refuse = [&](const std::string& why) {  // shaderc reports the content as the error
    inc->content = why + " (includes: " + include_chain(c, requesting, name) + ")";
  };
  std::string text;
  if (depth > kMaxIncludeDepth) {
    refuse(fmt::format("#include nested deeper than {}", kMaxIncludeDepth));
  } else if (++c.count > kMaxIncludes) {
    refuse(fmt::format("more than {} #includes", kMaxIncludes));
  } else if (const std::string why = read_bounded(p.string(), kMaxSourceBytes, &text);
             !why.empty()) {
    refuse("'" + p.string() + "' " + why);
  } else if ((c.total_bytes += text.size()) > kMaxSourceBytes) {
    refuse("the #included files exceed " + cap_text(kMaxSourceBytes) + " in all");
  } else {
    inc->name = name;
    inc->content = std::move(text);
    c.parent.emplace(name, requesting);
    c.files.push_back(name);
  }
  inc->result = {inc->name.c_str(), inc->name.size(), inc->content.c_str(), inc->content.size(),
                 inc.get()};
  return &inc.release()->result;
}

void release_include(void*, shaderc_include_result* result) {
  delete static_cast<Include*>(result->user_data);
}

// What compiled it, for reports (shaderc has no version query; Debian's package is named).
constexpr const char* kShaderc = "shaderc (Vulkan 1.1, SPIR-V 1.3)";

CompiledSpirv read_spirv(const PairDeclaration& decl, const std::string& path, const char* field) {
  std::string bytes;
  if (const std::string why = read_bounded(path, kMaxSourceBytes, &bytes); !why.empty())
    throw DeclarationError(decl.file + ": " + field + ": '" + path + "' " + why);
  std::uint32_t magic = 0;
  if (bytes.size() < 20 || bytes.size() % 4 != 0 ||
      (std::memcpy(&magic, bytes.data(), 4), magic != spv::MagicNumber))
    throw DeclarationError(decl.file + ": " + field + ": '" + path +
                           "' is not a SPIR-V module (size a multiple of 4, magic 0x07230203)");
  CompiledSpirv out;
  out.words.resize(bytes.size() / 4);
  std::memcpy(out.words.data(), bytes.data(), bytes.size());
  out.entry = decl.glsl.entry;
  out.compiler = "file";
  return out;
}

// spirv-val's rules for the module's SPIR-V version under Vulkan (1.3 and older: Vulkan 1.1).
spv_target_env validation_env(std::uint32_t version) {
  const std::uint32_t minor = (version >> 8) & 0xff;
  if (minor >= 6) return SPV_ENV_VULKAN_1_3;
  if (minor == 5) return SPV_ENV_VULKAN_1_2;
  if (minor == 4) return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
  return SPV_ENV_VULKAN_1_1;
}

// Runs the SPIR-V validator over the module, so a bad ready-made .spv is named here rather than
// crashing a driver. Throws DeclarationError with the validator's message.
void validate(const PairDeclaration& decl, const std::string& path, const CompiledSpirv& spv) {
  const spv_context context =
      spvContextCreate(validation_env(spv.words.size() > 1 ? spv.words[1] : 0));
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t r =
      spvValidateBinary(context, spv.words.data(), spv.words.size(), &diagnostic);
  std::string message = diagnostic && diagnostic->error ? diagnostic->error : "";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  if (r != SPV_SUCCESS)
    throw DeclarationError(decl.file + ": SPIR-V validation failed: " + path + ":", message);
}

template <typename T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* p) const { Release(p); }
};

}  // namespace

CompiledSpirv compile_glsl(const PairDeclaration& decl, Binding binding) {
  if (binding != Binding::descriptor && binding != Binding::bda)
    throw Error(decl.file + ": a GLSL shader binds by descriptor or bda, not " +
                binding_name(binding));
  const bool bda = binding == Binding::bda;
  if (bda && !supports_bda(decl))
    throw DeclarationError(decl.file +
                           ": glsl: the shader declares no bda form (glsl.bda_defines, "
                           "glsl.bda_source or glsl.bda_spirv)");
  CompiledSpirv out;
  if (!bda && !decl.glsl.spirv.empty()) out = read_spirv(decl, decl.glsl.spirv, "glsl.spirv");
  if (bda && !decl.glsl.bda_spirv.empty())
    out = read_spirv(decl, decl.glsl.bda_spirv, "glsl.bda_spirv");
  out.binding = binding;
  if (!out.words.empty()) {
    validate(decl, bda ? decl.glsl.bda_spirv : decl.glsl.spirv, out);
    return out;
  }

  const std::string path =
      bda && !decl.glsl.bda_source.empty() ? decl.glsl.bda_source : decl.glsl.source;
  const char* field = bda && !decl.glsl.bda_source.empty() ? "glsl.bda_source" : "glsl.source";
  std::string source;
  if (const std::string why = read_bounded(path, kMaxSourceBytes, &source); !why.empty())
    throw DeclarationError(decl.file + ": " + field + ": '" + path + "' " + why);
  std::unique_ptr<shaderc_compiler, Releaser<shaderc_compiler, shaderc_compiler_release>> compiler(
      shaderc_compiler_initialize());
  std::unique_ptr<shaderc_compile_options,
                  Releaser<shaderc_compile_options, shaderc_compile_options_release>>
      options(shaderc_compile_options_initialize());
  if (!compiler || !options) throw Error(decl.file + ": shaderc could not be initialised");
  shaderc_compile_options_set_target_env(options.get(), shaderc_target_env_vulkan,
                                         shaderc_env_version_vulkan_1_1);
  IncludeContext includes;
  includes.first_source = path;
  shaderc_compile_options_set_include_callbacks(options.get(), resolve_include, release_include,
                                                &includes);
  for (const auto& def : bda ? decl.glsl.bda_defines : decl.glsl.defines) {
    const std::size_t eq = def.find('=');
    const std::string name = def.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : def.substr(eq + 1);
    shaderc_compile_options_add_macro_definition(options.get(), name.c_str(), name.size(),
                                                 value.c_str(), value.size());
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<shaderc_compilation_result,
                  Releaser<shaderc_compilation_result, shaderc_result_release>>
      result(shaderc_compile_into_spv(compiler.get(), source.data(), source.size(),
                                      shaderc_compute_shader, path.c_str(), decl.glsl.entry.c_str(),
                                      options.get()));
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.compiler = kShaderc;
  out.entry = decl.glsl.entry;
  out.includes = includes.files;
  const char* message = result ? shaderc_result_get_error_message(result.get()) : "no result";
  out.log = message ? message : "";
  while (!out.log.empty() && out.log.back() == '\n') out.log.pop_back();
  if (!result ||
      shaderc_result_get_compilation_status(result.get()) != shaderc_compilation_status_success)
    throw DeclarationError(decl.file + ": GLSL compile failed: " + path + " (" + out.compiler +
                               (bda ? ", bda form" : "") + ")" + (out.log.empty() ? "" : ":"),
                           out.log);
  const std::size_t bytes = shaderc_result_get_length(result.get());
  out.words.resize(bytes / 4);
  std::memcpy(out.words.data(), shaderc_result_get_bytes(result.get()), out.words.size() * 4);
  validate(decl, path, out);
  return out;
}

}  // namespace cuvk::pairs
