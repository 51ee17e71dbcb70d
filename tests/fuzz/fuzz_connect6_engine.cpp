// libFuzzer target: warpmind-connect6's command loop (connect6_engine.h), one input line per command,
// the engine's search kept to 2 turns deep and its threat-space search to 2 attacking turns (the
// harness leaves out "depth", "threads" and "threats" above 2, "time" and bench). Invariants: no crash
// or sanitizer report; the protocol stream holds only the name and moves that parse in the letters
// notation; everything else is a note of a known kind.
#include <sstream>
#include <vector>

#include "connect6_engine.h"
#include "fuzz_common.h"
#include "warpmind/search/connect6.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search::connect6;
  std::vector<std::string> out, notes;
  {
    warpmind::demos::Connect6Engine engine([&](const std::string& l) { out.push_back(l); },
                                           [&](const std::string& l) { notes.push_back(l); });
    engine.handle("depth 2");
    engine.handle("threats 2");
    std::istringstream in(warpmind::fuzz::text_of(data, size));
    std::string line;
    for (int n = 0; n < 48 && std::getline(in, line); ++n) {
      std::istringstream words(line);
      std::string cmd;
      long long v = 0;
      words >> cmd;
      if (cmd == "bench" || cmd == "time") continue;
      if ((cmd == "depth" || cmd == "threads" || cmd == "threats") && !((words >> v) && v <= 2)) continue;
      if (!engine.handle(line)) break;
    }
  }
  for (const std::string& l : out) {
    if (l == "name warpmind") continue;
    FUZZ_CHECK(l.rfind("move ", 0) == 0);
    Turn t;
    FUZZ_CHECK(parse_turn(l.substr(5), t).ok());
  }
  for (const std::string& l : notes)
    FUZZ_CHECK(l.rfind("error: ", 0) == 0 || l.rfind("info ", 0) == 0 || l.rfind("result: ", 0) == 0);
  return 0;
}
