// SIGINT / SIGTERM: the first one asks the run to stop at the next measurement boundary (GPU
// resources are then freed by their owners, completed rows are printed, no result file is
// written); a second one terminates at once.
#pragma once

namespace cuvk {

void install_interrupt_handlers();
bool interrupted();        // a signal arrived since install_interrupt_handlers()
int interrupt_signal();    // which one (0 if none)
void raise_interrupt_for_testing(int signal_number);

}  // namespace cuvk
