// Facts fixed at build time, for provenance.
#pragma once

namespace cuvk::build {

extern const char* const kVersion;
extern const char* const kGitRevision;
extern const char* const kBuildType;
extern const char* const kCxxCompiler;
extern const char* const kCxxFlags;
extern const char* const kCudaCompiler;  // "" when built without CUDA
extern const char* const kCudaFlags;
extern const char* const kCudaArchitectures;
extern const char* const kGlslang;

}  // namespace cuvk::build
