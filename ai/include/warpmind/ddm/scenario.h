// DDM scenarios: publication and subscription regions, generated (the seed's set-up or the overlap
// degree alpha) or read from JSON, and the seed's per-step moves.
//
// JSON (every key optional unless marked):
//   { "dimensions": 2,                                   // 2 or 3
//     "regions": [{"kind": "publication" | "subscription", "lo": [x, y], "hi": [x, y]}, ...]   // or:
//     "generate": {"regions": 10000, "space": 10000, "alpha": 1, "size": 0,
//                  "distribution": "uniform" | "hotspot", "seed": 1},
//     "steps": 30, "seed": 1 }
// One of "regions" or "generate" is required. Errors name the file and field. Numbers are read as
// JSON doubles (integers as 64-bit integers) and then rounded to the nearest float, so a decimal is
// rounded twice (1.0000000596046447753906251 -> the double 1 + 2^-24 -> the float 1.0, where rounding
// the decimal once would give 1 + 2^-23); %.9g output always reads back exactly. Coordinates whose
// float is infinite are errors. A region's id is its position in "regions" (or in the generated list:
// publications at even positions, subscriptions at odd ones).
// Keys other than those shown are errors that name them ("comment", at the top level, is allowed and
// ignored); a number a double cannot hold (1e400) is an error; nothing throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/ddm/ddm.h"

namespace warpmind::ddm {

template <int D>
struct Region {
  RegionKind kind = RegionKind::Publication;
  Box<D> box;
};

struct RegionSpec {  // a region of a scenario, D <= 3 (unused axes zero)
  RegionKind kind = RegionKind::Publication;
  std::array<float, 3> lo{}, hi{};
};

struct GenerateSpec {
  std::size_t regions = 10000;  // half publications, half subscriptions (alternating)
  float space = 10000.0f;       // the space is [0, space)^D
  float alpha = 1.0f;           // overlap degree: total region volume / space volume, so a side is
                                // space * (alpha / regions)^(1/D) (alpha * space / regions in 1D); when size is 0
  float size = 0.0f;            // fixed side (the seed's 10 and 100)
  bool hotspot = false;         // the seed's: 20% of regions around (1000,1000), (5000,5000), (9000,9000)
  std::uint64_t seed = 1;
};

struct DdmScenario {
  int dimensions = 2;
  std::vector<RegionSpec> regions;
  int steps = 30;          // `warpmind ddm --steps K` overrides it
  std::uint64_t seed = 1;  // the moves
};

template <int D>
std::vector<Region<D>> generate_regions(const GenerateSpec& spec);
// The seed's step: every region moves by half its size in a random compass direction (reproducible
// from seed, region index and step).
template <int D>
void move_regions(std::vector<Region<D>>& regions, std::uint64_t seed, int step);
template <int D>
std::vector<Region<D>> to_regions(const std::vector<RegionSpec>& specs);

Status parse_ddm_scenario(std::string_view json_text, const std::string& source, DdmScenario& out);
Status load_ddm_scenario(const std::string& path, DdmScenario& out);

}  // namespace warpmind::ddm
