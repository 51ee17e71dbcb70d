// libFuzzer target: the training data's games files (demos/train/chess_games.h, connect6_games.h), the
// same bytes read as both. A refused file leaves the outputs as they were; an accepted one encodes back to
// the same bytes, and the trainer's records made from its games hold positions that read back (chess) or
// records of the right size (Connect6).
#include "chess_games.h"
#include "connect6_games.h"
#include "connect6_records.h"
#include "fuzz_common.h"
#include "training_records.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::train;
  {
    std::string info = "kept";
    std::vector<ChessGameRecord> games(1);
    if (decode_chess_games(data, size, info, games).ok()) {
      std::vector<std::uint8_t> back = chess_games_header(info), records;
      for (const ChessGameRecord& g : games) {
        append_game(g, back);
        append_records(g, RecordFilter{0, 32000}, records);
      }
      FUZZ_CHECK(back.size() == size && std::equal(back.begin(), back.end(), data));
      FUZZ_CHECK(records.size() % kRecordBytes == 0);
      for (std::size_t at = 0; at < records.size(); at += kRecordBytes) {
        warpmind::search::chess::Position p;
        FUZZ_CHECK(record_position(records.data() + at, p).ok());
      }
    } else {
      FUZZ_CHECK(info == "kept" && games.size() == 1 && games[0].plies.empty());
    }
  }
  std::string info = "kept";
  std::vector<Connect6GameRecord> games(1);
  if (!decode_connect6_games(data, size, info, games).ok()) {
    FUZZ_CHECK(info == "kept" && games.size() == 1 && games[0].turns.empty());
    return 0;
  }
  std::vector<std::uint8_t> back = connect6_games_header(info), records;
  for (std::size_t g = 0; g < games.size(); ++g) {
    append_game(games[g], back);
    append_records(games[g], 30000, static_cast<std::uint32_t>(g), records);
  }
  FUZZ_CHECK(back.size() == size && std::equal(back.begin(), back.end(), data));
  FUZZ_CHECK(records.size() % kConnect6RecordBytes == 0);
  return 0;
}
