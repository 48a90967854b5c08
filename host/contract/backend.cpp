#include "backend.h"

#include <cstdio>

#include "error.h"
#include "numbers.h"

namespace cuvk {

std::unique_ptr<HostRegistration> Backend::register_host(void*, std::size_t) {
  return nullptr;
}

const char* api_name(Api api) {
  switch (api) {
    case Api::cuda:
      return "cuda";
    case Api::vulkan:
      return "vulkan";
    case Api::host:
      return "host";
  }
  return "?";
}

const char* binding_name(Binding binding) {
  switch (binding) {
    case Binding::pointer:
      return "pointer";
    case Binding::descriptor:
      return "descriptor";
    case Binding::bda:
      return "bda";
  }
  return "?";
}

const char* submission_name(Submission s) {
  switch (s) {
    case Submission::stream:
      return "stream";
    case Submission::graph:
      return "graph";
    case Submission::pdl:
      return "pdl";
    case Submission::recorded:
      return "recorded";
    case Submission::rerecorded:
      return "rerecorded";
    case Submission::submit_each:
      return "submit-each";
    case Submission::wait_each:
      return "wait-each";
  }
  return "?";
}

std::string Backend::submission_unsupported(Submission s) const {
  return std::string(api_name(info().api)) + " backend cannot submit chains as " +
         submission_name(s);
}

Launch chain_step(const Launch& launch, std::uint32_t k) {
  const std::uint32_t steps = launch.chain.steps;
  if (steps == 0 || k >= steps || launch.chain.scratch == nullptr)
    throw Error("chain step " + std::to_string(k) + " of " + std::to_string(steps) +
                " (a chain needs a scratch buffer)");
  const auto writes = [&](std::uint32_t j) {
    return (steps - 1 - j) % 2 == 0 ? launch.out : launch.chain.scratch;
  };
  Launch step = launch;
  step.chain = Chain{};
  step.in = k == 0 ? launch.in : writes(k - 1);
  step.out = writes(k);
  return step;
}

Binding native_binding(Api api) {
  return api == Api::vulkan ? Binding::descriptor : Binding::pointer;
}

std::string format_uuid(const Uuid& uuid) {
  std::string s;
  char hex[3];
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(hex, sizeof hex, "%02x", uuid[i]);
    s += hex;
  }
  return s;
}

Capability* Backend::capability(std::type_index) {
  return nullptr;
}

void Backend::load_module(const RuntimeModule& module) {
  throw Error(std::string(api_name(info().api)) + " backend cannot load run-time kernels (" +
              module.name + ")");
}

std::vector<std::uint32_t> scalar_offsets(const std::vector<std::uint32_t>& sizes,
                                          std::uint32_t* total_bytes) {
  std::vector<std::uint32_t> offsets;
  std::uint32_t at = 0;
  for (std::uint32_t size : sizes) {
    if (size != 4 && size != 8) throw Error("scalar of " + std::to_string(size) + " bytes: 4 or 8");
    at = round_up(at, size);
    offsets.push_back(at);
    at += size;
  }
  if (total_bytes) *total_bytes = round_up(at, 4u);
  return offsets;
}

std::string call_failure(const char* call, const std::string& decoded, const char* file, int line) {
  return std::string(call) + " failed: " + decoded + " (" + file + ":" + std::to_string(line) + ")";
}

}  // namespace cuvk
