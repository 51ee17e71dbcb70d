// libFuzzer target: FEN and UCI moves. A rejected FEN leaves the position unchanged; an accepted one
// round-trips through to_fen, has a consistent key and legal moves that all parse back from their UCI
// and SAN names; a line after the FEN is tried as moves, each accepted one made and unmade exactly.
#include "fuzz_common.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/pgn.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search::chess;
  const std::string text = warpmind::fuzz::text_of(data, size);
  const std::size_t nl = text.find('\n');
  const std::string fen = text.substr(0, nl), moves = nl == std::string::npos ? "" : text.substr(nl + 1);
  Position start;
  FUZZ_CHECK(parse_fen(kStartFen, start).ok());
  Position p = start;
  if (!parse_fen(fen, p).ok()) {
    FUZZ_CHECK(to_fen(p) == kStartFen && p.key == start.key);
    return 0;
  }
  const std::string out = to_fen(p);
  Position q;
  FUZZ_CHECK(parse_fen(out, q).ok());
  FUZZ_CHECK(to_fen(q) == out);
  FUZZ_CHECK(p.key == compute_key(p) && q.key == p.key);
  MoveList legal;
  generate_legal(p, legal);
  for (const Move& m : legal) {
    Move back;
    FUZZ_CHECK(parse_uci_move(p, move_to_uci(m), back).ok() && back == m);
    FUZZ_CHECK(parse_san(p, move_to_san(p, m), back).ok() && back == m);
  }
  // The rest of the input as moves from this position.
  std::size_t at = 0;
  for (int n = 0; n < 64 && at < moves.size(); ++n) {
    const std::size_t end = std::min(moves.find(' ', at), moves.size());
    const std::string word = moves.substr(at, end - at);
    at = end + 1;
    Move m;
    const Position before = p;
    if (!parse_san(p, word, m).ok()) {
      FUZZ_CHECK(to_fen(p) == to_fen(before));
      continue;
    }
    Undo u;
    make_move(p, m, u);
    FUZZ_CHECK(p.key == compute_key(p));
    Position undone = p;
    unmake_move(undone, m, u);
    FUZZ_CHECK(to_fen(undone) == to_fen(before) && undone.key == before.key);
  }
  return 0;
}
