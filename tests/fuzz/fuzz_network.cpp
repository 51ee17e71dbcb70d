// libFuzzer target: chess network files (search/chess_network.h). A refused file leaves the output as it
// was; an accepted one encodes back to the same bytes and evaluates positions within the value range, the
// same from scratch and along moves.
#include "fuzz_common.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search::chess;
  std::shared_ptr<const Network> net;
  if (!Network::parse(data, size, net).ok()) {
    FUZZ_CHECK(!net);
    return 0;
  }
  FUZZ_CHECK(net);
  const std::vector<std::uint8_t> back = Network::encode(net->weights());
  FUZZ_CHECK(back.size() == size && std::equal(back.begin(), back.end(), data));
  Position p;
  FUZZ_CHECK(parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", p).ok());
  const int v = net->evaluate(p);
  FUZZ_CHECK(v >= -Network::kMaxValue && v <= Network::kMaxValue);
  std::vector<std::int16_t> acc(4 * static_cast<std::size_t>(net->hidden()));
  std::int16_t* w = acc.data();
  std::int16_t* b = w + net->hidden();
  std::int16_t* w2 = b + net->hidden();
  std::int16_t* b2 = w2 + net->hidden();
  net->refresh(p, w, b);
  MoveList moves;
  generate_legal(p, moves);
  for (Move m : moves) {
    Position q = p;
    Undo u;
    make_move(q, m, u);
    net->apply(Network::change(p, m), w, b, w2, b2);
    FUZZ_CHECK(net->output(q.side == White ? w2 : b2, q.side == White ? b2 : w2) == net->evaluate(q));
  }
  return 0;
}
