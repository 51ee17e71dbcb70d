// warpmind-referee — plays engines against each other under a clock and checks every move with the
// search module's rules: an illegal move or an empty clock loses the game on the spot.
//
//   warpmind-referee [--game chess|connect6] --engine1 CMD --engine2 CMD [--games N] [--time MS] [--inc MS]
//                    [--seed N] [--log FILE]
//
// Chess (UCI engines): a clock of --time plus --inc per move; games end by mate, stalemate, the 50-move
// rule, threefold repetition, bare kings or a ply limit; games are played in pairs from the same two
// random legal opening plies (seeded), colours swapped.
// Connect6 (the common text protocol of warpmind-connect6): every turn has --time ms (sent to both as
// `time MS`); an answer later than --time plus --inc (the tolerance) loses on time. Games are played in
// pairs from the same opening (Black's centre stone and one random turn of each side among the 16
// best candidates, seeded), colours swapped; they end with a six or a full board.
// Prints one line per game and a summary (engine 1's wins, draws and losses, its score, and the Elo
// difference that score means with a 95% interval from the games' own variance); exits 1 when engine 1 made an illegal move or lost on time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "child_process.h"
#include "flags.h"
#include "output.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/connect6.h"

namespace {

using namespace warpmind;
using namespace warpmind::search::chess;
using Clock = std::chrono::steady_clock;

// "score: 62.5% of 40 games, Elo +89 ± 98 (95%: -6 .. +191)": the score s, the logistic Elo difference
// -400 log10(1/s - 1), and the interval from s ± 1.96 standard errors of the per-game results (a bound
// at a score of 0 or 1 prints as -inf or +inf).
std::string score_line(int wins, int draws, int losses) {
  const int n = wins + draws + losses;
  if (n == 0) return "score: no games";
  const double s = (wins + 0.5 * draws) / n;
  const double var = (wins * (1 - s) * (1 - s) + draws * (0.5 - s) * (0.5 - s) + losses * s * s) / n;
  const double half = 1.96 * std::sqrt(var / n);
  const auto elo = [](double x) {
    if (x <= 0) return std::string("-inf");
    if (x >= 1) return std::string("+inf");
    char b[32];
    std::snprintf(b, sizeof b, "%+.0f", -400 * std::log10(1 / x - 1));
    return std::string(b);
  };
  char b[160];
  const double lo = s - half, hi = s + half;
  if (lo > 0 && hi < 1 && s > 0 && s < 1) {
    const double e_lo = -400 * std::log10(1 / lo - 1), e_hi = -400 * std::log10(1 / hi - 1);
    std::snprintf(b, sizeof b, "score: %.1f%% of %d games, Elo %s ± %.0f (95%%: %s .. %s)", 100 * s, n, elo(s).c_str(),
                  (e_hi - e_lo) / 2, elo(lo).c_str(), elo(hi).c_str());
  } else {
    std::snprintf(b, sizeof b, "score: %.1f%% of %d games, Elo %s (95%%: %s .. %s)", 100 * s, n, elo(s).c_str(),
                  elo(lo).c_str(), elo(hi).c_str());
  }
  return b;
}

// An engine: a child process speaking UCI (chess) or the Connect6 text protocol.
using Engine = demos::ChildProcess;

bool bare_kings(const Position& p) {
  int minors = 0;
  for (int c = 0; c < 2; ++c) {
    if (p.pieces[c][Pawn] | p.pieces[c][Rook] | p.pieces[c][Queen]) return false;
    minors += __builtin_popcountll(p.pieces[c][Knight] | p.pieces[c][Bishop]);
  }
  return minors <= 1;
}

struct Outcome {
  int score = 1;  // 2: engine 1 won, 0: engine 2 won, 1: draw
  std::string why;
  bool engine1_illegal = false, engine1_flag = false;
};

Outcome play(Engine* white, Engine* black, bool engine1_white, int time_ms, int inc_ms, std::uint64_t seed,
             std::string& moves) {
  Position p;
  (void)parse_fen(kStartFen, p);
  SplitMix64 rng(seed);
  std::map<std::uint64_t, int> seen;
  long long clock[2] = {time_ms, time_ms};
  moves.clear();
  Outcome o;
  const auto finish = [&](int winner_color, const std::string& why) {  // winner_color: 0 white, 1 black, -1 draw
    o.why = why;
    o.score = winner_color < 0 ? 1 : ((winner_color == 0) == engine1_white ? 2 : 0);
    return o;
  };
  for (int ply = 0;; ++ply) {
    MoveList legal;
    generate_legal(p, legal);
    if (legal.size == 0) return p.in_check() ? finish(p.side == White ? 1 : 0, "mate") : finish(-1, "stalemate");
    if (p.halfmove >= 100) return finish(-1, "50 moves");
    if (++seen[p.key] >= 3) return finish(-1, "repetition");
    if (bare_kings(p)) return finish(-1, "bare kings");
    if (ply >= 400) return finish(-1, "ply limit");
    Move m;
    if (ply < 2) {  // the opening: two random plies
      m = legal.moves[static_cast<std::size_t>(rng.next() % static_cast<std::uint64_t>(legal.size))];
    } else {
      Engine* e = p.side == White ? white : black;
      const bool is_engine1 = (p.side == White) == engine1_white;
      e->send("position startpos moves" + moves);
      e->send("go wtime " + std::to_string(clock[White]) + " btime " + std::to_string(clock[Black]) + " winc " +
              std::to_string(inc_ms) + " binc " + std::to_string(inc_ms));
      const auto t0 = Clock::now();
      std::string best;
      const bool answered = e->expect("bestmove", static_cast<int>(clock[p.side]) + 1000, &best);
      const long long used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      clock[p.side] -= used;
      if (!answered || clock[p.side] < 0) {
        o.engine1_flag = is_engine1;
        return finish(p.side == White ? 1 : 0, answered ? "time" : "no answer");
      }
      clock[p.side] += inc_ms;
      const std::string text = best.size() > 9 ? best.substr(9, best.find(' ', 9) - 9) : "";
      if (!parse_uci_move(p, text, m).ok()) {
        o.engine1_illegal = is_engine1;
        return finish(p.side == White ? 1 : 0, "illegal move '" + text + "'");
      }
    }
    moves += " " + move_to_uci(m);
    Undo u;
    make_move(p, m, u);
  }
}

namespace c6 = warpmind::search::connect6;

// One Connect6 game; black/white are the engines playing those colours.
Outcome play_connect6(Engine* black, Engine* white, bool engine1_black, int time_ms, int tolerance_ms,
                      std::uint64_t opening_seed, std::string& moves) {
  c6::Board b;
  SplitMix64 rng(opening_seed);
  moves.clear();
  Outcome o;
  const auto finish = [&](c6::Stone winner, const std::string& why) {  // Empty: a draw
    o.why = why;
    o.score = winner == c6::Empty ? 1 : ((winner == c6::BlackStone) == engine1_black ? 2 : 0);
    return o;
  };
  // The opening: set up on both engines.
  for (int turn = 0; turn < 3; ++turn) {
    std::vector<c6::Turn> c;
    c6::candidate_turns(b, 16, c);
    const c6::Turn t = turn == 0 ? c.front() : c[static_cast<std::size_t>(rng.next() % c.size())];
    const c6::Stone s = b.to_move();
    (void)b.play(t);  // a candidate of a game not over: legal
    for (int cell : {t.a, t.b}) {
      if (cell < 0) continue;
      const std::string name = c6::turn_name(c6::Turn{cell, -1}, c6::Notation::Letters);
      for (Engine* e : {black, white}) e->send(std::string(s == c6::BlackStone ? "black " : "white ") + name);
    }
    moves += " " + c6::turn_name(t, c6::Notation::Letters);
  }
  bool first = true;
  std::string last;  // the previous engine turn, for the other engine
  while (!b.over()) {
    const bool black_to_move = b.to_move() == c6::BlackStone;
    Engine* e = black_to_move ? black : white;
    const bool is_engine1 = black_to_move == engine1_black;
    e->send(first ? "next" : "move " + last);
    first = false;
    const auto t0 = Clock::now();
    std::string answer;
    const bool answered = e->expect("move ", time_ms + tolerance_ms + 1000, &answer);
    const long long used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    const c6::Stone them = black_to_move ? c6::WhiteStone : c6::BlackStone;
    if (!answered || used > time_ms + tolerance_ms) {
      o.engine1_flag = is_engine1;
      return finish(them, answered ? "time (" + std::to_string(used) + " ms)" : "no answer");
    }
    const std::string text = answer.substr(5);
    c6::Turn t;
    if (!c6::parse_turn(text, t).ok() || !b.play(t).ok()) {
      o.engine1_illegal = is_engine1;
      return finish(them, "illegal turn '" + text + "'");
    }
    last = c6::turn_name(t, c6::Notation::Letters);
    moves += " " + last;
  }
  return finish(b.winner(), b.winner() == c6::Empty ? "full board" : "six");
}

// "NAME=VALUE,NAME=VALUE": "" or what is wrong.
std::string check_options(const std::string& list) {
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return "expected NAME=VALUE, got '" + item + "'";
    at = comma + 1;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Plays engines against each other under a clock and checks every move with the search module's rules: an "
      "illegal move or an empty clock loses the game on the spot. Prints one line per game and a summary; exits 1 "
      "when engine 1 made an illegal move or lost on time.\n"
      "Chess (UCI engines): a clock of --time plus --inc per move; games end by mate, stalemate, the 50-move rule, "
      "threefold repetition, bare kings or a ply limit; games are played in pairs from the same two random legal "
      "opening plies (seeded), colours swapped.\n"
      "Connect6 (the text protocol of warpmind-connect6): every turn has --time ms (sent to both as `time MS`); "
      "an answer later than --time plus --inc loses on time. Games are played in pairs from the same opening "
      "(Black's centre stone and one random turn of each side among the 16 best candidates, seeded), colours "
      "swapped; they end with a six or a full board.",
      "warpmind-referee");
  demos::configure(app);
  std::string game = "chess", engine_cmd[2], options[2], log_path;
  int games = 20, time_ms = 5000, inc_ms = 50;
  std::uint64_t seed = 1;
  demos::add_choice(app, "--game", game, {"chess", "connect6"}, "the game played");
  for (int e = 0; e < 2; ++e) {
    const std::string n = std::to_string(e + 1);
    demos::add_text(app, "--engine" + n, engine_cmd[e], "CMD", "engine " + n + "'s command line, run by /bin/sh")
        ->required();
  }
  for (int e = 0; e < 2; ++e) {
    const std::string n = std::to_string(e + 1);
    demos::add_text(app, "--options" + n, options[e], "NAME=VALUE,...",
                    "chess: UCI options sent to engine " + n +
                        " (setoption) before each game, e.g. Search=hybrid,Threads=4; connect6: commands (NAME "
                        "VALUE), e.g. search=hybrid,depth=8",
                    check_options);
  }
  demos::add_integer(app, "--games", games, 1, 10000, "N", "games played");
  demos::add_integer(app, "--time", time_ms, 100, 3600000, "MS", "chess: the clock; connect6: each turn's limit");
  demos::add_integer(app, "--inc", inc_ms, 0, 60000, "MS",
                     "chess: the clock's increment per move; connect6: the tolerance past a turn's limit");
  demos::add_integer(app, "--seed", seed, 0, INT64_MAX, "N", "the openings' seed");
  demos::add_text(app, "--log", log_path, "FILE", "every game's moves (rewritten after each game)");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  const bool connect6 = game == "connect6";
  // "NAME=VALUE,NAME=VALUE" -> setoption lines (checked when parsed).
  std::vector<std::string> setup[2];
  for (int e = 0; e < 2; ++e) {
    const std::string& list = options[e];
    for (std::size_t at = 0; at < list.size();) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      const std::string item = list.substr(at, comma - at);
      const std::size_t eq = item.find('=');
      setup[e].push_back(connect6 ? item.substr(0, eq) + " " + item.substr(eq + 1)
                                  : "setoption name " + item.substr(0, eq) + " value " + item.substr(eq + 1));
      at = comma + 1;
    }
  }
  std::string log;
  int points = 0, illegal = 0, flags = 0, w = 0, d = 0, l = 0;
  for (int g = 0; g < games; ++g) {
    Engine e1(engine_cmd[0]), e2(engine_cmd[1]);
    if (connect6) {
      for (Engine* e : {&e1, &e2}) {
        for (const std::string& line : setup[e == &e1 ? 0 : 1]) e->send(line);
        e->send("time " + std::to_string(time_ms));
        e->send("new white");  // a fresh board; the referee says whose turn it is
        // `name` answered after the setup: the engine has taken it (a GPU started by `backend cuda`
        // included) before any clock runs, as UCI's isready does for chess.
        e->send("name");
        if (!e->ok() || !e->expect("name", 30000)) {
          std::fprintf(stderr, "warpmind-referee: an engine did not answer name\n");
          return 2;
        }
      }
    }
    for (Engine* e : {&e1, &e2}) {
      if (connect6) break;
      e->send("uci");
      if (!e->ok() || !e->expect("uciok", 10000)) {
        std::fprintf(stderr, "warpmind-referee: an engine did not answer uci\n");
        return 2;
      }
      for (const std::string& line : setup[e == &e1 ? 0 : 1]) e->send(line);
      e->send("ucinewgame");
      e->send("isready");
      e->expect("readyok", 30000);
    }
    const bool e1_white = g % 2 == 0;  // connect6: engine 1 is Black in the even games
    std::string moves;
    const std::uint64_t opening = seed + static_cast<std::uint64_t>(g / 2);  // one opening a pair of games
    const Outcome o =
        connect6 ? play_connect6(e1_white ? &e1 : &e2, e1_white ? &e2 : &e1, e1_white, time_ms, inc_ms, opening, moves)
                 : play(e1_white ? &e1 : &e2, e1_white ? &e2 : &e1, e1_white, time_ms, inc_ms, opening, moves);
    points += o.score;
    (o.score == 2 ? w : o.score == 1 ? d : l) += 1;
    illegal += o.engine1_illegal;
    flags += o.engine1_flag;
    char line[256];
    std::snprintf(line, sizeof line, "game %d: engine 1 %s, %s (%s), %zu %s\n", g + 1,
                  connect6 ? (e1_white ? "black" : "white") : (e1_white ? "white" : "black"),
                  o.score == 2   ? "won"
                  : o.score == 1 ? "draw"
                                 : "lost",
                  o.why.c_str(), static_cast<std::size_t>(std::count(moves.begin(), moves.end(), ' ')),
                  connect6 ? "turns" : "plies");
    std::fputs(line, stdout);
    std::fflush(stdout);
    log += line + std::string("  moves:") + moves + "\n";
    if (app.count("--log")) {  // rewritten after every game, so a match cut short keeps the games it played
      const std::string err = demos::write_file(log_path, log);
      if (!err.empty()) std::fprintf(stderr, "warpmind-referee: %s\n", err.c_str());
    }
  }
  std::printf("engine 1: +%d =%d -%d; illegal moves %d, time losses %d\n", w, d, l, illegal, flags);
  std::printf("%s\n", score_line(w, d, l).c_str());
  return illegal || flags ? 1 : 0;
}
