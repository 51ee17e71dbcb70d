// warpmind-datagen — the training data of the learned evaluations (docs/training.md): games played from
// random openings and labelled by a search, written compactly (chess_games.h), and the trainer's records
// made from them (training_records.h).
//
//   warpmind-datagen chess --out FILE.wmg [--engine CMD | --engine self] [--nodes N | --depth D] [--games N]
//                          [--seconds S] [--threads T] [--seed S] [--random-plies P] ...
//   warpmind-datagen info FILE.wmg...
//   warpmind-datagen expand --out FILE.bin [--min-ply N] [--max-score CP] FILE.wmg...
//   warpmind-datagen score [--network FILE] FILE.bin
//   warpmind-datagen connect6 --out FILE.wmg6 [--depth D] [--width W] [--threats T] [--network builtin|FILE] ...
//   warpmind-datagen connect6-info | connect6-expand | connect6-score ...
//
// `chess`: each game starts with --random-plies uniformly random legal moves; then the labelling engine
// plays both sides, and every position's score (from its search before the move) is stored. With a UCI
// engine (--engine CMD, e.g. /usr/games/stockfish: one thread, 16 MB of hash, `ucinewgame` before each
// game) each move is a `go nodes N` (or `go depth D`); with --engine self, warpmind's own searcher at
// --depth D (one thread, 16 MB). A game ends at mate or stalemate, a threefold repetition, the fifty-move
// rule, bare kings (draws), --max-plies (a draw), when the side to move's score stays at or above
// --adjudicate centipawns (or at or below minus it) for 6 plies in a row (a win), or after ply 80 when
// every score of the last 12 plies is within ±8 (a draw). Game k of a run uses the seed --seed + k, so a
// run of --games N is reproducible (with a UCI engine that is deterministic at a fixed node count, as
// Stockfish on one thread is); --seconds stops starting games after that long. Games are appended to the
// file as they end, in any order (each carries its number); progress goes to stderr every 10 seconds.
// `expand`: the trainer's records (training_records.h) of the games' quiet labelled positions, the games
// numbered in the order of the files given and, within a file, of their own numbers (so the same files
// give the same records). `score`: the network's value of each record's position, a line each (the
// trainer's tests hold its integer forward pass to these).
// `connect6`: games of warpmind's Connect6 search (depth, width, threat-space search, the window-count
// evaluation or a network) from the centre stone and --random-turns - 1 random turns among the 16 best
// candidates, every turn's search score stored (connect6_games.h); the game ends with a six or a full
// board. `connect6-expand` writes the trainer's records (connect6_records.h); `connect6-score` prints a
// network's value and the cell scores of the empty cells of each record, a line each.
#include <cstdio>
#include <string>
#include <vector>

#include "chess_games.h"
#include "datagen.h"
#include "flags.h"

using namespace warpmind;

namespace {

// The flags of a run of games (datagen.h's RunOptions).
void add_run_flags(CLI::App& c, train::RunOptions& r, const std::string& file) {
  demos::add_text(c, "--out", r.out, "FILE", "the games file written (" + file + ")")->required();
  demos::add_integer(c, "--games", r.games, 1, 100000000, "N", "games to play");
  demos::add_integer(c, "--seconds", r.seconds, 0, 100000000, "S", "start no game after S seconds (0: no limit)");
  demos::add_integer(c, "--threads", r.threads, 1, 1024, "T", "games at a time (an engine each)");
  demos::add_integer(c, "--seed", r.seed, 0, INT64_MAX, "S", "game k's opening comes from seed S + k");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "The training data of the learned evaluations: games from random openings labelled by a search "
      "(docs/training.md).",
      "warpmind-datagen");
  demos::configure(app);
  std::vector<demos::Subcommand> commands;
  train::ChessOptions o;
  {
    CLI::App* c = demos::add_subcommand(
        app, "chess",
        "Plays chess games from random openings with a labelling engine on both sides and writes every "
        "position's score (a .wmg file, demos/train/chess_games.h).");
    add_run_flags(*c, o.run, ".wmg");
    demos::add_text(*c, "--engine", o.engine, "CMD",
                    "the labelling engine: a UCI engine's command line (run by /bin/sh), or self (warpmind's "
                    "searcher with the built-in network)");
    demos::add_integer(*c, "--nodes", o.nodes, 0, 100000000, "N", "a UCI engine's nodes a move (0: use --depth)");
    demos::add_integer(*c, "--depth", o.depth, 0, 64, "D", "the search depth a move (with --nodes 0, or self)");
    demos::add_integer(*c, "--random-plies", o.random_plies, 0, 40, "P", "random legal plies opening each game");
    demos::add_integer(*c, "--max-plies", o.max_plies, 20, train::kMaxGamePlies, "N", "a game longer is a draw");
    demos::add_integer(*c, "--adjudicate", o.adjudicate, 100, 32000, "CP",
                       "a score held at or beyond this for 6 plies wins");
    commands.push_back({c, [&] {
                          if (o.nodes == 0 && o.depth == 0) {
                            std::fprintf(stderr, "warpmind-datagen chess: give --nodes or --depth\n");
                            return 2;
                          }
                          if (o.engine == "self" && o.depth == 0) {
                            std::fprintf(stderr, "warpmind-datagen chess: --engine self searches to --depth\n");
                            return 2;
                          }
                          return train::run_chess(o);
                        }});
  }
  std::vector<std::string> files;
  std::string out, network;
  int min_ply = 16, max_score = 3000;
  const auto files_of = [&](CLI::App* c, const std::string& what) { c->add_option("files", files, what)->required(); };
  {
    CLI::App* c = demos::add_subcommand(app, "info", "Checks chess games files and prints what they hold.");
    files_of(c, "games files (.wmg, gzip-compressed or not)");
    commands.push_back({c, [&] { return train::chess_info(files); }});
  }
  {
    CLI::App* c = demos::add_subcommand(
        app, "expand",
        "Writes the chess trainer's records (demos/train/training_records.h) of the games' quiet labelled positions.");
    files_of(c, "games files (.wmg, gzip-compressed or not), numbered in this order (in a file: by their own numbers)");
    demos::add_text(*c, "--out", out, "FILE", "the records file written")->required();
    demos::add_integer(*c, "--min-ply", min_ply, 0, train::kMaxGamePlies, "N", "no position before ply N");
    demos::add_integer(*c, "--max-score", max_score, 0, 32000, "CP", "no score beyond ±CP");
    commands.push_back({c, [&] { return train::chess_expand(files, out, min_ply, max_score); }});
  }
  {
    CLI::App* c = demos::add_subcommand(app, "score", "Prints the chess network's value of each record's position.");
    files_of(c, "a records file (from expand)");
    demos::add_text(*c, "--network", network, "FILE", "a network file (default: the built-in network)");
    commands.push_back({c, [&] { return files.size() == 1 ? train::chess_score(network, files[0]) : 2; }});
  }
  train::Connect6Options c6;
  {
    CLI::App* c = demos::add_subcommand(
        app, "connect6",
        "Plays Connect6 games of warpmind's own search from random openings and writes every turn's search "
        "score (a .wmg6 file, demos/train/connect6_games.h).");
    add_run_flags(*c, c6.run, ".wmg6");
    demos::add_integer(*c, "--depth", c6.depth, 1, 12, "D", "the search's depth in turns");
    demos::add_integer(*c, "--width", c6.width, 1, 64, "W", "the pairs kept per node");
    demos::add_integer(*c, "--threats", c6.threats, 0, 32, "T", "the threat-space search's attacking turns (0: off)");
    demos::add_integer(*c, "--random-turns", c6.random_turns, 1, 20, "R",
                       "the centre stone and R - 1 random turns among the 16 best candidates");
    demos::add_text(*c, "--network", c6.network, "builtin|FILE",
                    "the search's learned evaluation (default: the window-count evaluation)");
    commands.push_back({c, [&] { return train::run_connect6(c6); }});
  }
  {
    CLI::App* c = demos::add_subcommand(app, "connect6-info", "Checks Connect6 games files and prints what they hold.");
    files_of(c, "games files (.wmg6, gzip-compressed or not)");
    commands.push_back({c, [&] { return train::connect6_info(files); }});
  }
  int c6_max_score = 20000;
  {
    CLI::App* c = demos::add_subcommand(
        app, "connect6-expand",
        "Writes the Connect6 trainer's records (demos/train/connect6_records.h) of the games' labelled positions.");
    files_of(c,
             "games files (.wmg6, gzip-compressed or not), numbered in this order (in a file: by their own numbers)");
    demos::add_text(*c, "--out", out, "FILE", "the records file written")->required();
    demos::add_integer(*c, "--max-score", c6_max_score, 0, 30000, "S", "no score beyond ±S");
    commands.push_back({c, [&] { return train::connect6_expand(files, out, c6_max_score); }});
  }
  {
    CLI::App* c = demos::add_subcommand(
        app, "connect6-score",
        "Prints a Connect6 network's value of each record's position and its cell scores of the empty cells.");
    files_of(c, "a records file (from connect6-expand)");
    demos::add_text(*c, "--network", network, "FILE", "a network file (default: the built-in network)");
    commands.push_back({c, [&] { return files.size() == 1 ? train::connect6_score(network, files[0]) : 2; }});
  }
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  return demos::run_chosen(commands);
}
