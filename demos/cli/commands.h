// Subcommands of the `warpmind` CLI. Each returns the process exit status: 0 success, 2 bad input
// (with a one-line reason on stderr), 1 any other failure.
#pragma once

namespace warpmind::cli {

int field_command(int argc, char** argv);  // argv[0] is "field"
int crowd_command(int argc, char** argv);  // argv[0] is "crowd"
int aoi_command(int argc, char** argv);    // argv[0] is "aoi"
int ddm_command(int argc, char** argv);    // argv[0] is "ddm"

}  // namespace warpmind::cli
