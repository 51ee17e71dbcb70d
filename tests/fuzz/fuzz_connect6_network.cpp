// libFuzzer target: Connect6 network files (search/connect6_network.h). A refused file leaves the output
// as it was; an accepted one encodes back to the same bytes, and on a board of a few turns its value is in
// range, the same from accumulators kept stone by stone as from scratch, on every SIMD path.
#include "fuzz_common.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/connect6_network.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search;
  using namespace warpmind::search::connect6;
  std::shared_ptr<const Network> net;
  if (!Network::parse(data, size, net).ok()) {
    FUZZ_CHECK(!net);
    return 0;
  }
  const std::vector<std::uint8_t> back = Network::encode(net->weights());
  FUZZ_CHECK(back.size() == size && std::equal(back.begin(), back.end(), data));
  Board b;
  Network::Accumulator kept;
  net->refresh(b, kept);
  for (const char* text : {"K10", "L11L12", "J9J8", "M13N14", "A1S19"}) {
    Turn t;
    FUZZ_CHECK(parse_turn(text, t).ok());
    const Stone s = b.to_move();
    for (int cell : {t.a, t.b}) {
      if (cell < 0) continue;
      b.place(cell, s);
      net->place(b, cell, kept);
    }
    const int v = net->evaluate(b);
    FUZZ_CHECK(v >= -Network::kMaxValue && v <= Network::kMaxValue);
    for (Simd sim : {Simd::Scalar, Simd::Sse2, Simd::Avx2})
      if (supported(sim)) FUZZ_CHECK(net->value(b, kept, sim) == v);
    (void)net->cell_score(b, 0, s);
  }
  return 0;
}
