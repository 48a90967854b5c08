#include "libcuda_probe.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <memory>

namespace cuvk {
namespace {

constexpr const char* kLibcuda = "libcuda.so.1";

struct Closer {
  void operator()(void* lib) const { dlclose(lib); }
};
using Library = std::unique_ptr<void, Closer>;

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  Fn fn = nullptr;
  static_assert(sizeof(fn) == sizeof(p), "POSIX: object and function pointers");
  std::memcpy(&fn, &p, sizeof(fn));
  return fn;
}

std::string path_of(void* lib) {
  link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      *map->l_name != '\0')
    return map->l_name;
  return kLibcuda;
}

std::string decode(void* lib, int result) {
  using GetErrorName = int (*)(int, const char**);
  const char* name = nullptr;
  if (const auto get_name = symbol<GetErrorName>(lib, "cuGetErrorName"))
    if (get_name(result, &name) != 0) name = nullptr;
  return (name != nullptr ? std::string(name) : std::string("CUresult")) + " (" +
         std::to_string(result) + ")";
}

}  // namespace

std::string libcuda_problem() {
  const Library lib(dlopen(kLibcuda, RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* why = dlerror();
    return std::string("no CUDA driver found (") + kLibcuda + " is not installed" +
           (why != nullptr ? std::string(": ") + why : std::string()) + ")";
  }
  const std::string where = std::string(kLibcuda) + " found at " + path_of(lib.get());
  using CuInit = int (*)(unsigned);
  const auto cu_init = symbol<CuInit>(lib.get(), "cuInit");
  if (cu_init == nullptr)
    return where + " but it lacks the symbol cuInit: not a CUDA driver (a stub library?)";
  const int result = cu_init(0);
  if (result != 0) return where + " but cuInit failed: " + decode(lib.get(), result);
  return {};
}

}  // namespace cuvk
