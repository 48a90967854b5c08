// A library named libcuda.so.1 that is not a CUDA driver, for the tests of how cuvk reports one
// (issue 12, class 7). Built twice: without cuInit (a stub), and with a cuInit that fails.
extern "C" {

#ifdef CUVK_STUB_CUINIT_FAILS
constexpr int kCudaErrorUnknown = 999;

int cuInit(unsigned /*flags*/) {
  return kCudaErrorUnknown;
}

int cuGetErrorName(int error, const char** name) {
  if (error != kCudaErrorUnknown) return 1;  // CUDA_ERROR_INVALID_VALUE
  *name = "CUDA_ERROR_UNKNOWN";
  return 0;
}
#endif

int cuvk_stub_libcuda() {
  return 0;
}

}  // extern "C"
