#include "battle.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "warpmind/core/hash.h"
#include "warpmind/core/random.h"
#include "warpmind/world/world_map.h"

namespace warpmind::demos {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

Status load_battle_map(const std::string& path, BattleMap& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid(path + ": cannot open the map file");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid(path + ": not a JSON object (or a number a double cannot hold)");
  for (const auto& item : j.items())
    if (item.key() != "comment" && item.key() != "plan" && item.key() != "start_row" && item.key() != "walls")
      return Status::Invalid(path + ": " + item.key() + ": unknown key (known: comment, plan, start_row, walls)");
  if (j.contains("plan") && j["plan"] != 128) return Status::Invalid(path + ": plan: only 128 is supported");
  BattleMap m;
  if (j.contains("start_row")) {
    if (!j["start_row"].is_number_integer() || j["start_row"].get<long long>() < 0 ||
        j["start_row"].get<long long>() > 127)
      return Status::Invalid(path + ": start_row: an integer 0..127");
    m.start_row = j["start_row"].get<int>();
  }
  if (!j.contains("walls") || !j["walls"].is_array()) return Status::Invalid(path + ": walls: an array is required");
  m.walls.clear();
  for (std::size_t i = 0; i < j["walls"].size(); ++i) {
    const nlohmann::json& w = j["walls"][i];
    const std::string where = path + ": walls[" + std::to_string(i) + "]";
    if (!w.is_array() || w.size() != 4) return Status::Invalid(where + ": expected [x0, y0, x1, y1]");
    std::array<int, 4> r{};
    for (int k = 0; k < 4; ++k) {
      if (!w[k].is_number_integer() || w[k].get<long long>() < 0 || w[k].get<long long>() > 127)
        return Status::Invalid(where + ": coordinates are integers 0..127");
      r[k] = w[k].get<int>();
    }
    if (r[0] > r[2] || r[1] > r[3]) return Status::Invalid(where + ": x0 <= x1 and y0 <= y1");
    m.walls.push_back(r);
  }
  out = std::move(m);
  return Status::Ok();
}

Status Battle::create(Context& ctx, const BattleConfig& c, std::unique_ptr<Battle>& out) {
  if (c.units_per_army == 0 || c.units_per_army > 100000) return Status::Invalid("battle: 1..100000 units per army");
  if (!(c.weapon_range > 0) || !(c.damage > 0) || !(c.hp > 0) || !(c.step > 0) || c.cooldown_ticks < 0)
    return Status::Invalid("battle: range, damage, hp and step must be > 0");
  if (c.map < 0 || c.map % 128 || c.map > 4096)
    return Status::Invalid("battle: map must be 0 or a multiple of 128 up to 4096");
  if (c.field_resolution < 16 || c.field_resolution > 8192) return Status::Invalid("battle: field resolution 16..8192");
  if (!(c.unit_radius >= 0.1f && c.unit_radius <= 2.0f)) return Status::Invalid("battle: unit radius 0.1..2");
  for (const auto& w : c.layout.walls)
    if (w[0] < 0 || w[1] < 0 || w[2] > 127 || w[3] > 127 || w[0] > w[2] || w[1] > w[3])
      return Status::Invalid("battle: walls must be rectangles inside the 128 x 128 plan");
  if (c.layout.start_row < 0 || c.layout.start_row > 127) return Status::Invalid("battle: start_row 0..127");
  if (c.nav_every < 1 || c.nav_every > 1000) return Status::Invalid("battle: nav_every 1..1000 ticks");
  if (!(c.nav_margin >= 0.0f && c.nav_margin <= 1e6f)) return Status::Invalid("battle: nav_margin 0..1e6");
  std::unique_ptr<Battle> b(new Battle());
  b->ctx_ = &ctx;
  b->cfg_ = c;
  // Room for both armies four times over.
  const float pitch = 2.4f * c.unit_radius;
  const double need = std::sqrt(static_cast<double>(c.units_per_army) * 2 * pitch * pitch * 4);
  const int kMap = c.map ? c.map : std::max(128, static_cast<int>(std::ceil(need / 128.0)) * 128);
  const int s = kMap / 128;  // the walls are laid out on a 128-unit plan
  b->map_ = kMap;
  crowd::CrowdConfig& cc = b->crowd_cfg_;
  cc.world = {0, 0, static_cast<float>(kMap), static_cast<float>(kMap)};
  cc.radius = c.unit_radius;
  cc.rule = c.crowd_rule;
  cc.variant = c.crowd_variant;
  // The walls, drawn once on a world map (the layout's rectangles of the 128-unit plan, s map units a
  // plan unit): the crowd's obstacle cells and the field's wall charges (the walls' surface cells) come from
  // it at kMap x kMap cells, the navigation fields' grid from the same rectangles at 128 x 128.
  world::WorldMap walls, plan;
  WM_RETURN_IF_ERROR(world::WorldMap::create(cc.world, kMap, kMap, walls));
  WM_RETURN_IF_ERROR(world::WorldMap::create(cc.world, 128, 128, plan));
  for (const auto& w : c.layout.walls) {
    const Vec2 lo{static_cast<float>(w[0] * s), static_cast<float>(w[1] * s)};
    const Vec2 hi{static_cast<float>((w[2] + 1) * s), static_cast<float>((w[3] + 1) * s)};
    WM_RETURN_IF_ERROR(walls.fill_rect(lo, hi));
    WM_RETURN_IF_ERROR(plan.fill_rect(lo, hi));
  }
  cc.obstacles = walls.crowd_obstacles();
  WM_RETURN_IF_ERROR(walls.wall_entities(2, b->walls_));
  WM_RETURN_IF_ERROR(plan.nav_grid(b->plan_));
  // The units' size class on the plan (a plan cell is map / 128 world units) and its grid.
  WM_RETURN_IF_ERROR(nav::size_class_of_radius(c.unit_radius / (static_cast<double>(b->map_) / 128.0), b->size_class_));
  WM_RETURN_IF_ERROR(nav::class_grid(b->plan_, b->size_class_, b->class_plan_));

  // Armies on jittered lattices, their fronts start_gap apart around the centre line: lattice slots are
  // taken in order, those on walls or off the map skipped, until each army has units_per_army units.
  SplitMix64 rng(c.seed);
  const int cols = std::max(4, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(c.units_per_army) * 1.5))));
  for (int t = 0; t < 2; ++t) {
    std::size_t placed = 0;
    for (std::size_t k = 0; placed < c.units_per_army; ++k) {
      const float col = static_cast<float>(k % cols) * pitch, row = static_cast<float>(k / cols) * pitch;
      const float x = t == 0 ? kMap / 2.0f - c.start_gap / 2 - col : kMap / 2.0f + c.start_gap / 2 + col;
      const float y = static_cast<float>(c.layout.start_row * s) + row;
      const float j = 0.1f * c.unit_radius;  // keeps neighbours >= 2R apart
      const Vec2 p{x + rng.uniform(-j, j), y + rng.uniform(-j, j)};
      if (y >= kMap - 1 + j)  // the rows have run off the map
        return Status::Invalid("battle: the map has room for only " + std::to_string(placed) + " units per army, " +
                               std::to_string(c.units_per_army) + " asked (a larger map, or a smaller start gap)");
      if (p.x < 1 || p.x >= kMap - 1 || p.y >= kMap - 1 ||
          cc.obstacles.blocked[static_cast<std::size_t>(p.y) * kMap + static_cast<std::size_t>(p.x)])
        continue;
      b->pos_.push_back(p);
      b->team_.push_back(t);
      ++placed;
    }
  }
  b->hp_.assign(b->pos_.size(), c.hp);
  b->facing_.resize(b->pos_.size());
  for (std::size_t i = 0; i < b->pos_.size(); ++i) b->facing_[i] = b->team_[i] == 0 ? 0.0f : 3.14159265f;
  combat::CombatConfig kc;
  kc.world = cc.world;
  kc.range = c.weapon_range;
  kc.damage = c.damage;
  kc.cooldown_ticks = c.cooldown_ticks;
  WM_RETURN_IF_ERROR(combat::Volleys::create(ctx, kc, b->volleys_));
  b->teams8_.assign(b->team_.begin(), b->team_.end());
  WM_RETURN_IF_ERROR(b->volleys_->reset(b->teams8_, b->hp_));
  WM_RETURN_IF_ERROR(crowd::CrowdSolver::create(ctx, cc, b->solver_));
  WM_RETURN_IF_ERROR(b->solver_->reset(b->pos_));

  field::FieldConfig fc;
  fc.world = cc.world;
  fc.width = fc.height = c.field_resolution;
  fc.kinds = {field::attack(c.weapon_range, 100.0f, c.sight), field::own_unit(3.0f * c.unit_radius),
              field::obstacle(1.0f, -300.0f)};
  fc.layers = {{"team0", {{1, 0}, {0, 1}, {2, 2}}}, {"team1", {{0, 0}, {1, 1}, {2, 2}}}};
  fc.variant = c.field_variant;
  WM_RETURN_IF_ERROR(field::FieldLayers::create(ctx, fc, b->layers_));
  b->device_ = ctx.cuda() && field::is_gpu_variant(b->layers_->variant()) &&
               crowd::is_gpu_variant(b->solver_->variant()) && b->volleys_->variant() == combat::CombatVariant::Gpu;
  if (b->device_ && !b->walls_.empty()) {  // the walls' records stay on the device; units are added each tick
    WM_RETURN_IF_ERROR(b->walls_dev_.allocate(ctx, b->walls_.size() * sizeof(field::Entity)));
    WM_RETURN_IF_ERROR(b->walls_dev_.upload(ctx, b->walls_.data(), b->walls_.size() * sizeof(field::Entity)));
  }
  out = std::move(b);
  return Status::Ok();
}

Status Battle::tick() {
  if (winner() >= 0) return Status::Ok();
  const auto t0 = Clock::now();
  if (device_) {  // the walls, then a unit's position and team as its group, assembled on the device
    WM_RETURN_IF_ERROR(layers_->build_device_points(static_cast<const field::Entity*>(walls_dev_.get()), walls_.size(),
                                                    solver_->device_positions(), volleys_->device_teams(),
                                                    pos_.size()));
  } else {
    entities_.assign(walls_.begin(), walls_.end());
    for (std::size_t i = 0; i < pos_.size(); ++i)
      entities_.push_back({pos_[i].x, pos_[i].y, static_cast<std::uint32_t>(team_[i]), 0});
    WM_RETURN_IF_ERROR(layers_->build(entities_));
  }
  WM_RETURN_IF_ERROR(ctx_->synchronize());
  times_.field_ms = ms_since(t0);
  WM_RETURN_IF_ERROR(plan_routes());
  WM_RETURN_IF_ERROR(device_ ? act_on_device() : act_on_host());
  ++ticks_;
  return Status::Ok();
}

// Decisions, crowd and combat on the host's copies (the CPU backend).
Status Battle::act_on_host() {
  // Decisions: every unit steps towards the best cell of its team's layer (layer index = team); where
  // it would move it faces that way.
  auto t0 = Clock::now();
  proposal_.resize(pos_.size());
  want_.assign(facing_.begin(), facing_.end());
  WM_RETURN_IF_ERROR(layers_->steer(pos_, teams8_, 3, cfg_.step, proposal_, want_));
  walk(proposal_, want_);
  times_.decisions_ms = ms_since(t0);

  t0 = Clock::now();
  WM_RETURN_IF_ERROR(solver_->step(proposal_));
  after_.resize(pos_.size());
  WM_RETURN_IF_ERROR(solver_->read_positions(after_));
  ctx_->pool().parallel_for(
      pos_.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          if (after_[i].x == proposal_[i].x && after_[i].y == proposal_[i].y) facing_[i] = want_[i];
          if (cfg_.nav) blocked_[i] = after_[i].x == pos_[i].x && after_[i].y == pos_[i].y;
        }
      },
      8192);
  pos_.swap(after_);
  times_.crowd_ms = ms_since(t0);

  t0 = Clock::now();
  WM_RETURN_IF_ERROR(fire());
  times_.combat_ms = ms_since(t0);
  return Status::Ok();
}

// The same on device state (the CUDA backend with GPU variants of the three modules).
Status Battle::act_on_device() {
  // Decisions: every unit steps towards the best cell of its team's layer (layer index = team).
  auto t0 = Clock::now();
  const std::size_t n = pos_.size();
  if (proposals_dev_.size() < n * sizeof(Vec2)) WM_RETURN_IF_ERROR(proposals_dev_.allocate(*ctx_, n * sizeof(Vec2)));
  auto* proposals = static_cast<Vec2*>(proposals_dev_.get());
  // The far units' steps along the navigation fields are made on the host's copies; the potential field
  // steers the others. A walker's point goes to the steering as its step, with a layer past the last,
  // which leaves a point where it is: one upload, no copy back.
  if (cfg_.nav) {
    points_.assign(pos_.begin(), pos_.end());
    walk(points_, {});
  }
  if (nav_walkers_) {
    layer_of_.resize(n);
    ctx_->pool().parallel_for(
        n,
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) layer_of_[i] = walked_[i] ? std::uint8_t{255} : teams8_[i];
        },
        8192);
    if (points_dev_.size() < n * sizeof(Vec2)) WM_RETURN_IF_ERROR(points_dev_.allocate(*ctx_, n * sizeof(Vec2)));
    if (layers_dev_.size() < n) WM_RETURN_IF_ERROR(layers_dev_.allocate(*ctx_, n));
    WM_RETURN_IF_ERROR(points_dev_.upload(*ctx_, points_.data(), n * sizeof(Vec2)));
    WM_RETURN_IF_ERROR(layers_dev_.upload(*ctx_, layer_of_.data(), n));
    WM_RETURN_IF_ERROR(layers_->steer_device(static_cast<const Vec2*>(points_dev_.get()),
                                             static_cast<const std::uint8_t*>(layers_dev_.get()), n, 3, cfg_.step,
                                             proposals, nullptr));
  } else {
    WM_RETURN_IF_ERROR(layers_->steer_device(solver_->device_positions(), volleys_->device_teams(), n, 3, cfg_.step,
                                             proposals, nullptr));
  }
  WM_RETURN_IF_ERROR(ctx_->synchronize());
  times_.decisions_ms = ms_since(t0);

  // The crowd's step; a unit that moved faces the way it went.
  t0 = Clock::now();
  WM_RETURN_IF_ERROR(solver_->step_device(proposals));
  after_.resize(n);
  WM_RETURN_IF_ERROR(solver_->read_positions(after_));
  ctx_->pool().parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          if (after_[i].x != pos_[i].x || after_[i].y != pos_[i].y)
            facing_[i] = std::atan2(after_[i].y - pos_[i].y, after_[i].x - pos_[i].x);
          if (cfg_.nav) blocked_[i] = after_[i].x == pos_[i].x && after_[i].y == pos_[i].y;
        }
      },
      8192);
  pos_.swap(after_);
  times_.crowd_ms = ms_since(t0);

  // Combat on the crowd's device positions; the dead leave the crowd through the module's device flags.
  t0 = Clock::now();
  WM_RETURN_IF_ERROR(fire());
  times_.combat_ms = ms_since(t0);
  return Status::Ok();
}

// The combat module's volley on the positions after the crowd's step (on the device path, the crowd's
// device positions): the dead leave the crowd solver (there through the module's device flags) and the
// battle's host copies, whose teams and HP come back from the module.
Status Battle::fire() {
  const std::size_t n = pos_.size();
  keep_.resize(n);
  if (device_) {
    WM_RETURN_IF_ERROR(volleys_->fire_device(solver_->device_positions()));
    if (volleys_->size() != n) WM_RETURN_IF_ERROR(volleys_->read_keep(keep_));
  } else {
    WM_RETURN_IF_ERROR(volleys_->fire(pos_, keep_));
  }
  WM_RETURN_IF_ERROR(volleys_->read(&teams8_, &hp_, nullptr));
  team_.assign(teams8_.begin(), teams8_.end());
  const std::size_t kept = volleys_->size();
  if (kept == n) return Status::Ok();
  std::size_t w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep_[i]) continue;
    pos_[w] = pos_[i];
    facing_[w] = facing_[i];
    if (i < blocked_.size()) blocked_[w] = blocked_[i];
    ++w;
  }
  pos_.resize(w);
  facing_.resize(w);
  blocked_.resize(std::min(blocked_.size(), w));
  return device_ ? solver_->retain_device(volleys_->device_keep(), kept) : solver_->retain(keep_);
}

// Each team's navigation field: the walk from every plan cell to the nearest enemy's cell.
Status Battle::plan_routes() {
  times_.nav_ms = 0;
  if (!cfg_.nav || ticks_ % cfg_.nav_every) return Status::Ok();
  const auto t0 = Clock::now();
  const float s = static_cast<float>(map_) / 128.0f;
  const bool device =
      cfg_.nav_variant == nav::NavVariant::Gpu || (cfg_.nav_variant == nav::NavVariant::Auto && ctx_->cuda());
  // Each unit's cell goes to the other team's goal set.
  enemy_cells_[0].clear();
  enemy_cells_[1].clear();
  for (std::size_t i = 0; i < pos_.size(); ++i) {
    const int x = std::clamp(static_cast<int>(pos_[i].x / s), 0, 127),
              y = std::clamp(static_cast<int>(pos_[i].y / s), 0, 127);
    if (class_plan_.passable(x, y)) enemy_cells_[1 - team_[i]].push_back({x, y});
  }
  for (int t = 0; t < 2; ++t) {
    nav_dist_[t].resize(plan_.cells());
    nav_dir_[t].resize(plan_.cells());
    if (device) {  // the GPU's field, its buffers kept from one computation to the next
      if (!nav_dev_[t]) WM_RETURN_IF_ERROR(nav::DeviceNavField::create(*ctx_, class_plan_, nav_dev_[t]));
      WM_RETURN_IF_ERROR(nav_dev_[t]->compute(enemy_cells_[t]));
      WM_RETURN_IF_ERROR(nav_dev_[t]->read(nav_dist_[t], nav_dir_[t]));
    } else {
      WM_RETURN_IF_ERROR(nav::goal_set_field(*ctx_, class_plan_, enemy_cells_[t], nav_dist_[t], nav_dir_[t], nullptr,
                                             cfg_.nav_variant));
    }
    if (cfg_.nav_straight) {
      nav_way_[t].resize(plan_.cells());
      WM_RETURN_IF_ERROR(nav::waypoints(*ctx_, class_plan_, nav_dist_[t], nav_dir_[t], nav_way_[t]));
    }
  }
  times_.nav_ms = ms_since(t0);
  return Status::Ok();
}

// A unit whose walk to the nearest enemy exceeds weapon_range + nav_margin (world units) steps along its
// team's field instead of the potential field's proposal, and faces that way (when `facing` is given).
// One that did not move last tick (its step refused by a friend in the way, or left standing by the
// potential field) tries the step 45 degrees to
// one side or the other instead, by its index and the tick, so that a packed army flows round its own
// front.
void Battle::walk(std::span<Vec2> proposal, std::span<float> facing) {
  nav_walkers_ = 0;
  walked_.assign(pos_.size(), 0);
  blocked_.resize(pos_.size());
  if (!cfg_.nav || nav_dist_[0].empty()) return;
  const float s = static_cast<float>(map_) / 128.0f, far = cfg_.weapon_range + cfg_.nav_margin;
  constexpr float kDiagonal = 0.70710677f;
  std::atomic<std::size_t> walkers{0};
  ctx_->pool().parallel_for(
      pos_.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        std::size_t mine = 0;
        for (std::size_t i = b; i < e; ++i) {
          const int x = std::clamp(static_cast<int>(pos_[i].x / s), 0, 127),
                    y = std::clamp(static_cast<int>(pos_[i].y / s), 0, 127);
          const std::size_t c = plan_.index(x, y);
          const int team = team_[i];
          int k = nav_dir_[team][c];
          if (k < 0 || !(nav_dist_[team][c] * s > far)) continue;
          const bool sidestep = i < blocked_.size() && blocked_[i];
          const float turn = ((static_cast<long long>(i) + ticks_) & 1) ? kDiagonal : -kDiagonal;  // +-45 degrees
          Vec2 d;
          const std::uint32_t w = cfg_.nav_straight ? nav_way_[team][c] : nav::kNoWaypoint;
          float vx = 0, vy = 0, len = 0;
          if (w != nav::kNoWaypoint && w != c) {  // straight at the waypoint's centre
            vx = (static_cast<float>(w % 128u) + 0.5f) * s - pos_[i].x;
            vy = (static_cast<float>(w / 128u) + 0.5f) * s - pos_[i].y;
            const float xx = vx * vx, yy = vy * vy;
            len = std::sqrt(xx + yy);
          }
          if (len > 0) {
            d = {vx / len, vy / len};
            if (sidestep) d = {d.x * kDiagonal - d.y * turn, d.x * turn + d.y * kDiagonal};
          } else {
            if (sidestep) k = (k + (turn > 0 ? 1 : 7)) & 7;
            const float unit = (k & 1) ? kDiagonal : 1.0f;
            d = {static_cast<float>(nav::kSteps[static_cast<std::size_t>(k)][0]) * unit,
                 static_cast<float>(nav::kSteps[static_cast<std::size_t>(k)][1]) * unit};
          }
          proposal[i] = {pos_[i].x + d.x * cfg_.step, pos_[i].y + d.y * cfg_.step};
          if (!facing.empty()) facing[i] = std::atan2(d.y, d.x);
          walked_[i] = 1;
          ++mine;
        }
        walkers += mine;
      },
      8192);
  nav_walkers_ = walkers.load();
}

std::size_t Battle::alive(int team) const {
  return static_cast<std::size_t>(std::count(team_.begin(), team_.end(), team));
}

int Battle::winner() const {
  const std::size_t a = alive(0), b = alive(1);
  if (a && b) return -1;
  return a ? 0 : (b ? 1 : 2);
}

std::size_t Battle::overlaps() const { return crowd::count_overlaps(pos_, crowd_cfg_.radius); }

std::uint64_t Battle::state_hash() const {
  std::uint64_t h = fnv1a(pos_.data(), pos_.size() * sizeof(Vec2));
  h = fnv1a(hp_.data(), hp_.size() * sizeof(float), h);
  return fnv1a(team_.data(), team_.size() * sizeof(int), h);
}

}  // namespace warpmind::demos
