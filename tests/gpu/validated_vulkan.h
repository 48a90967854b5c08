// The validated-Vulkan fixture of the integration tests: a Vulkan backend on the first device
// (lavapipe in CI) with the Khronos validation layer on (synchronization validation with it); any
// message the layer sends fails the test. Without such a device the test skips, except where CI
// requires validation (CUVK_REQUIRE_VALIDATION=1, suite_check.h): there it fails.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "suite_check.h"
#include "vulkan_backend.h"

namespace cuvk::suite {

class ValidatedVulkan : public ::testing::Test {
 protected:
  // A fixture that needs more of the backend sets it in options_ in its constructor (trace = true):
  // SetUp opens the backend with those options, validation added.
  void SetUp() override {
    options_.validation = true;
    options_.on_message = [this](const std::string& m) { messages_.push_back(m); };
    try {
      vulkan_devices(options_);
    } catch (const std::exception& e) {
      if (validation_required())
        FAIL() << "CUVK_REQUIRE_VALIDATION=1: no Vulkan device with validation: " << e.what();
      GTEST_SKIP() << "no Vulkan: " << e.what();
    }
    backend_ = make_vulkan_backend(0, options_);
  }
  // The backend closes first: messages sent while it is torn down fail the test too.
  void TearDown() override {
    backend_.reset();
    for (const std::string& m : messages_) ADD_FAILURE() << "validation: " << m;
  }

  BackendOptions options_;
  std::vector<std::string> messages_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace cuvk::suite
