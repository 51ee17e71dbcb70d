// warpmind-tune as a user runs it: fitting the evaluation's weights on labelled positions; and
// warpmind-chess playing with a network file.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace {

using namespace warpmind::test::cli;

// warpmind-tune on labelled positions whose reference score is the engine's own evaluation plus 60 for
// each knight ahead: the fit must lower the error (by raising the knight), every recorded evaluation must
// equal the engine's, and the committed chess_eval.h must be exactly what the tuner writes for its own
// weights (so a tuning run changes numbers only).
// Labelled positions from random games: the engine's evaluation plus `knight_bonus` for each knight ahead.
void write_knight_data(const fs::path& path, int knight_bonus, int games = 60) {
  using namespace warpmind::search::chess;
  std::ofstream out(path);
  out << "not a position\n8/8/8/8/8/8/8/8 w - - 0 1;10;e2e4;1\n";  // malformed: dropped
  std::mt19937 rng(5);
  for (int game = 0; game < games; ++game) {
    Position p;
    ASSERT_TRUE(parse_fen(kStartFen, p).ok());
    for (int ply = 0; ply < 60; ++ply) {
      MoveList moves;
      generate_legal(p, moves);
      if (moves.size == 0) break;
      const Move* quiet = std::find_if(moves.begin(), moves.end(), [](Move m) {
        return !(m.flags() & (Move::Capture | Move::EnPassant)) && m.promo() == NoPiece;
      });
      if (ply >= 6 && quiet != moves.end() && !p.in_check()) {
        const Color us = p.side, them = us == White ? Black : White;
        const int knights = std::popcount(p.pieces[us][Knight]) - std::popcount(p.pieces[them][Knight]);
        out << to_fen(p) << ';' << evaluate(p) + knight_bonus * knights << ';' << move_to_uci(*quiet) << ";0.5\n";
      }
      Undo u;
      make_move(p, moves.moves[rng() % static_cast<unsigned>(moves.size)], u);
    }
  }
}

TEST(Cli, TuneFitsTheChessEvaluation) {
  const fs::path data = scratch("tune.lbl");
  write_knight_data(data, 150);
  const Outcome r = run("warpmind-tune --data " + data.string() + " --iterations 300 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.rfind("{\"positions\"")));
  EXPECT_GT(j["positions"].get<int>(), 1000);
  EXPECT_GE(j["dropped"].get<int>(), 1);
  EXPECT_EQ(j["mismatches"].get<int>(), 0);
  EXPECT_LT(j["error_fit"][1].get<double>(), 0.75 * j["error_fit"][0].get<double>()) << r.out;
  EXPECT_LT(j["error_held_out"][1].get<double>(), 0.9 * j["error_held_out"][0].get<double>()) << r.out;
  EXPECT_NE(r.out.find("static constexpr short kMg[6][64]"), std::string::npos);
  // The header round trip, and its weights untouched by zero steps.
  const fs::path header = scratch("chess_eval.h");
  const fs::path source = fs::path(WARPMIND_SOURCE_DIR) / "ai/src/search/chess/chess_eval.h";
  fs::copy_file(source, header, fs::copy_options::overwrite_existing);
  ASSERT_EQ(run("warpmind-tune --data " + data.string() + " --iterations 0 --header " + header.string()).status, 0);
  const auto read = [](const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(read(header), read(source));
  // Bad input: a missing file, a file with no usable position, a header of another shape.
  EXPECT_EQ(run("warpmind-tune --data " + scratch("missing.lbl").string()).status, 2);
  const fs::path junk = scratch("junk.lbl");
  std::ofstream(junk) << "x;y;z;w\n";
  EXPECT_EQ(run("warpmind-tune --data " + junk.string()).status, 2);
  const fs::path other = scratch("other.h");
  std::ofstream(other) << "// nothing here\n";
  EXPECT_EQ(run("warpmind-tune --data " + data.string() + " --iterations 0 --header " + other.string()).status, 2);
  EXPECT_EQ(read(other), "// nothing here\n");
}

// warpmind-chess with a network file (EvalFile): a network of the file format (a random one, written here)
// changes the search; a bad file is refused with an error and leaves the evaluation as it was;
// `Evaluation classical` searches without a network.
TEST(Cli, ChessPlaysWithANetworkFile) {
  using namespace warpmind::search::chess;
  Network::Weights w = Network::builtin()->weights();
  std::mt19937 rng(3);
  for (auto& v : w.l2_weights)
    v = static_cast<std::int8_t>(std::clamp<int>(v + static_cast<int>(rng() % 9) - 4, -128, 127));
  const fs::path net_path = scratch("net.wmn"), bad = scratch("bad.wmn");
  {
    const std::vector<std::uint8_t> bytes = Network::encode(w);
    std::ofstream(net_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ofstream(bad) << "WMNN garbage";
  const auto bench = [&](const std::string& options) {
    const fs::path in = scratch("net-uci.txt");
    std::ofstream(in) << "uci\n" << options << "bench 4\nquit\n";
    const Outcome o = run("warpmind-chess < " + in.string());
    EXPECT_EQ(o.status, 0);
    const std::size_t at = o.out.find("Nodes searched: ");
    return std::make_pair(at == std::string::npos ? std::string() : o.out.substr(at, o.out.find('\n', at) - at), o.out);
  };
  const auto builtin = bench(""), file = bench("setoption name EvalFile value " + net_path.string() + "\n");
  const auto refused = bench("setoption name EvalFile value " + net_path.string() + "\nsetoption name EvalFile value " +
                             bad.string() + "\n");
  const auto classical = bench("setoption name Evaluation value classical\n");
  ASSERT_FALSE(builtin.first.empty()) << builtin.second;
  EXPECT_NE(file.first, builtin.first);
  EXPECT_EQ(refused.first, file.first);
  EXPECT_NE(refused.second.find("info string error: option EvalFile:"), std::string::npos) << refused.second;
  EXPECT_NE(classical.first, builtin.first);
}

}  // namespace
