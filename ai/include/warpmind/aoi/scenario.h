// AOI worlds: players and per-tick client commands, generated (reproducibly) or read from JSON.
//
// JSON (every key optional unless marked):
//   { "world": {"x0": 0, "y0": 0, "width": 2500, "height": 2500},
//     "aoi": 10, "shape": "square" | "circle", "max_move": 10, "attack_range": 10,
//     "players": [{"x": 1, "y": 2, "hp": 100}, ...]              // or:
//     "generate": {"clients": 4096, "seed": 1, "hot_spots": 0},  // uniform, or around k hot spots
//     "commands": {"attack_share": 0.1, "seed": 1} }
// One of "players" or "generate" is required. Errors name the file and field.
// Keys other than those shown are errors that name them ("comment", at the top level, is allowed and
// ignored); a number a double cannot hold (1e400) is an error; nothing throws.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/core/thread_pool.h"

namespace warpmind::aoi {

struct CommandSpec {
  float attack_share = 0.1f;  // fraction of clients attacking (a random other player) each tick
  std::uint64_t seed = 1;     // commands are reproducible from (seed, player id, tick)
};

struct AoiScenario {
  AoiConfig config;
  std::vector<Player> players;
  CommandSpec commands;
};

// n players, uniform over the world or (hot_spots > 0) a third of them spread uniformly and the rest in
// tight clusters around `hot_spots` centres; HP 100.
std::vector<Player> generate_players(std::size_t n, const WorldRect& world, int hot_spots, std::uint64_t seed);
// One command per player for `tick`: a move of up to max_move per axis, or an attack.
void make_commands(const CommandSpec& spec, const AoiConfig& config, ThreadPool& pool, std::size_t players,
                   std::uint64_t tick, std::vector<Command>& out);

Status parse_aoi_scenario(std::string_view json_text, const std::string& source, AoiScenario& out);
Status load_aoi_scenario(const std::string& path, AoiScenario& out);

}  // namespace warpmind::aoi
