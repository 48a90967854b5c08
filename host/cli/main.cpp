#include "cli.h"
#include "interrupt.h"

int main(int argc, char** argv) {
  cuvk::install_signal_handlers();  // the process's, not the library's: tests call cli_main too
  return cuvk::cli_main(argc, argv);
}
