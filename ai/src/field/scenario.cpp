#include "warpmind/field/scenario.h"

#include <cmath>

#include "common/json_reader.h"

#include "warpmind/core/random.h"

namespace warpmind::field {

using detail::json;

bool parse_distribution(std::string_view name, Distribution& out) {
  if (name == "uniform")
    out = Distribution::Uniform;
  else if (name == "clustered")
    out = Distribution::Clustered;
  else
    return false;
  return true;
}

void generate_entities(const WorldRect& world, std::size_t count, Distribution d, std::uint32_t group,
                       std::uint64_t seed, std::vector<Entity>& out) {
  SplitMix64 rng(seed);
  constexpr int kSpots = 8;
  float spot_x[kSpots], spot_y[kSpots];
  for (int s = 0; s < kSpots; ++s) {
    spot_x[s] = rng.uniform(0.1f, 0.9f);
    spot_y[s] = rng.uniform(0.1f, 0.9f);
  }
  out.reserve(out.size() + count);
  for (std::size_t i = 0; i < count; ++i) {
    float u, v;
    if (d == Distribution::Uniform) {
      u = rng.uniform();
      v = rng.uniform();
    } else {
      // Sum of four uniforms: bell-shaped, bounded scatter around a hot spot.
      const int s = static_cast<int>(rng.below(kSpots));
      const auto bell = [&] { return (rng.uniform() + rng.uniform() + rng.uniform() + rng.uniform() - 2.0f) / 40.0f; };
      u = std::fmin(std::fmax(spot_x[s] + bell(), 0.0f), 0.999999f);
      v = std::fmin(std::fmax(spot_y[s] + bell(), 0.0f), 0.999999f);
    }
    out.push_back({world.x0 + u * world.width, world.y0 + v * world.height, group, 0});
  }
}

FieldScenario generate_field_scenario(const FieldGenParams& p) {
  FieldScenario s;
  s.config.world = {0.0f, 0.0f, p.world, p.world};
  s.config.width = p.width;
  s.config.height = p.height > 0 ? p.height : p.width;
  s.config.kinds = {circle(p.radius)};
  s.config.layers = {{"field", {{0, 0}}}};
  generate_entities(s.config.world, p.count, p.distribution, 0, p.seed, s.entities);
  return s;
}

namespace {

using Reader = detail::JsonReader;

Status parse_kind(const Reader& r, const json& k, const std::string& path, ChargeKind& out) {
  WM_RETURN_IF_ERROR(r.object(k, path));
  WM_RETURN_IF_ERROR(r.keys(k, path + ".", {"name", "segments", "type", "param"}));
  std::string name = "kind";
  if (auto it = k.find("name"); it != k.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      return r.error(path + ".name", "expected a non-empty string");
    name = it->get<std::string>();
  }
  if (auto it = k.find("segments"); it != k.end()) {
    if (!it->is_array()) return r.error(path + ".segments", "expected an array");
    std::vector<ChargeSegment> segs;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string sp = path + ".segments[" + std::to_string(i) + "].";
      WM_RETURN_IF_ERROR(r.object((*it)[i], sp.substr(0, sp.size() - 1)));
      WM_RETURN_IF_ERROR(r.keys((*it)[i], sp, {"end", "slope", "intercept"}));
      ChargeSegment s{};
      WM_RETURN_IF_ERROR(r.number((*it)[i], "end", sp, s.end, true));
      WM_RETURN_IF_ERROR(r.number((*it)[i], "slope", sp, s.slope, true));
      WM_RETURN_IF_ERROR(r.number((*it)[i], "intercept", sp, s.intercept, true));
      segs.push_back(s);
    }
    Status st = make_charge_kind(name, segs, out);
    return st.ok() ? st : r.error(path + ".segments", st.message());
  }
  auto type = k.find("type");
  if (type == k.end() || !type->is_string()) return r.error(path + ".type", "expected a kind type or \"segments\"");
  float param = 0.0f;
  WM_RETURN_IF_ERROR(r.number(k, "param", path + ".", param, true));
  Status st = charge_kind_from_name(type->get<std::string>(), param, out);
  if (!st.ok()) return r.error(path, st.message());
  out.name = name;
  return Status::Ok();
}

Status parse_root(const Reader& r, const json& root, FieldScenario& s) {
  WM_RETURN_IF_ERROR(r.object(root, ""));
  WM_RETURN_IF_ERROR(r.keys(root, "", {"world", "resolution", "kinds", "layers", "entities", "generate"}));
  WM_RETURN_IF_ERROR(r.world(root, s.config.world));
  if (auto it = root.find("resolution"); it != root.end()) {
    long long w = 0, h = 0;
    if (it->is_number_integer()) {
      json wrap = {{"resolution", *it}};
      WM_RETURN_IF_ERROR(r.integer(wrap, "resolution", "", 1, kMaxCellsPerSide, w, true));
      h = w;
    } else {
      WM_RETURN_IF_ERROR(r.object(*it, "resolution"));
      WM_RETURN_IF_ERROR(r.keys(*it, "resolution.", {"width", "height"}));
      WM_RETURN_IF_ERROR(r.integer(*it, "width", "resolution.", 1, kMaxCellsPerSide, w, true));
      h = w;
      WM_RETURN_IF_ERROR(r.integer(*it, "height", "resolution.", 1, kMaxCellsPerSide, h, false));
    }
    s.config.width = static_cast<int>(w);
    s.config.height = static_cast<int>(h);
  }
  auto kinds = root.find("kinds");
  if (kinds == root.end() || !kinds->is_array() || kinds->empty())
    return r.error("kinds", "required: a non-empty array of charge kinds");
  if (kinds->size() > static_cast<std::size_t>(kMaxKinds)) return r.error("kinds", "at most 16 kinds");
  for (std::size_t i = 0; i < kinds->size(); ++i) {
    ChargeKind k;
    WM_RETURN_IF_ERROR(parse_kind(r, (*kinds)[i], "kinds[" + std::to_string(i) + "]", k));
    for (const ChargeKind& prev : s.config.kinds)
      if (prev.name == k.name)
        return r.error("kinds[" + std::to_string(i) + "].name", "duplicate name '" + k.name + "'");
    s.config.kinds.push_back(k);
  }
  auto layers = root.find("layers");
  if (layers == root.end() || !layers->is_array() || layers->empty())
    return r.error("layers", "required: a non-empty array of layers");
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const std::string lp = "layers[" + std::to_string(i) + "]";
    const json& l = (*layers)[i];
    WM_RETURN_IF_ERROR(r.object(l, lp));
    WM_RETURN_IF_ERROR(r.keys(l, lp + ".", {"name", "rules"}));
    LayerSpec spec;
    auto name = l.find("name");
    if (name == l.end() || !name->is_string() || name->get<std::string>().empty())
      return r.error(lp + ".name", "required: a non-empty string");
    spec.name = name->get<std::string>();
    auto rules = l.find("rules");
    if (rules == l.end() || !rules->is_array()) return r.error(lp + ".rules", "required: an array");
    for (std::size_t j = 0; j < rules->size(); ++j) {
      const std::string rp = lp + ".rules[" + std::to_string(j) + "]";
      const json& rule = (*rules)[j];
      WM_RETURN_IF_ERROR(r.object(rule, rp));
      WM_RETURN_IF_ERROR(r.keys(rule, rp + ".", {"group", "kind"}));
      long long group = 0;
      WM_RETURN_IF_ERROR(r.integer(rule, "group", rp + ".", 0, kMaxGroups - 1, group, true));
      auto kind = rule.find("kind");
      if (kind == rule.end() || !kind->is_string()) return r.error(rp + ".kind", "required: the name of a kind");
      int index = -1;
      for (std::size_t k = 0; k < s.config.kinds.size(); ++k)
        if (s.config.kinds[k].name == kind->get<std::string>()) index = static_cast<int>(k);
      if (index < 0) return r.error(rp + ".kind", "no kind named '" + kind->get<std::string>() + "'");
      for (const LayerRule& prev : spec.rules)
        if (prev.group == group)
          return r.error(rp + ".group", "group " + std::to_string(group) + " already has a rule");
      spec.rules.push_back({static_cast<std::uint32_t>(group), static_cast<std::uint32_t>(index)});
    }
    s.config.layers.push_back(std::move(spec));
  }
  if (auto it = root.find("entities"); it != root.end()) {
    if (!it->is_array()) return r.error("entities", "expected an array");
    s.entities.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string ep = "entities[" + std::to_string(i) + "]";
      WM_RETURN_IF_ERROR(r.object((*it)[i], ep));
      WM_RETURN_IF_ERROR(r.keys((*it)[i], ep + ".", {"x", "y", "group"}));
      Entity e;
      long long group = 0;
      WM_RETURN_IF_ERROR(r.number((*it)[i], "x", ep + ".", e.x, true));
      WM_RETURN_IF_ERROR(r.number((*it)[i], "y", ep + ".", e.y, true));
      WM_RETURN_IF_ERROR(r.integer((*it)[i], "group", ep + ".", 0, kMaxGroups - 1, group, false));
      e.group = static_cast<std::uint32_t>(group);
      s.entities.push_back(e);
    }
  }
  if (auto it = root.find("generate"); it != root.end()) {
    WM_RETURN_IF_ERROR(r.object(*it, "generate"));
    WM_RETURN_IF_ERROR(r.keys(*it, "generate.", {"count", "group", "seed", "distribution"}));
    long long count = 0, group = 0, seed = 1;
    WM_RETURN_IF_ERROR(r.integer(*it, "count", "generate.", 0, 100000000, count, true));
    WM_RETURN_IF_ERROR(r.integer(*it, "group", "generate.", 0, kMaxGroups - 1, group, false));
    WM_RETURN_IF_ERROR(r.integer(*it, "seed", "generate.", 0, INT64_MAX, seed, false));
    Distribution d = Distribution::Uniform;
    if (auto dist = it->find("distribution"); dist != it->end())
      if (!dist->is_string() || !parse_distribution(dist->get<std::string>(), d))
        return r.error("generate.distribution", "expected \"uniform\" or \"clustered\"");
    generate_entities(s.config.world, static_cast<std::size_t>(count), d, static_cast<std::uint32_t>(group),
                      static_cast<std::uint64_t>(seed), s.entities);
  }
  return Status::Ok();
}

}  // namespace

Status parse_field_scenario(std::string_view json_text, const std::string& source, FieldScenario& out) {
  FieldScenario s;
  WM_RETURN_IF_ERROR(
      detail::parse_json(json_text, source, [&](const Reader& r, const json& root) { return parse_root(r, root, s); }));
  out = std::move(s);
  return Status::Ok();
}

Status load_field_scenario(const std::string& path, FieldScenario& out) {
  std::string text;
  WM_RETURN_IF_ERROR(detail::read_text_file(path, text));
  return parse_field_scenario(text, path, out);
}

}  // namespace warpmind::field
