// warpmind — command-line front end to the library, one subcommand per module.
#include "commands.h"
#include "flags.h"

int main(int argc, char** argv) {
  using namespace warpmind;
  CLI::App app("Command-line front end to the library, one command per module.", "warpmind");
  demos::configure(app, "command");
  const std::vector<demos::Subcommand> commands = {cli::field_command(app), cli::crowd_command(app),
                                                   cli::aoi_command(app), cli::ddm_command(app), cli::nav_command(app)};
  app.require_subcommand(1);
  app.footer(
      "Every command takes --help, --backend cpu|cuda|auto and --json; field, crowd, aoi and ddm also\n"
      "--variant NAME, --seed N and --scenario FILE.json. Exit status: 0 success, 2 bad input (reason on\n"
      "stderr), 1 other failure.");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  return demos::run_chosen(commands);
}
