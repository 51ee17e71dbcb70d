// libFuzzer target: warpmind-chess's whole UCI command loop (uci_engine.h), one input line per command.
// Work is kept affordable by the harness, not the engine: every search gets "nodes 2000" appended
// (UCI's node limit, which also caps "infinite" and the hybrid search), perft deeper than 3, bench and
// the Hash and Threads options are left out, and the table is 1 MB. Invariants: no crash or sanitizer report; every output line
// is a UCI reply the engine may send; each isready gets its readyok; at most one bestmove per go, each
// "0000" or a move in UCI's shape.
#include <mutex>
#include <sstream>
#include <vector>

#include "fuzz_common.h"
#include "uci_engine.h"

namespace {

bool uci_move_shape(const std::string& m) {
  if (m == "0000") return true;
  if (m.size() != 4 && m.size() != 5) return false;
  for (int i : {0, 2})
    if (m[static_cast<std::size_t>(i)] < 'a' || m[static_cast<std::size_t>(i)] > 'h' ||
        m[static_cast<std::size_t>(i) + 1] < '1' || m[static_cast<std::size_t>(i) + 1] > '8')
      return false;
  return m.size() == 4 || std::string("qrbn").find(m[4]) != std::string::npos;
}

bool known_reply(const std::string& line) {
  for (const char* p : {"id ", "option ", "info ", "bestmove ", "Nodes searched: ", "Nodes/second: "})
    if (line.rfind(p, 0) == 0) return true;
  if (line.empty() || line == "uciok" || line == "readyok") return true;
  const std::size_t colon = line.find(": ");  // perft's per-move counts
  return colon != std::string::npos && uci_move_shape(line.substr(0, colon));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> out;
  std::mutex m;
  int isready = 0, gos = 0;
  {
    warpmind::demos::UciEngine engine(
        [&](const std::string& line) {
          std::lock_guard<std::mutex> lock(m);
          out.push_back(line);
        },
        1);
    std::istringstream in(warpmind::fuzz::text_of(data, size));
    std::string line;
    for (int n = 0; n < 48 && std::getline(in, line); ++n) {
      std::istringstream words(line);
      std::string cmd, w;
      words >> cmd;
      if (cmd == "bench" || line.find("Hash") != std::string::npos || line.find("Threads") != std::string::npos)
        continue;
      if (cmd == "go") {
        if (line.find("perft") != std::string::npos) {
          while (words >> w && w != "perft") {}
          int depth = 0;
          if (!(words >> depth) || depth > 3) continue;
        } else {
          line += " nodes 2000";
        }
        ++gos;
      }
      isready += cmd == "isready";
      if (!engine.handle(line)) break;
    }
    engine.handle("stop");
    engine.handle("quit");
  }
  int readyok = 0, bestmoves = 0;
  for (const std::string& line : out) {
    if (!known_reply(line)) std::fprintf(stderr, "unexpected reply: '%s'\n", line.c_str());
    FUZZ_CHECK(known_reply(line));
    readyok += line == "readyok";
    if (line.rfind("bestmove ", 0) == 0) {
      ++bestmoves;
      FUZZ_CHECK(uci_move_shape(line.substr(9)));
    }
  }
  FUZZ_CHECK(readyok == isready);
  FUZZ_CHECK(bestmoves <= gos);
  return 0;
}
