// Battle — the RTS simulation behind warpmind-demo, independent of rendering so it can be tested.
//
// Two armies on a square map with walls (128 x 128 world units, or larger to fit big armies; the walls
// scale with it). Each tick: build one potential-field layer per team
// (enemies attract up to weapon range, friends and walls repel), every unit steps towards the best cell
// of its 3 x 3 neighbourhood — or, with navigation on (the default), a unit whose walk to the nearest
// enemy is longer than weapon_range + nav_margin steps along its team's navigation field instead (the nav
// module's field of the goal set "every enemy's cell" on the 128 x 128 plan of walls, computed again every
// nav_every ticks on the grid of the units' size class, nav/clearance.h, so no army squeezes through a gap
// narrower than its units; straight to the cell's waypoint, nav/sight.h, with nav_straight, else along the
// field's 8 directions), so armies walk around walls and the potential field handles contact — the crowd
// solver (lowest-id-wins rule) accepts or rejects the moves, then
// combat (the combat module's volley: a unit whose weapon has cooled down fires at the nearest enemy in
// range, ties to the lowest index, damage is applied at once, the dead are removed; on the GPU with the
// CUDA backend). The battle ends when an army is gone.
// Deterministic for a given seed and backend (the field and crowd modules are exact).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "warpmind/combat/combat.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/field.h"
#include "warpmind/nav/device_field.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/sight.h"

namespace warpmind::demos {

// The obstacles, on a 128 x 128 plan scaled to the map: inclusive cell rectangles {x0, y0, x1, y1}.
struct BattleMap {
  std::vector<std::array<int, 4>> walls = {{62, 10, 65, 50}, {62, 78, 65, 118}, {30, 62, 45, 65}, {82, 62, 97, 65}};
  int start_row = 52;  // the armies' first row
};
// Reads a map file (assets/maps/battle.json describes the format). On error `out` is unchanged.
Status load_battle_map(const std::string& path, BattleMap& out);

struct BattleConfig {
  BattleMap layout;
  std::size_t units_per_army = 600;  // [Limit: 1..100000]
  std::uint64_t seed = 1;
  int map = 0;                 // map side in world units (a multiple of 128); 0: the smallest that fits
  int field_resolution = 256;  // field cells per side of the map
  float start_gap = 60.0f;     // world units between the armies' fronts
  float weapon_range = 6.0f;
  float sight = 60.0f;  // enemies attract up to weapon_range + sight
  float damage = 12.0f, hp = 100.0f;
  int cooldown_ticks = 4;
  float step = 0.35f;        // world units per tick
  float unit_radius = 0.5f;  // crowd disc radius [Limit: 0.1..2]
  field::FieldVariant field_variant = field::FieldVariant::Auto;
  crowd::CrowdVariant crowd_variant = crowd::CrowdVariant::Auto;
  crowd::CrowdRule crowd_rule = crowd::CrowdRule::LowestIdWins;
  bool nav = true;           // walk to the enemy around walls by navigation fields
  float nav_margin = 6.0f;   // world units of walk beyond weapon_range where the potential field takes over
  int nav_every = 4;         // ticks between two computations of the navigation fields [Limit: 1..1000]
  bool nav_straight = true;  // walk straight to the waypoint (nav/sight.h), else along the 8 directions
  nav::NavVariant nav_variant = nav::NavVariant::Auto;
};

// Wall time of each stage of the last tick. With the CUDA backend and GPU variants everywhere the field
// build (from the crowd's device positions and the volley's device teams), the decisions
// (field::FieldLayers::steer_device), the crowd's step and the combat volley run on device state; the
// host keeps copies of the positions, teams and HP for drawing and counting (downloaded within the crowd
// and combat stages).
// nav_ms: the navigation fields (0 on a tick that reuses them).
struct BattleTimes {
  double field_ms = 0, decisions_ms = 0, crowd_ms = 0, combat_ms = 0, nav_ms = 0;
};

class Battle {
 public:
  static Status create(Context& ctx, const BattleConfig& config, std::unique_ptr<Battle>& out);

  Status tick();
  // -1 while both armies stand; 0 or 1 the winning team; 2 when both fell in the same tick.
  int winner() const;
  std::size_t alive(int team) const;
  const std::vector<Vec2>& positions() const { return pos_; }
  const std::vector<int>& teams() const { return team_; }
  const std::vector<float>& hp() const { return hp_; }
  const std::vector<float>& facing() const { return facing_; }  // radians, the direction of the last move
  const field::FieldLayers& layers() const { return *layers_; }
  const crowd::CrowdSolver& solver() const { return *solver_; }
  // The navigation field of a team (its walk to the nearest enemy) on the 128 x 128 plan, in plan cells
  // (one is map() / 128 world units); empty with navigation off or before the first tick.
  std::span<const float> nav_distance(int team) const { return nav_dist_[team]; }
  std::span<const std::int8_t> nav_direction(int team) const { return nav_dir_[team]; }
  std::size_t nav_walkers() const { return nav_walkers_; }  // units the navigation fields moved last tick
  int size_class() const { return size_class_; }            // the units' size class on the plan (nav/clearance.h)
  const BattleTimes& last_times() const { return times_; }
  int map() const { return map_; }
  const BattleConfig& config() const { return cfg_; }
  std::size_t overlaps() const;
  std::uint64_t state_hash() const;
  long long ticks() const { return ticks_; }

 private:
  Battle() = default;
  Status act_on_host();    // a tick's decisions, crowd and combat: the CPU backend's
  Status act_on_device();  // the same on device state (the CUDA backend)
  Status fire();
  Status plan_routes();                                          // the navigation fields, every nav_every ticks
  void walk(std::span<Vec2> proposal, std::span<float> facing);  // far units' steps along them
  Context* ctx_ = nullptr;
  BattleConfig cfg_;
  int map_ = 128;
  crowd::CrowdConfig crowd_cfg_;
  std::vector<field::Entity> walls_, entities_;
  std::unique_ptr<field::FieldLayers> layers_;
  std::unique_ptr<crowd::CrowdSolver> solver_;
  std::unique_ptr<combat::Volleys> volleys_;
  std::vector<Vec2> pos_, proposal_;
  std::vector<int> team_;
  std::vector<float> hp_, facing_, want_;
  std::vector<std::uint8_t> keep_, teams8_;  // the last volley's survivors; teams as the combat module has them
  bool device_ = false;                      // every stage on the GPU (all three modules on GPU variants)
  DeviceBytes proposals_dev_;                // device path: the decisions' proposals
  DeviceBytes walls_dev_;                    // device path: the walls' entity records
  std::vector<Vec2> after_;                  // positions after the crowd's step
  nav::Grid plan_;                           // the walls on the 128 x 128 plan
  nav::Grid class_plan_;                     // the plan of the units' size class: the fields' grid
  int size_class_ = 1;
  std::vector<nav::Cell> enemy_cells_[2];            // each team's goal set: the other team's units' cells
  std::unique_ptr<nav::DeviceNavField> nav_dev_[2];  // the GPU's fields (a CUDA context, variant auto or gpu)
  std::vector<float> nav_dist_[2];
  std::vector<std::int8_t> nav_dir_[2];
  std::vector<std::uint32_t> nav_way_[2];  // each cell's waypoint (nav_straight)
  std::size_t nav_walkers_ = 0;
  std::vector<std::uint8_t> walked_;    // the unit steps along its navigation field this tick
  std::vector<std::uint8_t> blocked_;   // the unit did not move last tick (refused, or left standing)
  std::vector<Vec2> points_;            // device path: the steering's points, walkers' steps in place
  std::vector<std::uint8_t> layer_of_;  // device path: the steering's layers, 255 for walkers
  DeviceBytes points_dev_, layers_dev_;
  BattleTimes times_;
  long long ticks_ = 0;
};

}  // namespace warpmind::demos
