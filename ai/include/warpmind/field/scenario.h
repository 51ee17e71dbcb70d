// Field scenarios: a FieldConfig plus entities, read from JSON or generated from a few parameters.
//
// JSON (every key optional unless marked):
//   { "world": {"x0": 0, "y0": 0, "width": 256, "height": 256},
//     "resolution": 512 | {"width": 512, "height": 256},
//     "kinds": [ {"name": "base", "type": "circle", "param": 8},          // required, 1..16 kinds
//                {"name": "wall", "segments": [{"end": 1, "slope": 0, "intercept": -1000}]} ],
//     "layers": [ {"name": "tactical", "rules": [{"group": 0, "kind": "base"}]} ],   // required
//     "entities": [ {"x": 10.5, "y": 20, "group": 0} ],
//     "generate": {"count": 100, "distribution": "uniform"|"clustered", "group": 0, "seed": 1} }
// "type" is a factory of charge.h (circle, attack, retreat, own_unit, obstacle, trail) with its first
// parameter in "param". Errors name the file and the offending field: "s.json: kinds[1].param: ...".
// Keys other than those shown are errors that name them ("comment", at the top level, is allowed and
// ignored); a number a double cannot hold (1e400) is an error; nothing throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/field/field.h"

namespace warpmind::field {

struct FieldScenario {
  FieldConfig config;
  std::vector<Entity> entities;
};

enum class Distribution { Uniform, Clustered };
bool parse_distribution(std::string_view name, Distribution& out);

// Appends `count` entities of `group` to `out`, spread over `world`: uniformly, or around 8 hot spots
// (normal-ish scatter, 1/40 of the world's size), deterministically from `seed`.
void generate_entities(const WorldRect& world, std::size_t count, Distribution d, std::uint32_t group,
                       std::uint64_t seed, std::vector<Entity>& out);

struct FieldGenParams {
  float world = 256.0f;          // square world side, world units
  int width = 1024, height = 0;  // resolution; height 0 = square
  std::size_t count = 256;
  float radius = 8.0f;  // circle kind radius, world units
  Distribution distribution = Distribution::Uniform;
  std::uint64_t seed = 1;
};
// The seed's benchmark set-up: one circle kind, one layer "field", entities in group 0.
FieldScenario generate_field_scenario(const FieldGenParams& p);

Status parse_field_scenario(std::string_view json_text, const std::string& source, FieldScenario& out);
Status load_field_scenario(const std::string& path, FieldScenario& out);

}  // namespace warpmind::field
