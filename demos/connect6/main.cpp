// warpmind-connect6 — the Connect6 engine of connect6_engine.h on stdin (commands), stdout (moves and
// the name) and stderr (everything else).
#include <cstdio>
#include <iostream>
#include <string>

#include "connect6_engine.h"

int main(int argc, char** argv) {
  const auto to = [](std::FILE* f) {
    return [f](const std::string& line) {
      std::fputs((line + "\n").c_str(), f);
      std::fflush(f);
    };
  };
  warpmind::demos::Connect6Engine engine(to(stdout), to(stderr));
  if (argc >= 2 && std::string(argv[1]) == "bench") {
    engine.bench(argc >= 3 ? argv[2] : "", to(stdout));
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line))
    if (!engine.handle(line)) break;
  return 0;
}
