#include "warpmind/aoi/scenario.h"

#include <algorithm>
#include <cmath>

#include "common/json_reader.h"
#include "warpmind/core/random.h"

namespace warpmind::aoi {

using warpmind::detail::json;
using Reader = warpmind::detail::JsonReader;

std::vector<Player> generate_players(std::size_t n, const WorldRect& w, int hot_spots, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<Player> p(n);
  std::vector<Player> centres(static_cast<std::size_t>(std::max(hot_spots, 0)));
  for (Player& c : centres) c = {w.x0 + rng.uniform() * w.width, w.y0 + rng.uniform() * w.height, 0};
  const float spread = std::min(w.width, w.height) * 0.02f;
  const float x_last = std::nextafter(w.x0 + w.width, w.x0), y_last = std::nextafter(w.y0 + w.height, w.y0);
  for (std::size_t i = 0; i < n; ++i) {
    Player& q = p[i];
    if (centres.empty() || i % 3 == 0) {
      q = {w.x0 + rng.uniform() * w.width, w.y0 + rng.uniform() * w.height, 100};
    } else {
      const Player& c = centres[i % centres.size()];
      q = {c.x + rng.uniform(-spread, spread), c.y + rng.uniform(-spread, spread), 100};
    }
    q.x = std::clamp(q.x, w.x0, x_last);
    q.y = std::clamp(q.y, w.y0, y_last);
  }
  return p;
}

void make_commands(const CommandSpec& s, const AoiConfig& c, ThreadPool& pool, std::size_t players, std::uint64_t tick,
                   std::vector<Command>& out) {
  out.resize(players);
  pool.parallel_for(
      players,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          SplitMix64 rng(s.seed ^ (i * 0x9E3779B97F4A7C15ull) ^ (tick << 40));
          Command& k = out[i];
          k = {};
          k.player = static_cast<std::uint32_t>(i);
          if (players > 1 && rng.uniform() < s.attack_share) {
            k.type = CommandType::Attack;
            k.target = static_cast<std::uint32_t>((i + 1 + rng.next() % (players - 1)) % players);
            k.damage = static_cast<std::int32_t>(1 + rng.next() % 20);
          } else {
            k.type = CommandType::Move;
            k.dx = rng.uniform(-c.max_move, c.max_move);
            k.dy = rng.uniform(-c.max_move, c.max_move);
          }
        }
      },
      1 << 14);
}

namespace {

Status parse_root(const Reader& r, const json& root, AoiScenario& s) {
  WM_RETURN_IF_ERROR(r.object(root, ""));
  WM_RETURN_IF_ERROR(
      r.keys(root, "", {"world", "aoi", "shape", "max_move", "attack_range", "players", "generate", "commands"}));
  AoiConfig& c = s.config;
  WM_RETURN_IF_ERROR(r.world(root, c.world));
  WM_RETURN_IF_ERROR(r.number(root, "aoi", "", c.aoi, false));
  if (!(c.aoi > 0.0f)) return r.error("aoi", "must be > 0");
  if (auto it = root.find("shape"); it != root.end())
    if (!it->is_string() || !parse_shape(it->get<std::string>(), c.shape))
      return r.error("shape", "expected \"square\" or \"circle\"");
  WM_RETURN_IF_ERROR(r.number(root, "max_move", "", c.max_move, false));
  WM_RETURN_IF_ERROR(r.number(root, "attack_range", "", c.attack_range, false));
  if (!(c.max_move >= 0.0f) || !(c.attack_range >= 0.0f)) return r.error("max_move", "max_move and attack_range >= 0");
  const auto players = root.find("players");
  const auto gen = root.find("generate");
  if ((players == root.end()) == (gen == root.end()))
    return r.error("players", "give either \"players\" or \"generate\"");
  if (players != root.end()) {
    if (!players->is_array()) return r.error("players", "expected an array");
    for (std::size_t i = 0; i < players->size(); ++i) {
      const std::string path = "players[" + std::to_string(i) + "]";
      WM_RETURN_IF_ERROR(r.object((*players)[i], path));
      WM_RETURN_IF_ERROR(r.keys((*players)[i], path + ".", {"x", "y", "hp"}));
      Player p;
      long long hp = 100;
      WM_RETURN_IF_ERROR(r.number((*players)[i], "x", path + ".", p.x, true));
      WM_RETURN_IF_ERROR(r.number((*players)[i], "y", path + ".", p.y, true));
      WM_RETURN_IF_ERROR(r.integer((*players)[i], "hp", path + ".", 0, INT32_MAX, hp, false));
      p.hp = static_cast<std::int32_t>(hp);
      s.players.push_back(p);
    }
  } else {
    WM_RETURN_IF_ERROR(r.object(*gen, "generate"));
    WM_RETURN_IF_ERROR(r.keys(*gen, "generate.", {"clients", "seed", "hot_spots"}));
    long long n = 0, seed = 1, hot = 0;
    WM_RETURN_IF_ERROR(r.integer(*gen, "clients", "generate.", 0, 1ll << 30, n, true));
    WM_RETURN_IF_ERROR(r.integer(*gen, "seed", "generate.", 0, INT64_MAX, seed, false));
    WM_RETURN_IF_ERROR(r.integer(*gen, "hot_spots", "generate.", 0, 1000, hot, false));
    s.players =
        generate_players(static_cast<std::size_t>(n), c.world, static_cast<int>(hot), static_cast<std::uint64_t>(seed));
  }
  if (auto it = root.find("commands"); it != root.end()) {
    WM_RETURN_IF_ERROR(r.object(*it, "commands"));
    WM_RETURN_IF_ERROR(r.keys(*it, "commands.", {"attack_share", "seed"}));
    WM_RETURN_IF_ERROR(r.number(*it, "attack_share", "commands.", s.commands.attack_share, false));
    if (!(s.commands.attack_share >= 0.0f && s.commands.attack_share <= 1.0f))
      return r.error("commands.attack_share", "must be in [0, 1]");
    long long seed = static_cast<long long>(s.commands.seed);
    WM_RETURN_IF_ERROR(r.integer(*it, "seed", "commands.", 0, INT64_MAX, seed, false));
    s.commands.seed = static_cast<std::uint64_t>(seed);
  }
  return Status::Ok();
}

}  // namespace

Status parse_aoi_scenario(std::string_view json_text, const std::string& source, AoiScenario& out) {
  AoiScenario s;
  WM_RETURN_IF_ERROR(warpmind::detail::parse_json(
      json_text, source, [&](const Reader& r, const json& root) { return parse_root(r, root, s); }));
  out = std::move(s);
  return Status::Ok();
}

Status load_aoi_scenario(const std::string& path, AoiScenario& out) {
  std::string text;
  WM_RETURN_IF_ERROR(warpmind::detail::read_text_file(path, text));
  return parse_aoi_scenario(text, path, out);
}

}  // namespace warpmind::aoi
