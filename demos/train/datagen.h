// warpmind-datagen's parts (datagen_main.cpp is the command line): the game generator both games share,
// and each game's commands (chess_datagen.cpp, connect6_datagen.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warpmind::train {

// Where and how many games: game k of a run is seeded seed + k; no game starts after `seconds` (0: no
// limit); `threads` games at a time.
struct RunOptions {
  std::string out;
  int games = 1000, seconds = 0, threads = 1;
  std::uint64_t seed = 1;
};

// A thread's player: game `index`'s bytes (appended to `bytes`) and its labelled positions, or -1 when the
// game was dropped.
using Player = std::function<int(std::uint32_t index, std::vector<std::uint8_t>& bytes)>;
// Makes a thread's player (its own engine); an empty function with `why` set when it cannot start.
using MakePlayer = std::function<Player(std::string& why)>;

// Writes `header`, then plays games on the threads and appends each as it ends (its own number in it);
// progress to stderr every 10 seconds. 0, or 2 after a message when the file or a player failed.
int generate(const char* what, const RunOptions& o, const std::vector<std::uint8_t>& header, const MakePlayer& make);

struct ChessOptions {
  RunOptions run;
  std::string engine = "self";
  long long nodes = 0;
  int depth = 0, random_plies = 8, max_plies = 400, adjudicate = 1000;
};
int run_chess(const ChessOptions& o);
int chess_info(const std::vector<std::string>& files);
int chess_expand(const std::vector<std::string>& files, const std::string& out, int min_ply, int max_score);
int chess_score(const std::string& network, const std::string& records);

struct Connect6Options {
  RunOptions run;
  int depth = 3, width = 16, threats = 8, random_turns = 3;
  std::string network;  // "" the window-count evaluation, "builtin" or a file: the labelling search's
};
int run_connect6(const Connect6Options& o);
int connect6_info(const std::vector<std::string>& files);
int connect6_expand(const std::vector<std::string>& files, const std::string& out, int max_score);
int connect6_score(const std::string& network, const std::string& records);

}  // namespace warpmind::train
