// Subcommands of the `warpmind` CLI. Each adds itself to the program's app — its flags, declared once
// there — and returns what runs when the command line chose it: the exit status, 0 success, 2 bad input
// (with a one-line reason on stderr), 1 any other failure.
#pragma once

#include "flags.h"

namespace warpmind::cli {

demos::Subcommand field_command(CLI::App& app);
demos::Subcommand crowd_command(CLI::App& app);
demos::Subcommand aoi_command(CLI::App& app);
demos::Subcommand ddm_command(CLI::App& app);
demos::Subcommand nav_command(CLI::App& app);

}  // namespace warpmind::cli
