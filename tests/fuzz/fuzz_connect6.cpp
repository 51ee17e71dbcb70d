// libFuzzer target: Connect6 notation and game records. A turn that parses names the same cells again
// in both notations; a rejected record leaves the output unchanged; an accepted one is written back and
// reads back to the same turns and result.
#include "fuzz_common.h"
#include "warpmind/search/connect6.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::search::connect6;
  const std::string text = warpmind::fuzz::text_of(data, size);
  Turn t{7, 8};
  if (parse_turn(text, t).ok()) {
    FUZZ_CHECK(t.a >= 0 && t.a < kCells && t.b >= -1 && t.b < kCells);
    for (Notation n : {Notation::Human, Notation::Letters}) {
      Turn back;
      FUZZ_CHECK(parse_turn(turn_name(t, n), back).ok() && back == t);
    }
  } else {
    FUZZ_CHECK(t.a == 7 && t.b == 8);
  }
  Record r;
  r.result = "sentinel";
  if (!read_record(text, r).ok()) {
    FUZZ_CHECK(r.result == "sentinel" && r.turns.empty() && r.tags.empty());
    return 0;
  }
  std::string out;
  FUZZ_CHECK(write_record(r, out).ok());
  Record back;
  FUZZ_CHECK(read_record(out, back).ok());
  FUZZ_CHECK(back.turns == r.turns && back.result == r.result);
  return 0;
}
