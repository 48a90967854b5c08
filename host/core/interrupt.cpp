#include "interrupt.h"

#include <atomic>
#include <csignal>

namespace cuvk {
namespace {

std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  g_signal.store(sig);
  std::signal(sig, SIG_DFL);  // a second signal ends the process the usual way
}

}  // namespace

void install_interrupt_handlers() {
  g_signal.store(0);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
void raise_interrupt_for_testing(int signal_number) { g_signal.store(signal_number); }

}  // namespace cuvk
