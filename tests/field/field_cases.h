// Field scenarios shared by the variant and query tests: random, clustered, border-touching, outside
// the world, hot spots that need 64-bit sums, armies of large charges (crowded tiles), empty, sub-cell
// radius, degenerate and non-square grids.
#pragma once

#include <string>
#include <vector>

#include "warpmind/core/random.h"
#include "warpmind/field/field.h"
#include "warpmind/field/scenario.h"

namespace warpmind::field::test {

struct FieldCase {
  std::string name;
  FieldConfig config;
  std::vector<Entity> entities;
  bool naive_reference = true;  // false: too big for the whole oracle in a unit test: the oracle on sampled
                                // cells, and cpu-stamp everywhere for the other variants
};

inline std::vector<Entity> random_entities(const WorldRect& w, int n, std::uint32_t groups, std::uint64_t seed,
                                           float margin = 0.0f) {
  SplitMix64 rng(seed);
  std::vector<Entity> e;
  for (int i = 0; i < n; ++i)
    e.push_back({rng.uniform(w.x0 - margin, w.x0 + w.width + margin),
                 rng.uniform(w.y0 - margin, w.y0 + w.height + margin), rng.below(groups), 0});
  return e;
}

// The seed's set-up (one circle kind, one layer) at the given size.
inline FieldScenario seed_setup(int width, std::size_t count, float radius, std::uint64_t seed,
                                Distribution d = Distribution::Uniform) {
  FieldGenParams p;
  p.width = width;
  p.count = count;
  p.radius = radius;
  p.seed = seed;
  p.distribution = d;
  return generate_field_scenario(p);
}

inline std::vector<FieldCase> field_cases() {
  std::vector<FieldCase> cases;
  {
    FieldCase c{"uniform_two_layers_offset_world", {}, {}};
    c.config.world = {-10.0f, 5.0f, 50.0f, 30.0f};
    c.config.width = 97;
    c.config.height = 61;
    c.config.kinds = {circle(3.0f), own_unit(1.5f), attack(4.0f)};
    c.config.layers = {{"a", {{0, 0}, {1, 2}}}, {"b", {{1, 1}, {2, 0}}}};
    c.entities = random_entities(c.config.world, 300, 4, 11, 3.0f);
    cases.push_back(c);
  }
  {
    FieldCase c{"clustered", {}, {}};
    c.config.width = c.config.height = 128;
    c.config.kinds = {circle(8.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    generate_entities(c.config.world, 600, Distribution::Clustered, 0, 5, c.entities);
    cases.push_back(c);
  }
  {
    FieldCase c{"border_and_outside", {}, {}};
    c.config.world = {0, 0, 64, 64};
    c.config.width = c.config.height = 64;
    c.config.kinds = {circle(6.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    for (float x : {0.0f, 0.001f, 31.5f, 63.999f, 64.0f, -5.0f, 70.0f, -1e20f, 1e20f})
      for (float y : {0.0f, 63.999f, 64.0f, -3.0f, 32.0f}) c.entities.push_back({x, y, 0, 0});
    cases.push_back(c);
  }
  {
    FieldCase c{"hot_spot_needs_64bit_sums", {}, {}};
    c.config.world = {0, 0, 32, 32};
    c.config.width = c.config.height = 32;
    c.config.kinds = {obstacle(3.0f), circle(5.0f)};
    c.config.layers = {{"walls", {{0, 0}}}, {"mixed", {{0, 1}, {1, 0}}}};
    for (int i = 0; i < 2500; ++i) c.entities.push_back({16.2f, 16.7f, 0, 0});
    for (int i = 0; i < 40; ++i) c.entities.push_back({3.0f + 0.01f * i, 29.0f, 1, 0});
    cases.push_back(c);
  }
  {
    // Two armies of large charges meeting in a band, as the battle builds them: tiles in the band hold
    // hundreds of records (summed by a whole block, in 64-bit shared sums), the rest few (a warp each).
    FieldCase c{"armies_of_large_charges", {}, {}};
    c.config.world = {0, 0, 96, 96};
    c.config.width = c.config.height = 192;
    c.config.kinds = {attack(14.0f), own_unit(2.0f), circle(9.0f)};
    c.config.layers = {{"team0", {{1, 0}, {0, 1}}}, {"team1", {{0, 0}, {1, 1}, {2, 2}}}};
    SplitMix64 rng(31);
    for (int i = 0; i < 3000; ++i)
      c.entities.push_back(
          {rng.uniform(30.0f, 66.0f), rng.uniform(40.0f, 56.0f), static_cast<std::uint32_t>(i % 2), 0});
    for (int i = 0; i < 30; ++i) c.entities.push_back({rng.uniform(0.0f, 96.0f), rng.uniform(0.0f, 96.0f), 2, 0});
    cases.push_back(c);
  }
  {
    FieldCase c{"empty", {}, {}};
    c.config.width = 70;
    c.config.height = 40;
    c.config.kinds = {circle(8.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    cases.push_back(c);
  }
  {
    FieldCase c{"sub_cell_radius", {}, {}};
    c.config.world = {0, 0, 16, 16};
    c.config.width = c.config.height = 16;
    c.config.kinds = {own_unit(0.4f, -7.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    c.entities = random_entities(c.config.world, 40, 1, 3);
    cases.push_back(c);
  }
  {
    FieldCase c{"single_cell_grid", {}, {}};
    c.config.width = c.config.height = 1;
    c.config.kinds = {circle(100.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    c.entities = random_entities(c.config.world, 25, 1, 4, 50.0f);
    cases.push_back(c);
  }
  {
    FieldCase c{"thin_grids", {}, {}};
    c.config.world = {0, 0, 300, 3};
    c.config.width = 301;
    c.config.height = 3;
    c.config.kinds = {circle(20.0f), trail()};
    c.config.layers = {{"a", {{0, 0}}}, {"b", {{0, 1}}}};
    c.entities = random_entities(c.config.world, 50, 1, 8);
    cases.push_back(c);
    FieldCase d{"one_column", {}, {}};
    d.config.world = {0, 0, 4, 200};
    d.config.width = 1;
    d.config.height = 57;
    d.config.kinds = {circle(30.0f)};
    d.config.layers = {{"a", {{0, 0}}}};
    d.entities = random_entities(d.config.world, 30, 1, 9);
    cases.push_back(d);
  }
  {
    FieldCase c{"anisotropic_cells", {}, {}};
    c.config.world = {0, 0, 100, 10};
    c.config.width = c.config.height = 40;
    c.config.kinds = {circle(6.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    c.entities = random_entities(c.config.world, 60, 1, 10);
    cases.push_back(c);
  }
  {
    FieldCase c{"sixteen_kinds_four_layers_tile_edges", {}, {}};
    c.config.world = {0, 0, 130, 66};
    c.config.width = 65;
    c.config.height = 33;
    for (int k = 0; k < 16; ++k) c.config.kinds.push_back(circle(2.0f + 1.5f * k));
    for (int l = 0; l < 4; ++l) {
      LayerSpec s{"layer" + std::to_string(l), {}};
      for (std::uint32_t g = 0; g < 8; ++g) s.rules.push_back({g * 8 + l, (g * 3 + l) % 16});
      c.config.layers.push_back(s);
    }
    c.entities = random_entities(c.config.world, 400, 64, 12, 10.0f);
    cases.push_back(c);
  }
  {
    // Reach beyond 254 cells: the GPU tables lose their compile-time pitch; this one is too large for
    // shared memory (global tables), the next one fits (shared tables with a run-time pitch).
    FieldCase c{"wide_reach", {}, {}};
    c.config.world = {0, 0, 64, 64};
    c.config.width = c.config.height = 512;
    c.config.kinds = {circle(40.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    c.entities = random_entities(c.config.world, 30, 1, 14, 20.0f);
    cases.push_back(c);
    FieldCase d{"flat_cells_wide_rows", {}, {}};
    d.config.world = {0, 0, 10, 100};
    d.config.width = d.config.height = 40;
    d.config.kinds = {circle(70.0f)};
    d.config.layers = {{"field", {{0, 0}}}};
    d.entities = random_entities(d.config.world, 20, 1, 15);
    cases.push_back(d);
  }
  {
    FieldCase c{"huge_count", {}, {}, false};
    c.config.width = c.config.height = 256;
    c.config.kinds = {circle(4.0f)};
    c.config.layers = {{"field", {{0, 0}}}};
    c.entities = random_entities(c.config.world, 20000, 1, 13);
    cases.push_back(c);
  }
  return cases;
}

}  // namespace warpmind::field::test
