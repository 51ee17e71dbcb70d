// The training data's files (demos/train/chess_games.h, training_records.h): games round-trip through the
// file; every kind of fault is refused with the game and ply named and the outputs unchanged; the
// records hold exactly the quiet labelled positions, with the engine's own features.
#include <gtest/gtest.h>

#include <random>

#include "chess_games.h"
#include "training_records.h"
#include "warpmind/search/chess_network.h"

namespace warpmind::train {
namespace {

namespace sc = search::chess;

// A random game from the start: `random` unlabelled plies, then scores 10 · ply.
ChessGameRecord random_game(std::uint32_t index, int plies, int random, unsigned seed) {
  std::mt19937 rng(seed);
  ChessGameRecord g;
  g.index = index;
  g.random_plies = random;
  g.result = static_cast<int>(seed % 3);
  sc::Position p;
  EXPECT_TRUE(sc::parse_fen(sc::kStartFen, p).ok());
  for (int k = 0; k < plies; ++k) {
    sc::MoveList legal;
    sc::generate_legal(p, legal);
    if (legal.size == 0) break;
    const sc::Move m = legal.moves[rng() % static_cast<unsigned>(legal.size)];
    g.plies.push_back({m, k < random ? kNoScore : static_cast<std::int16_t>(10 * k - 500)});
    sc::Undo u;
    sc::make_move(p, m, u);
  }
  return g;
}

std::vector<std::uint8_t> file_of(const std::vector<ChessGameRecord>& games) {
  std::vector<std::uint8_t> bytes = chess_games_header("test games");
  for (const ChessGameRecord& g : games) append_game(g, bytes);
  return bytes;
}

TEST(TrainingGames, RoundTripThroughTheFile) {
  std::vector<ChessGameRecord> games;
  for (unsigned s = 0; s < 20; ++s) games.push_back(random_game(s * 7, 200, 8, s));
  const std::vector<std::uint8_t> bytes = file_of(games);
  std::string info;
  std::vector<ChessGameRecord> back;
  ASSERT_TRUE(decode_chess_games(bytes.data(), bytes.size(), info, back).ok());
  EXPECT_EQ(info, "test games");
  ASSERT_EQ(back.size(), games.size());
  std::size_t plies = 0;
  for (std::size_t g = 0; g < games.size(); ++g) {
    EXPECT_EQ(back[g].index, games[g].index);
    EXPECT_EQ(back[g].result, games[g].result);
    EXPECT_EQ(back[g].random_plies, games[g].random_plies);
    ASSERT_EQ(back[g].plies.size(), games[g].plies.size());
    for (std::size_t k = 0; k < games[g].plies.size(); ++k) {
      EXPECT_EQ(back[g].plies[k].move, games[g].plies[k].move);  // flags recovered from the position
      EXPECT_EQ(back[g].plies[k].score, games[g].plies[k].score);
    }
    plies += games[g].plies.size();
  }
  EXPECT_EQ(bytes.size(), chess_games_header("test games").size() + 8 * games.size() + 4 * plies);
}

TEST(TrainingGames, FaultsAreRefusedAndChangeNothing) {
  const std::vector<ChessGameRecord> games = {random_game(0, 30, 4, 1), random_game(1, 30, 4, 2)};
  const std::vector<std::uint8_t> good = file_of(games);
  const std::size_t first = chess_games_header("test games").size();  // the first game's header
  const std::size_t second = first + 8 + 4 * games[0].plies.size();
  const auto refused = [&](const std::vector<std::uint8_t>& bytes, const std::string& expect) {
    std::string info = "unchanged";
    std::vector<ChessGameRecord> out(3);
    const Status st = decode_chess_games(bytes.data(), bytes.size(), info, out);
    EXPECT_FALSE(st.ok()) << expect;
    EXPECT_NE(st.message().find(expect), std::string::npos) << st.message();
    EXPECT_EQ(info, "unchanged");
    EXPECT_EQ(out.size(), 3u);
  };
  auto bad = good;
  bad[0] = 'X';
  refused(bad, "WMGC");
  bad = good;
  bad[4] = 2;
  refused(bad, "version 2");
  bad = good;
  bad[8] = 0xFF, bad[9] = 0xFF;  // text longer than the file
  refused(bad, "text");
  bad = good;
  bad.resize(second + 5);
  refused(bad, "game 1 (at byte " + std::to_string(second) + "): truncated header");
  bad = good;
  bad.pop_back();
  refused(bad, "game 1 (at byte " + std::to_string(second) + "): truncated moves");
  bad = good;
  bad[first + 4] = 0, bad[first + 5] = 0;  // no plies
  refused(bad, "game 0 (at byte " + std::to_string(first) + "): 0 plies");
  bad = good;
  bad[first + 6] = 3;
  refused(bad, "result 3");
  bad = good;
  bad[first + 7] = 31;
  refused(bad, "more random plies than plies");
  bad = good;
  bad[second + 8 + 4 * 5 + 1] |= 0x80;  // bit 15 of game 1's sixth move
  refused(bad, "game 1 (at byte " + std::to_string(second) + "), ply 5: malformed move code");
  bad = good;
  bad[second + 8 + 4 * 6] ^= 0x3F;  // game 1's seventh move from another square
  refused(bad, "ply 6: illegal move");
  bad = good;
  bad[first + 8 + 2] = 0;  // game 0's first (random) ply given a score
  bad[first + 8 + 3] = 0;
  refused(bad, "ply 0: a random ply with a score");
  std::string info;
  std::vector<ChessGameRecord> out;
  EXPECT_TRUE(decode_chess_games(good.data(), good.size(), info, out).ok());
  EXPECT_FALSE(read_chess_games("/nonexistent/games.wmg", info, out).ok());
}

TEST(TrainingRecords, HoldTheQuietLabelledPositionsWithTheEngineFeatures) {
  const ChessGameRecord game = random_game(42, 300, 8, 9);
  RecordFilter filter;
  filter.min_ply = 12;
  filter.max_score = 1000;
  std::vector<std::uint8_t> records;
  const int n = append_records(game, filter, records);
  ASSERT_EQ(records.size(), static_cast<std::size_t>(n) * kRecordBytes);
  // The positions that should be there, replayed independently.
  sc::Position p;
  ASSERT_TRUE(sc::parse_fen(sc::kStartFen, p).ok());
  std::vector<sc::Position> expected;
  std::vector<int> plies;
  for (std::size_t k = 0; k < game.plies.size(); ++k) {
    const sc::Move m = game.plies[k].move;
    const bool quiet = !(m.flags() & (sc::Move::Capture | sc::Move::EnPassant)) && m.promo() == sc::NoPiece;
    if (k >= 12 && game.plies[k].score != kNoScore && std::abs(game.plies[k].score) <= 1000 && quiet && !p.in_check()) {
      expected.push_back(p);
      plies.push_back(static_cast<int>(k));
    }
    sc::Undo u;
    sc::make_move(p, m, u);
  }
  ASSERT_EQ(static_cast<std::size_t>(n), expected.size());
  ASSERT_GT(n, 20);
  for (int i = 0; i < n; ++i) {
    const std::uint8_t* r = records.data() + static_cast<std::size_t>(i) * kRecordBytes;
    const sc::Position& want = expected[static_cast<std::size_t>(i)];
    sc::Position got;
    ASSERT_TRUE(record_position(r, got).ok());
    EXPECT_EQ(sc::to_fen(got).substr(0, sc::to_fen(got).find(' ', sc::to_fen(got).find(' ') + 1)),
              sc::to_fen(want).substr(0, sc::to_fen(want).find(' ', sc::to_fen(want).find(' ') + 1)));
    const int ply = plies[static_cast<std::size_t>(i)];
    EXPECT_EQ(static_cast<std::int16_t>(r[24] | r[25] << 8), game.plies[static_cast<std::size_t>(ply)].score);
    EXPECT_EQ(r[26], want.side == sc::White ? game.result : 2 - game.result);
    EXPECT_EQ(r[36] | r[37] << 8, ply);
    EXPECT_EQ(r[32] | r[33] << 8, 42);
    // Features: the engine's, for each piece in square order and each perspective; 0xFFFF after.
    const sc::Color persp[2] = {want.side, static_cast<sc::Color>(want.side ^ 1)};
    int slot = 0;
    for (int sq = 0; sq < 64; ++sq) {
      if (want.board[sq] < 0) continue;
      for (int k = 0; k < 2; ++k) {
        const int f =
            sc::Network::feature(persp[k], want.king_square(persp[k]), want.color_at(sq), want.type_at(sq), sq);
        EXPECT_EQ(r[40 + k * 64 + slot * 2] | r[41 + k * 64 + slot * 2] << 8, f);
      }
      ++slot;
    }
    EXPECT_EQ(r[30], slot);
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(r[28 + k], sc::Network::king32(persp[k], want.king_square(persp[k])));
      for (int s = slot; s < 32; ++s) EXPECT_EQ(r[40 + k * 64 + s * 2] | r[41 + k * 64 + s * 2] << 8, 0xFFFF);
    }
  }
}

}  // namespace
}  // namespace warpmind::train
