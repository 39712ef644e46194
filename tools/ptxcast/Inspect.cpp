// Placeholder: replaced by the `ptxcast inspect` work in this session.
#include "Commands.h"

#include <CLI/CLI.hpp>

namespace ptxcast {
void addInspectCommand(CLI::App &App) { App.add_subcommand("inspect", "inspect a PTX file"); }
} // namespace ptxcast
