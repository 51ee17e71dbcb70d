// warpmind-connect6 — the Connect6 engine of connect6_engine.h on stdin (commands), stdout (moves and
// the name) and stderr (everything else).
#include <cstdio>
#include <iostream>
#include <string>

#include "connect6_engine.h"
#include "flags.h"

int main(int argc, char** argv) {
  using namespace warpmind;
  CLI::App app(
      "The Connect6 engine: commands on standard input in the common text protocol of Connect6 programs (name, "
      "new, black, white, next, move, depth, time, threads, threats, treethreats, search, backend, plies, bench, quit: "
      "demos/connect6/connect6_engine.h); moves and the name on standard output, everything else on standard "
      "error.",
      "warpmind-connect6");
  demos::configure(app);
  CLI::App* bench = demos::add_subcommand(
      app, "bench",
      "print the bench signature and exit\n"
      "The bench signature: fixed openings searched to a fixed depth on one thread; the summed node count "
      "changes when the search does.");
  std::string depth;
  demos::add_text(*bench, "depth", depth, "", "the depth searched (1..6; default 3)");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;

  const auto to = [](std::FILE* f) {
    return [f](const std::string& line) {
      std::fputs((line + "\n").c_str(), f);
      std::fflush(f);
    };
  };
  demos::Connect6Engine engine(to(stdout), to(stderr));
  if (bench->parsed()) {
    engine.bench(depth, to(stdout));
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line))
    if (!engine.handle(line)) break;
  return 0;
}
