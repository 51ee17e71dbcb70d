// warpmind-datagen's chess (datagen.h): games labelled by a UCI engine or warpmind's own search, their
// check, the trainer's records and the network's values of them.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "child_process.h"
#include "chess_games.h"
#include "datagen.h"
#include "output.h"
#include "training_records.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::train {

namespace {

namespace sc = search::chess;

// A labelling engine: the score (side to move, centipawns; ±kMateScore for a mate) and the move it chose
// in a position reached by `moves` from the start.
constexpr int kMateScore = 32000;
class Labeller {
 public:
  virtual ~Labeller() = default;
  virtual void new_game() = 0;
  // False when the engine failed (no answer, an illegal move): the game is dropped.
  virtual bool search(const sc::Position& p, const std::vector<std::uint64_t>& keys, const std::string& moves,
                      sc::Move& best, int& score) = 0;
};

class UciLabeller : public Labeller {
 public:
  UciLabeller(const std::string& cmd, const ChessOptions& o)
      : engine_(cmd),
        go_(o.nodes > 0 ? "go nodes " + std::to_string(o.nodes) : "go depth " + std::to_string(o.depth)) {}
  bool start(std::string& why) {
    engine_.send("uci");
    if (!engine_.ok() || !engine_.expect("uciok", 10000)) {
      why = "the engine did not answer uci";
      return false;
    }
    engine_.send("setoption name Threads value 1");
    engine_.send("setoption name Hash value 16");
    engine_.send("isready");
    if (!engine_.expect("readyok", 30000)) {
      why = "the engine did not answer isready";
      return false;
    }
    return true;
  }
  void new_game() override {
    engine_.send("ucinewgame");
    engine_.send("isready");
    engine_.expect("readyok", 30000);
  }
  bool search(const sc::Position& p, const std::vector<std::uint64_t>&, const std::string& moves, sc::Move& best,
              int& score) override {
    engine_.send("position startpos moves" + moves);
    engine_.send(go_);
    std::string l, last_score;
    for (;;) {
      if (!engine_.line(l, 60000)) return false;
      if (l.rfind("info ", 0) == 0 && l.find(" score ") != std::string::npos) last_score = l;
      if (l.rfind("bestmove ", 0) == 0) break;
    }
    const std::size_t end = l.find(' ', 9);
    if (!sc::parse_uci_move(p, l.substr(9, end == std::string::npos ? std::string::npos : end - 9), best).ok())
      return false;
    if (const std::size_t at = last_score.find(" score cp "); at != std::string::npos) {
      score = std::clamp(std::atoi(last_score.c_str() + at + 10), -kMateScore + 1, kMateScore - 1);
      return true;
    }
    if (const std::size_t at = last_score.find(" score mate "); at != std::string::npos) {
      score = std::atoi(last_score.c_str() + at + 12) > 0 ? kMateScore : -kMateScore;
      return true;
    }
    return false;
  }

 private:
  demos::ChildProcess engine_;
  std::string go_;
};

class SelfLabeller : public Labeller {
 public:
  explicit SelfLabeller(int depth) : searcher_(16, 1), depth_(depth) { searcher_.set_network(sc::Network::builtin()); }
  void new_game() override { searcher_.clear(); }
  bool search(const sc::Position& p, const std::vector<std::uint64_t>& keys, const std::string&, sc::Move& best,
              int& score) override {
    sc::SearchLimits limits;
    limits.depth = depth_;
    const sc::SearchResult r = searcher_.search(p, std::vector<std::uint64_t>(keys.begin(), keys.end() - 1), limits);
    if (!r.has_move) return false;
    best = r.best;
    score = std::abs(r.score) > sc::kMateBound ? (r.score > 0 ? kMateScore : -kMateScore) : r.score;
    return true;
  }

 private:
  sc::Searcher searcher_;
  int depth_;
};

bool bare_kings(const sc::Position& p) {
  int minors = 0;
  for (int c = 0; c < 2; ++c) {
    if (p.pieces[c][sc::Pawn] | p.pieces[c][sc::Rook] | p.pieces[c][sc::Queen]) return false;
    minors += __builtin_popcountll(p.pieces[c][sc::Knight] | p.pieces[c][sc::Bishop]);
  }
  return minors <= 1;
}

// One game; false when the labeller failed.
bool play(Labeller& engine, const ChessOptions& o, std::uint32_t index, ChessGameRecord& game) {
  SplitMix64 rng(o.run.seed + index);
  sc::Position p;
  (void)sc::parse_fen(sc::kStartFen, p);
  game = ChessGameRecord{};
  game.index = index;
  std::string moves;
  std::vector<std::uint64_t> keys{p.key};
  std::map<std::uint64_t, int> seen{{p.key, 1}};
  const auto push = [&](sc::Move m, int score) {
    game.plies.push_back({m, static_cast<std::int16_t>(score)});
    moves += ' ';
    moves += sc::move_to_uci(m);
    sc::Undo u;
    sc::make_move(p, m, u);
    keys.push_back(p.key);
    return ++seen[p.key];
  };
  for (int k = 0; k < o.random_plies; ++k) {
    sc::MoveList legal;
    sc::generate_legal(p, legal);
    if (legal.size == 0) return false;  // an opening that ends the game: not a training game
    push(legal.moves[rng.below(static_cast<std::uint32_t>(legal.size))], kNoScore);
  }
  game.random_plies = o.random_plies;
  engine.new_game();
  int streak_side = -1, streak = 0, quiet = 0;
  for (;;) {
    sc::MoveList legal;
    sc::generate_legal(p, legal);
    if (legal.size == 0) {
      game.result = p.in_check() ? (p.side == sc::White ? 0 : 2) : 1;
      return true;
    }
    if (p.halfmove >= 100 || bare_kings(p) || static_cast<int>(game.plies.size()) >= o.max_plies ||
        static_cast<int>(game.plies.size()) >= kMaxGamePlies) {
      game.result = 1;
      return true;
    }
    sc::Move best;
    int score = 0;
    if (!engine.search(p, keys, moves, best, score)) return false;
    // Adjudication, on the scores from the side to move's view.
    const int winner = score > 0 ? p.side : p.side ^ 1;
    if (std::abs(score) < o.adjudicate) {
      streak_side = -1, streak = 0;
    } else if (winner == streak_side) {
      ++streak;
    } else {
      streak_side = winner, streak = 1;
    }
    quiet = std::abs(score) <= 8 ? quiet + 1 : 0;
    if (push(best, std::abs(score) >= kMateScore ? kNoScore : score) >= 3) {
      game.result = 1;
      return true;
    }
    if (streak >= 6) {
      game.result = streak_side == sc::White ? 2 : 0;
      return true;
    }
    if (quiet >= 12 && static_cast<int>(game.plies.size()) >= 80) {
      game.result = 1;
      return true;
    }
  }
}

}  // namespace

int run_chess(const ChessOptions& o) {
  const std::string labels = o.engine == "self"
                                 ? "warpmind " + demos::build_commit() + " at depth " + std::to_string(o.depth)
                                 : o.engine + (o.nodes > 0 ? " at " + std::to_string(o.nodes) + " nodes"
                                                           : " at depth " + std::to_string(o.depth));
  const std::string info = "warpmind-datagen chess: labels by " + labels + "; random plies " +
                           std::to_string(o.random_plies) + "; seed " + std::to_string(o.run.seed) + "; started " +
                           demos::utc_now();
  return generate("chess", o.run, chess_games_header(info), [&](std::string& why) -> Player {
    std::shared_ptr<Labeller> engine;
    if (o.engine == "self") {
      engine = std::make_shared<SelfLabeller>(o.depth);
    } else {
      auto uci = std::make_shared<UciLabeller>(o.engine, o);
      if (!uci->start(why)) return {};
      engine = uci;
    }
    return [engine, &o](std::uint32_t index, std::vector<std::uint8_t>& bytes) {
      ChessGameRecord game;
      if (!play(*engine, o, index, game)) return -1;
      append_game(game, bytes);
      int labelled = 0;
      for (const ChessPly& ply : game.plies) labelled += ply.score != kNoScore;
      return labelled;
    };
  });
}

int chess_info(const std::vector<std::string>& files) {
  int rc = 0;
  for (const std::string& path : files) {
    std::string info;
    std::vector<ChessGameRecord> games;
    if (const Status s = read_chess_games(path, info, games); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen info: %s\n", s.message().c_str());
      rc = 2;
      continue;
    }
    long long plies = 0, labelled = 0;
    int results[3] = {};
    for (const ChessGameRecord& g : games) {
      plies += static_cast<long long>(g.plies.size());
      for (const ChessPly& p : g.plies) labelled += p.score != kNoScore;
      ++results[g.result];
    }
    std::printf("%s: %zu games (White won %d, drawn %d, Black won %d), %lld plies, %lld labelled; %s\n", path.c_str(),
                games.size(), results[2], results[1], results[0], plies, labelled, info.c_str());
  }
  return rc;
}

int chess_expand(const std::vector<std::string>& files, const std::string& out, int min_ply, int max_score) {
  RecordFilter filter;
  filter.min_ply = min_ply;
  filter.max_score = max_score;
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "warpmind-datagen expand: cannot write %s\n", out.c_str());
    return 2;
  }
  std::uint32_t next = 0;
  long long records = 0, plies = 0;
  std::vector<std::uint8_t> bytes;
  for (const std::string& path : files) {
    std::string info;
    std::vector<ChessGameRecord> games;
    if (const Status s = read_chess_games(path, info, games); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen expand: %s\n", s.message().c_str());
      std::fclose(f);
      return 2;
    }
    // In the order of the games' own numbers (a run writes them as they end), so that the records are the
    // same for the same files.
    std::sort(games.begin(), games.end(),
              [](const ChessGameRecord& x, const ChessGameRecord& y) { return x.index < y.index; });
    for (ChessGameRecord& g : games) {
      g.index = next++;
      bytes.clear();
      records += append_records(g, filter, bytes);
      plies += static_cast<long long>(g.plies.size());
      std::fwrite(bytes.data(), 1, bytes.size(), f);
    }
  }
  std::fclose(f);
  std::fprintf(stderr, "warpmind-datagen expand: %u games, %lld plies, %lld records\n", next, plies, records);
  return 0;
}

int chess_score(const std::string& network, const std::string& path) {
  std::shared_ptr<const sc::Network> net = sc::Network::builtin();
  if (!network.empty()) {
    if (const Status s = sc::Network::load(network, net); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen score: %s\n", s.message().c_str());
      return 2;
    }
  }
  std::string bytes;
  if (const std::string err = demos::read_file(path, bytes, std::size_t{1} << 34); !err.empty()) {
    std::fprintf(stderr, "warpmind-datagen score: %s\n", err.c_str());
    return 2;
  }
  if (bytes.size() % kRecordBytes) {
    std::fprintf(stderr, "warpmind-datagen score: %s: not a whole number of records\n", path.c_str());
    return 2;
  }
  std::string text;
  for (std::size_t at = 0; at < bytes.size(); at += kRecordBytes) {
    sc::Position p;
    if (const Status s = record_position(reinterpret_cast<const std::uint8_t*>(bytes.data() + at), p); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen score: record %zu: %s\n", at / kRecordBytes, s.message().c_str());
      return 2;
    }
    text += std::to_string(sc::evaluate(p, net.get())) + "\n";
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace warpmind::train
