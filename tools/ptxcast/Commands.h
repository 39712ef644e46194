// Each ptxcast subcommand registers itself on the root CLI::App through one of these.
#pragma once

namespace CLI {
class App;
}

namespace ptxcast {
void addInspectCommand(CLI::App &App);
} // namespace ptxcast
