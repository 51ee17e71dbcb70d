// libFuzzer target: PGN. A rejected text leaves the game unchanged; an accepted game is written back
// and reads back to the same start, moves and result.
#include "fuzz_common.h"
#include "warpmind/search/pgn.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search::chess;
  PgnGame g;
  g.result = "sentinel";
  if (!read_pgn(warpmind::fuzz::text_of(data, size), g).ok()) {
    FUZZ_CHECK(g.result == "sentinel" && g.moves.empty() && g.tags.empty());
    return 0;
  }
  std::string text;
  FUZZ_CHECK(write_pgn(g, text).ok());
  PgnGame back;
  const warpmind::Status st = read_pgn(text, back);
  if (!st.ok()) std::fprintf(stderr, "written back:\n%s\nrejected: %s\n", text.c_str(), st.message().c_str());
  FUZZ_CHECK(st.ok());
  FUZZ_CHECK(back.moves == g.moves && back.result == g.result);
  Position a, b;
  FUZZ_CHECK(parse_fen(g.fen.empty() ? kStartFen : g.fen, a).ok() &&
             parse_fen(back.fen.empty() ? kStartFen : back.fen, b).ok());
  FUZZ_CHECK(to_fen(a) == to_fen(b));
  return 0;
}
