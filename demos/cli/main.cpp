// warpmind — command-line front end to the library, one subcommand per module.
#include <cstdio>
#include <cstring>

#include "commands.h"

namespace {

constexpr const char* kUsage =
    "usage: warpmind <command> [options]\n"
    "\n"
    "commands:\n"
    "  field    build potential-field layers from a scenario or generated entities; write PNG/raw\n"
    "  crowd    run a generated crowd through the collision-checked movement solver\n"
    "  aoi      run an MMO world's ticks: client commands, conflict merge, area-of-interest updates\n"
    "  ddm      match publication and subscription regions and keep the match current as they move\n"
    "\n"
    "Every command takes --help, --backend cpu|cuda|auto, --variant NAME, --seed N, --scenario FILE.json\n"
    "and --json. Exit status: 0 success, 2 bad input (reason on stderr), 1 other failure.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "field")) return warpmind::cli::field_command(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "crowd")) return warpmind::cli::crowd_command(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "aoi")) return warpmind::cli::aoi_command(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "ddm")) return warpmind::cli::ddm_command(argc - 1, argv + 1);
  std::fprintf(stderr, "warpmind: unknown command '%s' (see warpmind --help)\n", argv[1]);
  return 2;
}
