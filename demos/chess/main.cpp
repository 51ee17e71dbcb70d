// warpmind-chess — the UCI engine of uci_engine.h on standard input and output.
#include <cstdio>
#include <iostream>
#include <string>

#include "flags.h"
#include "uci_engine.h"

int main(int argc, char** argv) {
  using namespace warpmind;
  CLI::App app(
      "The UCI chess engine: the Universal Chess Interface on standard input and output (uci, isready, "
      "ucinewgame, setoption, position, go, stop, quit, and bench) for any UCI GUI or tournament manager "
      "(demos/chess/uci_engine.h).",
      "warpmind-chess");
  demos::configure(app);
  // "warpmind-chess bench [depth]" runs the benchmark and exits, as engines conventionally do.
  CLI::App* bench = demos::add_subcommand(
      app, "bench",
      "print the bench signature and exit\n"
      "The bench signature: fixed positions searched to a fixed depth on one thread from a cleared table; the "
      "summed node count changes when the search does.");
  std::string depth;
  demos::add_text(*bench, "depth", depth, "", "the depth searched (clamped to 1..20; default 7)");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;

  demos::UciEngine engine([](const std::string& line) {
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
  });
  if (bench->parsed()) {
    engine.handle("bench" + (depth.empty() ? std::string() : " " + depth));
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line))
    if (!engine.handle(line)) return 0;
  engine.handle("quit");
  return 0;
}
