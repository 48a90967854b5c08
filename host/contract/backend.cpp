#include "backend.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include <fmt/format.h>

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

const char* api_display_name(Api api) {
  switch (api) {
    case Api::cuda:
      return "CUDA";
    case Api::vulkan:
      return "Vulkan";
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
  if (steps == 0 || k >= steps || launch.chain.scratch == nullptr || launch.buffers.size() != 2)
    throw Error(fmt::format(
        "chain step {} of {} (a chain needs a scratch buffer and two buffers, in and out)", k,
        steps));
  const BufferView out = launch.buffers[1];
  const BufferView scratch{launch.chain.scratch, 0, out.bytes};
  const auto writes = [&](std::uint32_t j) { return (steps - 1 - j) % 2 == 0 ? out : scratch; };
  Launch step = launch;
  step.chain = Chain{};
  step.buffers = {k == 0 ? launch.buffers[0] : writes(k - 1), writes(k)};
  return step;
}

BufferView whole(const DeviceBuffer& buffer) {
  // A view names the buffer a kernel may write; whether it does is the kernel's (in: it reads).
  return BufferView{const_cast<DeviceBuffer*>(&buffer), 0, buffer.bytes()};
}

Launch builtin_launch(std::string kernel, const Geometry& geometry, const CuvkParams& params,
                      const DeviceBuffer& in, DeviceBuffer& out, Binding binding) {
  Launch launch;
  launch.kernel = std::move(kernel);
  launch.geometry = geometry;
  launch.buffers = {whole(in), whole(out)};
  launch.scalars.resize(sizeof params);
  std::memcpy(launch.scalars.data(), &params, sizeof params);
  launch.binding = binding;
  return launch;
}

Launch copy_launch(const DeviceBuffer& from, DeviceBuffer& to) {
  Launch launch;
  launch.kernel = kCopyEngine;
  launch.buffers = {whole(from), whole(to)};
  return launch;
}

CuvkParams builtin_params(const Launch& launch) {
  CuvkParams params{};
  if (launch.scalars.empty()) return params;
  if (launch.scalars.size() != sizeof params)
    throw Error(fmt::format("launch of '{}' carries {} scalar bytes, not a CuvkParams block ({})",
                            launch.kernel, launch.scalars.size(), sizeof params));
  std::memcpy(&params, launch.scalars.data(), sizeof params);
  return params;
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
    if (size != 4 && size != 8) throw Error(fmt::format("scalar of {} bytes: 4 or 8", size));
    at = round_up(at, size);
    offsets.push_back(at);
    at += size;
  }
  if (total_bytes) *total_bytes = round_up(at, 4u);
  return offsets;
}

std::string call_failure(const char* call, const std::string& decoded, const char* file, int line) {
  return fmt::format("{} failed: {} ({}:{})", call, decoded, file, line);
}

}  // namespace cuvk
