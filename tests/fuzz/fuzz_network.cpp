// libFuzzer target: chess network files (search/chess_network.h). A refused file leaves the output as it
// was; an accepted one encodes back to the same bytes and evaluates positions within the value range, the
// same from scratch and along moves (accumulators rebuilt where a king changes bucket), on every SIMD path
// the processor has.
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
  const std::size_t h = static_cast<std::size_t>(net->hidden());
  std::vector<std::int16_t> before[2], after[2];
  for (int c = 0; c < 2; ++c) {
    before[c].resize(h);
    after[c].resize(h);
    net->refresh(p, static_cast<Color>(c), before[c].data());
  }
  MoveList moves;
  generate_legal(p, moves);
  for (Move m : moves) {
    Position q = p;
    Undo u;
    make_move(q, m, u);
    const Network::Change change = net->change(p, m);
    for (int c = 0; c < 2; ++c) {
      if (change.refresh[c])
        net->refresh(q, static_cast<Color>(c), after[c].data());
      else
        net->apply(change, static_cast<Color>(c), before[c].data(), after[c].data());
    }
    const int pieces = __builtin_popcountll(q.occupied[White] | q.occupied[Black]);
    const int value = net->evaluate(q);
    for (Network::Simd s : {Network::Simd::Scalar, Network::Simd::Sse2, Network::Simd::Avx2})
      if (Network::supported(s))
        FUZZ_CHECK(net->output(after[q.side].data(), after[q.side ^ 1].data(), pieces, s) == value);
  }
  return 0;
}
