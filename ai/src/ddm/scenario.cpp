#include "warpmind/ddm/scenario.h"

#include <cmath>

#include "common/json_reader.h"
#include "warpmind/core/random.h"

namespace warpmind::ddm {

using warpmind::detail::json;
using Reader = warpmind::detail::JsonReader;

template <int D>
std::vector<Region<D>> generate_regions(const GenerateSpec& g) {
  static const float kSpots[3] = {1000.0f, 5000.0f, 9000.0f};
  SplitMix64 rng(g.seed);
  // alpha: the regions' total volume over the space's (alpha * L / N per side in one dimension).
  const double n = static_cast<double>(std::max<std::size_t>(g.regions, 1));
  const float side = g.size > 0 ? g.size : static_cast<float>(g.space * std::pow(g.alpha / n, 1.0 / D));
  std::vector<Region<D>> out(g.regions);
  for (std::size_t i = 0; i < g.regions; ++i) {
    Region<D>& r = out[i];
    r.kind = i % 2 ? RegionKind::Subscription : RegionKind::Publication;
    const bool spot = g.hotspot && rng.uniform() < 0.2f;
    const float centre = kSpots[rng.next() % 3] * (g.space / 10000.0f);
    for (int k = 0; k < D; ++k) {
      const float c = spot ? centre + rng.uniform(-0.03f, 0.03f) * g.space : rng.uniform(0.0f, g.space);
      r.box.lo[k] = c - side / 2;
      r.box.hi[k] = c + side / 2;
    }
  }
  return out;
}

template <int D>
void move_regions(std::vector<Region<D>>& regions, std::uint64_t seed, int step) {
  for (std::size_t i = 0; i < regions.size(); ++i) {
    SplitMix64 rng(seed ^ (i * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(step) << 40));
    Box<D>& b = regions[i].box;
    const int dir = static_cast<int>(rng.next() % 8);  // N, NE, E, SE, S, SW, W, NW on axes 0 and 1
    const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dy[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    const float hx = 0.5f * (b.hi[0] - b.lo[0]) * static_cast<float>(dx[dir]);
    const float hy = 0.5f * (b.hi[1] - b.lo[1]) * static_cast<float>(dy[dir]);
    b.lo[0] += hx, b.hi[0] += hx, b.lo[1] += hy, b.hi[1] += hy;
  }
}

template <int D>
std::vector<Region<D>> to_regions(const std::vector<RegionSpec>& specs) {
  std::vector<Region<D>> out(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    out[i].kind = specs[i].kind;
    for (int k = 0; k < D; ++k) {
      out[i].box.lo[k] = specs[i].lo[k];
      out[i].box.hi[k] = specs[i].hi[k];
    }
  }
  return out;
}

template std::vector<Region<2>> generate_regions<2>(const GenerateSpec&);
template std::vector<Region<3>> generate_regions<3>(const GenerateSpec&);
template void move_regions<2>(std::vector<Region<2>>&, std::uint64_t, int);
template void move_regions<3>(std::vector<Region<3>>&, std::uint64_t, int);
template std::vector<Region<2>> to_regions<2>(const std::vector<RegionSpec>&);
template std::vector<Region<3>> to_regions<3>(const std::vector<RegionSpec>&);

namespace {

Status parse_root(const Reader& r, const json& root, DdmScenario& s) {
  WM_RETURN_IF_ERROR(r.object(root, ""));
  WM_RETURN_IF_ERROR(r.keys(root, "", {"dimensions", "steps", "seed", "regions", "generate"}));
  long long dims = 2, steps = 30, seed = 1;
  WM_RETURN_IF_ERROR(r.integer(root, "dimensions", "", 2, 3, dims, false));
  WM_RETURN_IF_ERROR(r.integer(root, "steps", "", 0, 1000000, steps, false));
  WM_RETURN_IF_ERROR(r.integer(root, "seed", "", 0, INT64_MAX, seed, false));
  s.dimensions = static_cast<int>(dims);
  s.steps = static_cast<int>(steps);
  s.seed = static_cast<std::uint64_t>(seed);
  const auto regions = root.find("regions");
  const auto gen = root.find("generate");
  if ((regions == root.end()) == (gen == root.end()))
    return r.error("regions", "give either \"regions\" or \"generate\"");
  if (regions != root.end()) {
    if (!regions->is_array()) return r.error("regions", "expected an array");
    for (std::size_t i = 0; i < regions->size(); ++i) {
      const json& q = (*regions)[i];
      const std::string path = "regions[" + std::to_string(i) + "]";
      WM_RETURN_IF_ERROR(r.object(q, path));
      WM_RETURN_IF_ERROR(r.keys(q, path + ".", {"kind", "lo", "hi"}));
      RegionSpec spec;
      const auto kind = q.find("kind");
      if (kind == q.end() || !kind->is_string() ||
          (kind->get<std::string>() != "publication" && kind->get<std::string>() != "subscription"))
        return r.error(path + ".kind", "expected \"publication\" or \"subscription\"");
      spec.kind = kind->get<std::string>() == "publication" ? RegionKind::Publication : RegionKind::Subscription;
      for (const char* key : {"lo", "hi"}) {
        const auto v = q.find(key);
        if (v == q.end() || !v->is_array() || v->size() != static_cast<std::size_t>(dims))
          return r.error(path + "." + key, "expected " + std::to_string(dims) + " numbers");
        for (int k = 0; k < dims; ++k) {
          if (!(*v)[k].is_number()) return r.error(path + "." + key, "expected numbers");
          const float f = (*v)[k].get<float>();
          if (!std::isfinite(f)) return r.error(path + "." + key, "must be finite");
          (key[0] == 'l' ? spec.lo : spec.hi)[k] = f;
        }
      }
      for (int k = 0; k < dims; ++k)
        if (spec.lo[k] > spec.hi[k]) return r.error(path, "lo > hi on axis " + std::to_string(k));
      s.regions.push_back(spec);
    }
  } else {
    WM_RETURN_IF_ERROR(r.object(*gen, "generate"));
    WM_RETURN_IF_ERROR(r.keys(*gen, "generate.", {"regions", "seed", "space", "alpha", "size", "distribution"}));
    GenerateSpec g;
    long long n = 10000, gseed = 1;
    WM_RETURN_IF_ERROR(r.integer(*gen, "regions", "generate.", 0, 1ll << 28, n, false));
    WM_RETURN_IF_ERROR(r.integer(*gen, "seed", "generate.", 0, INT64_MAX, gseed, false));
    WM_RETURN_IF_ERROR(r.number(*gen, "space", "generate.", g.space, false));
    WM_RETURN_IF_ERROR(r.number(*gen, "alpha", "generate.", g.alpha, false));
    WM_RETURN_IF_ERROR(r.number(*gen, "size", "generate.", g.size, false));
    if (!(g.space > 0) || !(g.alpha >= 0) || !(g.size >= 0))
      return r.error("generate", "space > 0, alpha and size >= 0");
    if (auto d = gen->find("distribution"); d != gen->end()) {
      if (!d->is_string() || (d->get<std::string>() != "uniform" && d->get<std::string>() != "hotspot"))
        return r.error("generate.distribution", "expected \"uniform\" or \"hotspot\"");
      g.hotspot = d->get<std::string>() == "hotspot";
    }
    g.regions = static_cast<std::size_t>(n);
    g.seed = static_cast<std::uint64_t>(gseed);
    const auto to_spec = [&](const auto& regions) {
      for (const auto& q : regions) {
        RegionSpec spec;
        spec.kind = q.kind;
        for (std::size_t k = 0; k < q.box.lo.size(); ++k) spec.lo[k] = q.box.lo[k], spec.hi[k] = q.box.hi[k];
        s.regions.push_back(spec);
      }
    };
    if (dims == 2)
      to_spec(generate_regions<2>(g));
    else
      to_spec(generate_regions<3>(g));
  }
  return Status::Ok();
}

}  // namespace

Status parse_ddm_scenario(std::string_view json_text, const std::string& source, DdmScenario& out) {
  DdmScenario s;
  WM_RETURN_IF_ERROR(warpmind::detail::parse_json(
      json_text, source, [&](const Reader& r, const json& root) { return parse_root(r, root, s); }));
  out = std::move(s);
  return Status::Ok();
}

Status load_ddm_scenario(const std::string& path, DdmScenario& out) {
  std::string text;
  WM_RETURN_IF_ERROR(warpmind::detail::read_text_file(path, text));
  return parse_ddm_scenario(text, path, out);
}

}  // namespace warpmind::ddm
