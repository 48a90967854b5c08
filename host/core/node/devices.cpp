#include "devices.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "error.h"

namespace cuvk {
namespace {

std::string hex_only(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool uuid_has_prefix(const Uuid& uuid, const std::string& prefix) {
  const std::string hex = hex_only(format_uuid(uuid));
  return hex.compare(0, prefix.size(), prefix) == 0;
}

const DeviceInfo* twin(const std::vector<DeviceInfo>& list, const Uuid& uuid) {
  for (const DeviceInfo& d : list)
    if (d.uuid == uuid) return &d;
  return nullptr;
}

bool is_index(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

// The choice pairs CUDA with Vulkan: another API (docs/ADDING_AN_API.md) has no device here.
const std::optional<DeviceInfo>& DeviceChoice::device(Api api) const {
  if (api == Api::cuda) return cuda;
  if (api == Api::vulkan) return vulkan;
  throw Error(std::string("the device choice has no ") + api_name(api) + " device");
}

const std::string& DeviceChoice::reason(Api api) const {
  if (api == Api::cuda) return cuda_reason;
  if (api == Api::vulkan) return vulkan_reason;
  throw Error(std::string("the device choice has no ") + api_name(api) + " device");
}

std::string& DeviceChoice::reason(Api api) {
  return const_cast<std::string&>(static_cast<const DeviceChoice&>(*this).reason(api));
}

DeviceChoice choose_devices(const DeviceInventory& inv, const std::string& spec) {
  DeviceChoice c;
  c.cuda_reason = inv.cuda_error;
  c.vulkan_reason = inv.vulkan_error;

  auto pair_vulkan_with_cuda = [&] {
    if (const DeviceInfo* vk = twin(inv.vulkan, c.cuda->uuid)) {
      c.vulkan = *vk;
      c.same_gpu = true;
      c.note = fmt::format("CUDA device {} and Vulkan device {} are the same GPU (UUID {})",
                           c.cuda->index, vk->index, format_uuid(vk->uuid));
    } else if (inv.vulkan_error.empty()) {
      c.vulkan_reason = "no Vulkan device has the CUDA device's UUID " + format_uuid(c.cuda->uuid);
      c.note = fmt::format("no Vulkan twin of CUDA device {}: CUDA only", c.cuda->index);
    }
  };

  if (spec.empty()) {
    if (!inv.cuda.empty()) {
      c.cuda = inv.cuda.front();
      for (const DeviceInfo& d : inv.cuda)  // prefer a CUDA device that has a Vulkan twin
        if (twin(inv.vulkan, d.uuid)) {
          c.cuda = d;
          break;
        }
      pair_vulkan_with_cuda();
    } else if (!inv.vulkan.empty()) {
      auto gpu = std::find_if(inv.vulkan.begin(), inv.vulkan.end(),
                              [](const DeviceInfo& d) { return !d.is_cpu; });
      c.vulkan = gpu != inv.vulkan.end() ? *gpu : inv.vulkan.front();
      c.note = "no CUDA device: Vulkan only, on " + c.vulkan->name;
    }
    return c;
  }

  const DeviceToken token = parse_device_token(inv, spec);
  if (token.index) {
    const std::size_t k = *token.index;
    if (!inv.cuda.empty()) {
      c.cuda = inv.cuda[k];
      pair_vulkan_with_cuda();
      return c;
    }
    c.vulkan = inv.vulkan[k];
    c.note = "no CUDA device: Vulkan only, on " + c.vulkan->name;
    return c;
  }
  if (token.uuid_of->api == Api::cuda) {
    c.cuda = *token.uuid_of;
    pair_vulkan_with_cuda();
    return c;
  }
  c.vulkan = *token.uuid_of;
  c.note = "Vulkan only, on " + c.vulkan->name + " (no CUDA device has UUID " + spec + ")";
  if (c.cuda_reason.empty()) c.cuda_reason = "no CUDA device has UUID prefix " + spec;
  return c;
}

DeviceToken parse_device_token(const DeviceInventory& inv, const std::string& spec) {
  // The indices are CUDA's; without a CUDA device, Vulkan's.
  const std::size_t count = inv.cuda.empty() ? inv.vulkan.size() : inv.cuda.size();
  const char* const api = inv.cuda.empty() ? "Vulkan" : "CUDA";
  DeviceToken t;
  if (is_index(spec)) {
    // Digits beyond 64 bits are an index past every device, not an exception ("stoul", exit 3).
    errno = 0;
    const unsigned long long parsed = std::strtoull(spec.c_str(), nullptr, 10);
    if (errno != ERANGE && parsed < count) t.index = static_cast<std::size_t>(parsed);
  }
  const std::string prefix = hex_only(spec);
  const bool hex =
      !prefix.empty() && prefix.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (hex && prefix.size() >= kMinUuidPrefix) {
    for (const std::vector<DeviceInfo>* list : {&inv.cuda, &inv.vulkan})
      for (const DeviceInfo& d : *list)
        if (!t.uuid_of && uuid_has_prefix(d.uuid, prefix)) t.uuid_of = d;
  }
  if (t.index && t.uuid_of)
    throw UsageError(fmt::format(
        "--device {} is both {} device index {} and a UUID prefix of {} device {} ({}): name "
        "the GPU by a longer UUID prefix (`cuvk devices` lists them)",
        spec, api, *t.index, t.uuid_of->api == Api::cuda ? "CUDA" : "Vulkan", t.uuid_of->index,
        format_uuid(t.uuid_of->uuid)));
  if (t.index || t.uuid_of) return t;
  if (is_index(spec)) {
    const char* const uuid =
        spec.size() < kMinUuidPrefix ? "" : ", and no CUDA or Vulkan device has a UUID starting so";
    throw UsageError(count == 0
                         ? fmt::format("--device {}: there is no CUDA or Vulkan device", spec)
                         : fmt::format("--device {}: there are {} {} devices (0..{}){}", spec,
                                       count, api, count - 1, uuid));
  }
  if (!hex) throw UsageError("--device '" + spec + "' is neither a device index nor a UUID prefix");
  if (prefix.size() < kMinUuidPrefix)
    throw UsageError(fmt::format("--device '{}': a UUID prefix needs at least {} hex digits", spec,
                                 kMinUuidPrefix));
  throw UsageError("--device " + spec + ": no CUDA or Vulkan device has a UUID starting so");
}

}  // namespace cuvk
