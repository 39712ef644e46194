// ptxcast: predict CNN runtime on NVIDIA GPUs from PTX analysis. Subcommands live in one file each.
#include "Commands.h"

int main(int argc, char **argv) { return ptxcast::runCommandLine(argc, argv); }
