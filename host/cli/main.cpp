#include "cli.h"

int main(int argc, char** argv) { return cuvk::cli_main(argc, argv); }
