// A stand-in NVML (tests only; CUVK_NVML_LIB points cuvk at it): one GPU with canned health, so
// the node view's reading of NVML is tested where there is no NVIDIA driver. Remapped rows are
// "not supported" (3) and nvmlDeviceGetNumaNodeId is absent, as on older boards and drivers.
#include <cstring>

extern "C" {
using nvmlDevice = void*;
static int g_device = 0;
int nvmlInit_v2() {
  return 0;
}
int nvmlShutdown() {
  return 0;
}
int nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice* d) {
  if (std::strncmp(uuid, "GPU-", 4) != 0 || std::strstr(uuid, "dead") != nullptr)
    return 6;  // not found
  *d = &g_device;
  return 0;
}
// `cuvk p2p`'s link probe: two boards behind one host bridge, P2P reads but no NVLink.
int nvmlDeviceGetTopologyCommonAncestor(nvmlDevice, nvmlDevice, int* level) {
  *level = 30;
  return 0;
}
int nvmlDeviceGetP2PStatus(nvmlDevice, nvmlDevice, int index, int* status) {
  *status = index == 0 ? 0 : 4;  // read ok; NVLink: not supported
  return 0;
}
int nvmlDeviceGetTotalEccErrors(nvmlDevice, int type, int counter, unsigned long long* n) {
  *n = type == 1 ? (counter == 1 ? 7 : 2) : 11;  // uncorrected: 2 volatile, 7 aggregate
  return 0;
}
int nvmlDeviceGetRetiredPages(nvmlDevice, int cause, unsigned* count, unsigned long long*) {
  *count = cause == 1 ? 1 : 3;
  return 7;  // insufficient size: the count is the answer
}
int nvmlDeviceGetRemappedRows(nvmlDevice, unsigned*, unsigned*, unsigned*, unsigned*) {
  return 3;
}
int nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice, unsigned* v) {
  *v = 4;
  return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice, unsigned* v) {
  *v = 16;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice, unsigned* v) {
  *v = 5;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice, unsigned* v) {
  *v = 16;
  return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice, int type, unsigned* v) {
  *v = type == 1 ? 1755 : 2619;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(nvmlDevice, int type, unsigned* v) {
  *v = type == 1 ? 1980 : 2619;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice, unsigned* mw) {
  *mw = 72345;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice, unsigned* mw) {
  *mw = 700000;
  return 0;
}
int nvmlDeviceGetTemperature(nvmlDevice, int, unsigned* c) {
  *c = 31;
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice, unsigned long long* r) {
  *r = 0x4;
  return 0;
}
}
