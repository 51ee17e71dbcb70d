// warpmind-chess — the UCI engine of uci_engine.h on standard input and output.
#include <cstdio>
#include <iostream>
#include <string>

#include "uci_engine.h"

int main(int argc, char** argv) {
  warpmind::demos::UciEngine engine([](const std::string& line) {
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
  });
  // "warpmind-chess bench [depth]" runs the benchmark and exits, as engines conventionally do.
  if (argc >= 2 && std::string(argv[1]) == "bench") {
    engine.handle(std::string("bench") + (argc >= 3 ? std::string(" ") + argv[2] : ""));
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line))
    if (!engine.handle(line)) return 0;
  engine.handle("quit");
  return 0;
}
