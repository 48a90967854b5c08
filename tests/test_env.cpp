// Issue 23, class 13: every test program starts from the same environment, whatever the caller's
// (an NVIDIA container sets VK_DRIVER_FILES to its ICD, a desktop sets LANG=de_DE.UTF-8, a shared
// node CUDA_VISIBLE_DEVICES): the Vulkan loader and cuvk's own variables are cleared, so the
// system's drivers (lavapipe in CI) load; the locale is C.UTF-8; TMPDIR is the build's own
// folder. A test that wants another value sets it itself, after this ran. The scripts that ctest
// runs get the same through the ENVIRONMENT_MODIFICATION property (tests/CMakeLists.txt).
#include <sys/stat.h>

#include <cstdlib>
#include <initializer_list>

namespace {

const bool kEnvironmentSet = [] {
  for (const char* var :
       {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_INSTANCE_LAYERS",
        "VK_LAYER_PATH", "VK_ADD_LAYER_PATH", "VK_LOADER_DRIVERS_SELECT",
        "VK_LOADER_DRIVERS_DISABLE", "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE",
        "VK_LOADER_DEBUG", "CUVK_VULKAN_LOADER", "CUDA_VISIBLE_DEVICES", "LC_ALL", "LANGUAGE"})
    ::unsetenv(var);
  ::setenv("LANG", "C.UTF-8", 1);
  ::mkdir(CUVK_TEST_TMPDIR, 0700);
  ::setenv("TMPDIR", CUVK_TEST_TMPDIR, 1);
  return true;
}();

}  // namespace
