// The loader (opened with dlopen, handed to volk), the instance, the validation layer and the
// debug messenger that routes its messages to BackendOptions::on_message.
#include "vk_instance.h"

#include <volk.h>

#if !defined(_WIN32)
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "vk_check.h"
#include "vk_util.h"

namespace cuvk::vk {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::vector<VkExtensionProperties> instance_extensions(const char* layer) {
  return enumerate<VkExtensionProperties>(
      "vkEnumerateInstanceExtensionProperties", __FILE__, __LINE__,
      [layer](std::uint32_t* n, VkExtensionProperties* p) {
        return vkEnumerateInstanceExtensionProperties(layer, n, p);
      });
}

// Never throws: the layer calls it from inside Vulkan calls.
VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT types,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  try {
    const auto* sink = static_cast<const MessageSink*>(user);
    if (sink == nullptr || !*sink) return VK_FALSE;
    std::string text = "Vulkan ";
    if ((types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) != 0) {
      text += "validation ";
    } else if ((types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) != 0) {
      text += "performance ";
    }
    text +=
        (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0 ? "error: " : "warning: ";
    text += (data != nullptr && data->pMessage != nullptr) ? data->pMessage : "(no message)";
    (*sink)(text);
  } catch (...) {  // NOLINT(bugprone-empty-catch): an exception must not cross the layer
  }
  return VK_FALSE;
}

// Opens the loader once per process. Not volkInitialize(): volk 1.3.239 calls a null
// vkGetInstanceProcAddr (and crashes) when a libvulkan.so.1 without that symbol is found.
std::string load_loader() {
#if defined(_WIN32)
  if (volkInitialize() != VK_SUCCESS) return "Vulkan loader (vulkan-1.dll) not found";
#else
  // CUVK_VULKAN_LOADER names another loader (tests use it to simulate a machine without one).
  const char* chosen = std::getenv("CUVK_VULKAN_LOADER");
  const char* defaults[] = {"libvulkan.so.1", "libvulkan.so"};
  const char* override_names[] = {chosen, nullptr};
  void* library = nullptr;
  for (const char* name : chosen != nullptr ? override_names : defaults) {
    if (name == nullptr) break;
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) break;
  }
  if (library == nullptr) {
    const char* why = dlerror();
    return std::string("Vulkan loader (libvulkan.so.1) not found") +
           (why != nullptr ? std::string(": ") + why : std::string());
  }
  // The loader stays open for the life of the process, as volk would keep it.
  void* symbol = dlsym(library, "vkGetInstanceProcAddr");
  if (symbol == nullptr) return "the Vulkan loader (libvulkan.so.1) has no vkGetInstanceProcAddr";
  PFN_vkGetInstanceProcAddr get_proc = nullptr;
  static_assert(sizeof(get_proc) == sizeof(symbol), "POSIX: object and function pointers");
  std::memcpy(&get_proc, &symbol, sizeof(get_proc));
  volkInitializeCustom(get_proc);
#endif
  if (vkCreateInstance == nullptr || vkEnumerateInstanceExtensionProperties == nullptr ||
      vkEnumerateInstanceLayerProperties == nullptr) {
    return "the Vulkan loader (libvulkan.so.1) lacks vkCreateInstance";
  }
  return {};
}

// The API version the instance asks for: the loader's, at most 1.3; the loader must offer 1.1.
std::uint32_t instance_api_version() {
  const std::uint32_t loader_version = volkGetInstanceVersion();
  if (loader_version < kVulkan11) {
    throw Error("the Vulkan loader supports only Vulkan " + format_version(loader_version) +
                "; cuvk needs 1.1");
  }
  return std::min(make_version(version_major(loader_version), version_minor(loader_version), 0),
                  kVulkan13);
}

// Warnings and errors of every type, to on_debug_message with `sink` as its user data.
VkDebugUtilsMessengerCreateInfoEXT messenger_create_info(MessageSink* sink) {
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
  messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_debug_message;
  messenger_info.pUserData = sink;
  return messenger_info;
}

// Adds the validation layer and the debug-utils and validation-features extensions it needs,
// after checking that they are installed. `available`: the instance extensions without layers.
void add_validation(const std::vector<VkExtensionProperties>& available,
                    std::vector<const char*>& layers, std::vector<const char*>& extensions) {
  const auto layer_list =
      enumerate<VkLayerProperties>("vkEnumerateInstanceLayerProperties", __FILE__, __LINE__,
                                   [](std::uint32_t* n, VkLayerProperties* p) {
                                     return vkEnumerateInstanceLayerProperties(n, p);
                                   });
  const bool have_layer = std::any_of(
      layer_list.begin(), layer_list.end(),
      [](const VkLayerProperties& l) { return std::strcmp(l.layerName, kValidationLayer) == 0; });
  if (!have_layer) {
    throw Error(std::string("Vulkan validation requested but layer ") + kValidationLayer +
                " is not installed (Debian: vulkan-validationlayers)");
  }
  layers.push_back(kValidationLayer);
  const std::vector<VkExtensionProperties> layer_ext = instance_extensions(kValidationLayer);
  if (!has_extension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
      !has_extension(layer_ext, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    throw Error("Vulkan validation requested but VK_EXT_debug_utils is not available");
  }
  if (!has_extension(layer_ext, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
    throw Error(std::string("Vulkan validation requested but ") + kValidationLayer +
                " lacks VK_EXT_validation_features (needed for synchronization validation)");
  }
  extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
}

// Where the user pointed the loader at driver manifests (VK_DRIVER_FILES, or the older
// VK_ICD_FILENAMES), what is wrong with each file named: "no Vulkan driver could be loaded from
// VK_DRIVER_FILES=a.json:b.json (a.json: No such file or directory)", or that one is set but empty.
// Empty when neither is set.
// The loader's own result for such manifests is a bare code (VK_ERROR_INCOMPATIBLE_DRIVER, or
// VK_ERROR_OUT_OF_HOST_MEMORY for junk JSON), which says nothing about the cause.
std::string driver_files_problem() {
  for (const char* var : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
    const char* value = std::getenv(var);
    if (value == nullptr) continue;
    if (*value == '\0')  // set, but to nothing: the loader then loads no driver at all
      return std::string("no Vulkan driver could be loaded from ") + var +
             "= (set, but empty: it names no driver manifest; unset it to use the system's "
             "drivers)";
    std::string files, problems;
    std::string list = value;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      const std::string path = list.substr(start, end - start);
      start = end + 1;
      if (path.empty()) continue;
      struct stat st {};
      std::string why;
      if (stat(path.c_str(), &st) != 0)
        why = std::strerror(errno);
      else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        why = "not a regular file";
      else if (access(path.c_str(), R_OK) != 0)
        why = std::strerror(errno);
      else
        why = "exists, but the loader found no usable driver manifest in it";
      problems += (problems.empty() ? "" : "; ") + path + ": " + why;
    }
    return std::string("no Vulkan driver could be loaded from ") + var + "=" + value +
           (problems.empty() ? "" : " (" + problems + ")");
  }
  return {};
}

// Runs `call` (a loader call before there is a device); where VK_DRIVER_FILES chose the driver
// manifests, its failure is reported as a failure to load a driver from there.
template <typename Call>
auto blaming_driver_files(Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const Error& e) {
    const std::string problem = driver_files_problem();
    if (problem.empty()) throw;
    throw Error(problem + ": " + e.what());
  }
}

// vkCreateInstance, its failure told apart: no driver at all, or another reason.
VkInstance create_instance(const VkInstanceCreateInfo& info) {
  VkInstance raw = VK_NULL_HANDLE;
  const VkResult result = vkCreateInstance(&info, nullptr, &raw);
  if (result != VK_SUCCESS) {
    const std::string failure =
        call_failure("vkCreateInstance", vk::decode(result), __FILE__, __LINE__);
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
      throw Error("no Vulkan driver (ICD) found: " + failure);
    }
    throw Error("cannot create a Vulkan instance: " + failure);
  }
  return raw;
}

// The drivers the loader opens map their code and run initialisers that do not all survive
// running out of address space: Mesa 22.3's intel_hasvk crashes (SIGSEGV in a memcpy of its own
// initialiser) under `ulimit -v` 60000 instead of failing. So the drivers are not loaded with less
// than this much address space left under RLIMIT_AS: a clear error instead of a crash.
constexpr std::uint64_t kDriverLoadRoomBytes = 128ull << 20;

void check_room_to_load_drivers() {
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return;
  std::uint64_t pages = 0;  // /proc/self/statm: the address space in use, in pages
  std::ifstream("/proc/self/statm") >> pages;
  const std::uint64_t used = pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t limit = r.rlim_cur, left = limit > used ? limit - used : 0;
  if (left >= kDriverLoadRoomBytes) return;
  throw Error("host memory is limited to " + std::to_string(limit >> 20) + " MiB by ulimit -v, " +
              std::to_string(left >> 20) + " MiB of it left: too little to load a Vulkan driver " +
              "(at least " + std::to_string(kDriverLoadRoomBytes >> 20) +
              " MiB; a driver that runs out while it loads may crash)");
}

}  // namespace

void open_loader() {
  static const std::string failure = load_loader();
  if (!failure.empty()) throw Error(failure);
}

VulkanInstance::VulkanInstance(const BackendOptions& options)
    : sink_(std::make_unique<MessageSink>(options.on_message)) {
  open_loader();
  check_room_to_load_drivers();
  const std::uint32_t api_version = instance_api_version();
  api_version_ = api_version;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  const std::vector<VkExtensionProperties> available =
      blaming_driver_files([] { return instance_extensions(nullptr); });
  VkInstanceCreateFlags flags = 0;
  if (has_extension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  const VkDebugUtilsMessengerCreateInfoEXT messenger_info = messenger_create_info(sink_.get());
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  features.pNext = &messenger_info;  // also reports on vkCreateInstance / vkDestroyInstance

  if (options.validation) add_validation(available, layers, extensions);

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "cuvk";
  app.applicationVersion = make_version(0, 1, 0);
  app.pEngineName = "cuvk";
  app.engineVersion = make_version(0, 1, 0);
  app.apiVersion = api_version;

  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = options.validation ? &features : nullptr;
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  const VkInstance raw = blaming_driver_files([&info] { return create_instance(info); });
  volkLoadInstanceOnly(raw);  // instance-level pointers (loader trampolines)
  instance_ = vk::Instance(raw, vkDestroyInstance);

  if (options.validation) {
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (vkCreateDebugUtilsMessengerEXT == nullptr) {
      throw Error("Vulkan validation requested but vkCreateDebugUtilsMessengerEXT is missing");
    }
    CUVK_VK(vkCreateDebugUtilsMessengerEXT, raw, &messenger_info, nullptr, &messenger);
    messenger_ = vk::Messenger(raw, messenger, vkDestroyDebugUtilsMessengerEXT);
  }
}

std::vector<VkPhysicalDevice> VulkanInstance::physical_devices() const {
  return blaming_driver_files([this] { return enumerate_physical_devices(); });
}

std::vector<VkPhysicalDevice> VulkanInstance::enumerate_physical_devices() const {
  VkInstance instance = instance_.get();
  std::uint32_t count = 0;
  const VkResult result = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (result != VK_SUCCESS) {
    throw Error("no Vulkan physical devices: " +
                call_failure("vkEnumeratePhysicalDevices", vk::decode(result), __FILE__, __LINE__));
  }
  auto devices = enumerate<VkPhysicalDevice>("vkEnumeratePhysicalDevices", __FILE__, __LINE__,
                                             [instance](std::uint32_t* n, VkPhysicalDevice* p) {
                                               return vkEnumeratePhysicalDevices(instance, n, p);
                                             });
  if (devices.empty()) throw Error("no Vulkan physical devices (the loader found no driver)");
  return devices;
}

}  // namespace cuvk::vk
