// warpmind's Python module (`warpmind._warpmind`, re-exported by the package `warpmind`): a thin pybind11
// layer over the C++ API (field layers, the crowd solver, the AOI world, region matching, combat,
// navigation fields) and the C API (the chess and Connect6 engines,
// whose handles keep the game's history; one Context serves both through the C API's wm_context). No logic of its own: arguments are converted, a Status that
// is not OK becomes warpmind.Error (ValueError for a bad argument) with its message, and the GIL is
// released around every call that computes. Arrays come in as NumPy arrays of any compatible dtype
// (converted to float32 / uint32 / uint8 as the C++ call takes them) and go out as new NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "module.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/combat/combat.h"
#include "warpmind/core/context.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"
#include "warpmind/nav/sight.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/warpmind.h"

namespace py = pybind11;
using namespace warpmind;
using namespace warpmind::python;

void bind_crowd(py::module_& m);  // crowd_binding.cpp
void bind_world(py::module_& m);  // world_binding.cpp

namespace {

// ---- field ------------------------------------------------------------------------------------------

field::ChargeKind charge_kind(const std::string& name, const std::vector<std::tuple<float, float, float>>& segments) {
  std::vector<field::ChargeSegment> s;
  for (const auto& [end, slope, intercept] : segments) s.push_back({end, slope, intercept});
  field::ChargeKind k;
  check(field::make_charge_kind(name, s, k));
  return k;
}

field::ChargeKind preset(const std::string& type, float param) {
  field::ChargeKind k;
  check(field::charge_kind_from_name(type, param, k));
  return k;
}

struct FieldObject {
  std::shared_ptr<ContextObject> owner;  // the context outlives the field
  std::unique_ptr<field::FieldLayers> layers;
  std::vector<field::Entity> entities;  // reused by build()

  FieldObject(std::shared_ptr<ContextObject> ctx, std::tuple<float, float, float, float> world,
              std::tuple<int, int> size, std::vector<field::ChargeKind> kinds,
              std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t>>> rules, const std::string& variant)
      : owner(std::move(ctx)) {
    field::FieldConfig c;
    c.world = world_of(world);
    c.width = std::get<0>(size);
    c.height = std::get<1>(size);
    c.kinds = std::move(kinds);
    for (std::size_t l = 0; l < rules.size(); ++l) {
      field::LayerSpec spec;
      spec.name = "layer" + std::to_string(l);
      for (const auto& [group, kind] : rules[l]) spec.rules.push_back({group, kind});
      c.layers.push_back(std::move(spec));
    }
    if (!field::parse_variant(variant, c.variant)) throw py::value_error("variant: unknown name '" + variant + "'");
    check(field::FieldLayers::create(owner->ctx(), c, layers));
  }

  void build(const Array<float>& xy, const Array<std::uint32_t>& groups) {
    const std::span<const Vec2> p = points_of(xy, "build: positions");
    if (groups.ndim() != 1 || static_cast<std::size_t>(groups.shape(0)) != p.size())
      throw py::value_error("build: groups must be a 1-D array of one group per position");
    entities.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) entities[i] = {p[i].x, p[i].y, groups.data()[i], 0};
    check(without_gil([&] { return layers->build(entities); }));
  }

  Array<float> layer(int l) const {
    const field::FieldConfig& c = layers->config();
    Array<float> out({c.height, c.width});
    std::span<float> s(out.mutable_data(), static_cast<std::size_t>(c.width) * static_cast<std::size_t>(c.height));
    check(without_gil([&] { return layers->read(l, s); }));
    return out;
  }

  Array<float> sample(int l, const Array<float>& points) {
    const std::span<const Vec2> p = points_of(points, "sample: points");
    Array<float> out(static_cast<py::ssize_t>(p.size()));
    const std::span<float> o(out.mutable_data(), p.size());
    check(without_gil([&] { return layers->sample(l, p, o); }));
    return out;
  }

  Array<float> gradient(int l, const Array<float>& points) {
    const std::span<const Vec2> p = points_of(points, "gradient: points");
    Array<float> out = new_points(p.size());
    const std::span<Vec2> o = points_out(out);
    check(without_gil([&] { return layers->gradient(l, p, o); }));
    return out;
  }

  // (cells (n, 2) int32, targets (n, 2) float32, values (n,) float32)
  py::tuple best_move(int l, const Array<float>& points, int window) {
    const std::span<const Vec2> p = points_of(points, "best_move: points");
    std::vector<field::MoveChoice> m(p.size());
    check(without_gil([&] { return layers->best_move(l, p, window, m); }));
    Array<std::int32_t> cells({static_cast<py::ssize_t>(p.size()), py::ssize_t{2}});
    Array<float> targets = new_points(p.size());
    Array<float> values(static_cast<py::ssize_t>(p.size()));
    for (std::size_t i = 0; i < m.size(); ++i) {
      cells.mutable_data()[2 * i] = m[i].cell_x;
      cells.mutable_data()[2 * i + 1] = m[i].cell_y;
      points_out(targets)[i] = m[i].target;
      values.mutable_data()[i] = m[i].value;
    }
    return py::make_tuple(cells, targets, values);
  }
};

// ---- area of interest ------------------------------------------------------------------------------

// The NumPy dtype of a command (aoi::Command's 24 bytes).
py::dtype command_dtype() {
  py::list names, formats, offsets;
  for (auto [n, f, o] :
       {std::tuple{"player", "<u4", 0}, std::tuple{"type", "<u4", 4}, std::tuple{"dx", "<f4", 8},
        std::tuple{"dy", "<f4", 12}, std::tuple{"target", "<u4", 16}, std::tuple{"damage", "<i4", 20}}) {
    names.append(n);
    formats.append(f);
    offsets.append(o);
  }
  py::dict d;
  d["names"] = names;
  d["formats"] = formats;
  d["offsets"] = offsets;
  d["itemsize"] = 24;
  return py::dtype::from_args(d);
}

template <class T>
Array<std::uint32_t> records(std::span<const T> v, int columns) {
  static_assert(sizeof(T) % 4 == 0);
  Array<std::uint32_t> out({static_cast<py::ssize_t>(v.size()), static_cast<py::ssize_t>(columns)});
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
}
template <class T>
Array<std::uint32_t> records(const std::vector<T>& v, int columns) {
  return records(std::span<const T>(v), columns);
}

struct AoiObject {
  std::shared_ptr<ContextObject> owner;
  std::unique_ptr<aoi::AoiWorld> world;
  aoi::TickResult result;
  std::vector<aoi::Player> players;

  AoiObject(std::shared_ptr<ContextObject> ctx, std::tuple<float, float, float, float> w, float size,
            const std::string& shape, float max_move, float attack_range, bool track_visibility,
            const std::string& variant, std::uint64_t chunk_notifications)
      : owner(std::move(ctx)) {
    aoi::AoiConfig c;
    if (chunk_notifications) c.chunk_notifications = chunk_notifications;  // 0: the library's default
    c.world = world_of(w);
    c.aoi = size;
    if (!aoi::parse_shape(shape, c.shape)) throw py::value_error("shape: 'square' or 'circle', got '" + shape + "'");
    c.max_move = max_move;
    c.attack_range = attack_range;
    c.track_visibility = track_visibility;
    if (!aoi::parse_variant(variant, c.variant)) throw py::value_error("variant: unknown name '" + variant + "'");
    check(aoi::AoiWorld::create(owner->ctx(), c, world));
  }

  void reset(const Array<float>& positions, const Array<std::int32_t>& hp) {
    const std::span<const Vec2> p = points_of(positions, "reset: positions");
    if (hp.ndim() != 1 || static_cast<std::size_t>(hp.shape(0)) != p.size())
      throw py::value_error("reset: hp must be a 1-D array of one HP per position");
    players.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) players[i] = {p[i].x, p[i].y, hp.data()[i]};
    check(without_gil([&] { return world->reset(players); }));
  }

  py::bytes save() const { return save_state(*world); }
  void restore(const py::bytes& bytes) { restore_state(*world, bytes); }

  // commands: a NumPy array of COMMAND_DTYPE. Returns a dict of the tick's results.
  py::dict tick(const py::array& commands) { return tick_with(commands, nullptr); }

  // The tick with its notifications handed to on_chunk(first_receiver, end_receiver, first_notification,
  // notifications (k, 4) uint32) chunk by chunk (AoiConfig::chunk_notifications) instead of returned. An
  // exception raised by on_chunk skips the later chunks and is raised again after the tick.
  py::dict tick_chunked(const py::array& commands, const py::function& on_chunk) {
    std::optional<py::error_already_set> raised;
    const aoi::NotificationSink sink = [&](const aoi::NotificationChunk& c) {
      py::gil_scoped_acquire gil;
      if (raised) return;
      try {
        on_chunk(c.first_receiver, c.end_receiver, c.first_notification, records(c.notifications, 4));
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
      }
    };
    py::dict d = tick_with(commands, &sink);
    if (raised) throw std::move(*raised);
    return d;
  }

  py::dict tick_with(const py::array& commands, const aoi::NotificationSink* sink) {
    static const py::dtype* want = new py::dtype(command_dtype());  // kept for the process (never freed:
                                                                    // no Python call after finalisation)
    if (commands.ndim() != 1 || !commands.dtype().attr("__eq__")(*want).cast<bool>() ||
        !(commands.flags() & py::array::c_style))
      throw py::value_error("tick: commands must be a contiguous 1-D array of warpmind.COMMAND_DTYPE");
    static_assert(sizeof(aoi::Command) == 24);
    const std::span<const aoi::Command> c(static_cast<const aoi::Command*>(commands.data()),
                                          static_cast<std::size_t>(commands.shape(0)));
    check(without_gil([&] { return sink ? world->tick(c, result, *sink) : world->tick(c, result); }));
    py::dict d;
    d["notifications"] = records(result.notifications, 4);  // receiver, subject, field, value
    d["entered"] = records(result.entered, 2);              // receiver, other
    d["left"] = records(result.left, 2);
    d["accepted"] = result.accepted;
    py::list rejected;
    for (std::size_t k : result.rejected) rejected.append(k);
    d["rejected"] = rejected;
    return d;
  }

  py::tuple state() const {
    const std::span<const aoi::Player> p = world->players();
    Array<float> xy = new_points(p.size());
    Array<std::int32_t> hp(static_cast<py::ssize_t>(p.size()));
    for (std::size_t i = 0; i < p.size(); ++i) {
      points_out(xy)[i] = {p[i].x, p[i].y};
      hp.mutable_data()[i] = p[i].hp;
    }
    return py::make_tuple(xy, hp);
  }
};

// ---- region matching (2-D or 3-D) --------------------------------------------------------------------

// One matcher of D dimensions behind a run-time dimension count.
struct AnyMatcher {
  virtual ~AnyMatcher() = default;
  virtual Status add(ddm::RegionKind k, const std::vector<float>& b, ddm::RegionId& id) = 0;
  virtual Status update(ddm::RegionId id, const std::vector<float>& b) = 0;
  virtual Status remove(ddm::RegionId id) = 0;
  virtual Status match(std::vector<ddm::Pair>& pairs) = 0;
  virtual Status match_changes(std::vector<ddm::Pair>& appeared, std::vector<ddm::Pair>& gone) = 0;
};

template <int D>
struct Matcher final : AnyMatcher {
  std::unique_ptr<ddm::RegionMatcher<D>> m;
  static ddm::Box<D> box(const std::vector<float>& b) {
    if (b.size() != 2 * D)
      throw py::value_error("box: " + std::to_string(2 * D) + " numbers (lo..., hi...), got " +
                            std::to_string(b.size()));
    ddm::Box<D> out;
    for (int d = 0; d < D; ++d) {
      out.lo[d] = b[d];
      out.hi[d] = b[D + d];
    }
    return out;
  }
  Status add(ddm::RegionKind k, const std::vector<float>& b, ddm::RegionId& id) override {
    return m->add(k, box(b), id);
  }
  Status update(ddm::RegionId id, const std::vector<float>& b) override { return m->update(id, box(b)); }
  Status remove(ddm::RegionId id) override { return m->remove(id); }
  Status match(std::vector<ddm::Pair>& pairs) override { return m->match(pairs); }
  Status match_changes(std::vector<ddm::Pair>& appeared, std::vector<ddm::Pair>& gone) override {
    return m->match_changes(appeared, gone);
  }
};

struct RegionsObject {
  std::shared_ptr<ContextObject> owner;
  std::unique_ptr<AnyMatcher> matcher;
  std::vector<ddm::Pair> pairs, gone;

  RegionsObject(std::shared_ptr<ContextObject> ctx, const std::string& variant, float grid_cell, int dimensions)
      : owner(std::move(ctx)) {
    ddm::MatcherConfig c;
    if (!ddm::parse_variant(variant, c.variant)) throw py::value_error("variant: unknown name '" + variant + "'");
    c.grid_cell = grid_cell;
    if (dimensions == 2) {
      auto m = std::make_unique<Matcher<2>>();
      check(ddm::RegionMatcher<2>::create(owner->ctx(), c, m->m));
      matcher = std::move(m);
    } else if (dimensions == 3) {
      auto m = std::make_unique<Matcher<3>>();
      check(ddm::RegionMatcher<3>::create(owner->ctx(), c, m->m));
      matcher = std::move(m);
    } else {
      throw py::value_error("dimensions: 2 or 3, got " + std::to_string(dimensions));
    }
  }
  std::uint32_t add(const std::string& kind, const std::vector<float>& b) {
    ddm::RegionKind k;
    if (kind == "publication")
      k = ddm::RegionKind::Publication;
    else if (kind == "subscription")
      k = ddm::RegionKind::Subscription;
    else
      throw py::value_error("kind: 'publication' or 'subscription', got '" + kind + "'");
    ddm::RegionId id = 0;
    check(matcher->add(k, b, id));
    return id;
  }
  void update(std::uint32_t id, const std::vector<float>& b) { check(matcher->update(id, b)); }
  void remove(std::uint32_t id) { check(matcher->remove(id)); }
  Array<std::uint32_t> match() {
    check(without_gil([&] { return matcher->match(pairs); }));
    return records(pairs, 2);  // publication, subscription
  }
  py::tuple match_changes() {
    check(without_gil([&] { return matcher->match_changes(pairs, gone); }));
    return py::make_tuple(records(pairs, 2), records(gone, 2));
  }
};

// ---- combat -----------------------------------------------------------------------------------------

struct CombatObject {
  std::shared_ptr<ContextObject> owner;
  std::unique_ptr<combat::Volleys> volleys;

  CombatObject(std::shared_ptr<ContextObject> ctx, std::tuple<float, float, float, float> w, float range, float damage,
               int cooldown_ticks, const std::string& variant)
      : owner(std::move(ctx)) {
    combat::CombatConfig c;
    c.world = world_of(w);
    c.range = range;
    c.damage = damage;
    c.cooldown_ticks = cooldown_ticks;
    if (!combat::parse_variant(variant, c.variant)) throw py::value_error("variant: unknown name '" + variant + "'");
    check(combat::Volleys::create(owner->ctx(), c, volleys));
  }
  void reset(const Array<std::uint8_t>& teams, const Array<float>& hp) {
    if (teams.ndim() != 1 || hp.ndim() != 1) throw py::value_error("reset: teams and hp must be 1-D arrays");
    check(without_gil([&] {
      return volleys->reset({teams.data(), static_cast<std::size_t>(teams.shape(0))},
                            {hp.data(), static_cast<std::size_t>(hp.shape(0))});
    }));
  }
  Array<std::uint8_t> fire(const Array<float>& positions) {
    const std::span<const Vec2> p = points_of(positions, "fire: positions");
    Array<std::uint8_t> keep(static_cast<py::ssize_t>(p.size()));
    std::span<std::uint8_t> k(keep.mutable_data(), p.size());
    check(without_gil([&] { return volleys->fire(p, k); }));
    return keep;
  }
  py::tuple state() const {
    std::vector<std::uint8_t> teams;
    std::vector<float> hp;
    std::vector<std::int32_t> cooldown;
    check(volleys->read(&teams, &hp, &cooldown));
    return py::make_tuple(Array<std::uint8_t>(static_cast<py::ssize_t>(teams.size()), teams.data()),
                          Array<float>(static_cast<py::ssize_t>(hp.size()), hp.data()),
                          Array<std::int32_t>(static_cast<py::ssize_t>(cooldown.size()), cooldown.data()));
  }
};

// ---- navigation fields ------------------------------------------------------------------------------

nav::Grid grid_of(const Array<std::uint8_t>& costs) {
  if (costs.ndim() != 2) throw py::value_error("costs: expected a 2-D array (rows, columns) of 0 (blocked) .. 255");
  nav::Grid g;
  g.height = static_cast<int>(costs.shape(0));
  g.width = static_cast<int>(costs.shape(1));
  g.cost.assign(costs.data(), costs.data() + costs.size());
  return g;
}

// (distance (goals, rows, columns) float32, direction (goals, rows, columns) int8)
// Goals (n, 2) of (x, y) as cells.
std::vector<nav::Cell> cells_of(const Array<std::int32_t>& goals) {
  if (goals.ndim() != 2 || goals.shape(1) != 2)
    throw py::value_error("goals: expected an array of shape (n, 2) of (x, y)");
  std::vector<nav::Cell> cells(static_cast<std::size_t>(goals.shape(0)));
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = {goals.data()[2 * i], goals.data()[2 * i + 1]};
  return cells;
}

nav::FieldOptions options_of(const std::string& unreachable) {
  nav::FieldOptions o;
  if (unreachable == "nearest")
    o.unreachable = nav::Unreachable::NearestCell;
  else if (unreachable != "infinity")
    throw py::value_error("unreachable: 'infinity' or 'nearest', got '" + unreachable + "'");
  return o;
}

py::tuple distance_fields(ContextObject& ctx, const Array<std::uint8_t>& costs, const Array<std::int32_t>& goals,
                          const std::string& unreachable) {
  const nav::FieldOptions o = options_of(unreachable);
  const nav::Grid g = grid_of(costs);
  const std::vector<nav::Cell> cells = cells_of(goals);
  const std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(cells.size()), g.height, g.width};
  Array<float> distance(shape);
  py::array_t<std::int8_t> direction(shape);
  const std::size_t n = cells.size() * g.cells();
  const std::span<float> d(distance.mutable_data(), n);
  const std::span<std::int8_t> r(direction.mutable_data(), n);
  check(without_gil([&] { return nav::distance_fields(ctx.ctx(), g, cells, d, r, o); }));
  return py::make_tuple(distance, direction);
}

// (distance (rows, columns) float32, direction (rows, columns) int8): the field of the goal set `goals`.
py::tuple goal_set_field(ContextObject& ctx, const Array<std::uint8_t>& costs, const Array<std::int32_t>& goals,
                         const std::string& unreachable) {
  const nav::FieldOptions o = options_of(unreachable);
  const nav::Grid g = grid_of(costs);
  const std::vector<nav::Cell> cells = cells_of(goals);
  const std::vector<py::ssize_t> shape = {g.height, g.width};
  Array<float> distance(shape);
  py::array_t<std::int8_t> direction(shape);
  const std::span<float> d(distance.mutable_data(), g.cells());
  const std::span<std::int8_t> r(direction.mutable_data(), g.cells());
  check(without_gil([&] { return nav::goal_set_field(ctx.ctx(), g, cells, d, r, o); }));
  return py::make_tuple(distance, direction);
}

// (steer (n, 2) float32, dist (n,) float32) by one goal's field: distance and direction (rows, columns),
// as distance_fields returns them for that goal.
py::tuple steer(const Array<std::uint8_t>& costs, const Array<float>& distance,
                const py::array_t<std::int8_t>& direction, const Array<float>& positions) {
  const nav::Grid g = grid_of(costs);
  for (const py::buffer_info& b : {distance.request(), direction.request()})
    if (b.ndim != 2 || b.shape[0] != g.height || b.shape[1] != g.width)
      throw py::value_error("steer: distance and direction must have the shape of costs (rows, columns)");
  const std::span<const Vec2> p = points_of(positions, "steer: positions");
  Array<float> out({static_cast<py::ssize_t>(p.size()), py::ssize_t{2}});
  Array<float> dist(static_cast<py::ssize_t>(p.size()));
  check(nav::steer(g, {distance.data(), g.cells()}, {direction.data(), g.cells()}, p,
                   {reinterpret_cast<Vec2*>(out.mutable_data()), p.size()}, {dist.mutable_data(), p.size()}));
  return py::make_tuple(out, dist);
}

// Unit sizes and line of sight (warpmind/nav/clearance.h, sight.h).
py::array_t<std::uint16_t> clearance_of(const Array<std::uint8_t>& costs) {
  const nav::Grid g = grid_of(costs);
  py::array_t<std::uint16_t> out({static_cast<py::ssize_t>(g.height), static_cast<py::ssize_t>(g.width)});
  check(nav::clearance(g, {out.mutable_data(), g.cells()}));
  return out;
}
int size_class(double radius_cells) {
  int n = 0;
  check(nav::size_class_of_radius(radius_cells, n));
  return n;
}
bool line_of_sight(const Array<std::uint8_t>& costs, std::pair<int, int> a, std::pair<int, int> b) {
  const nav::Grid g = grid_of(costs);
  check(nav::check_grid(g));
  return nav::line_of_sight(g, {a.first, a.second}, {b.first, b.second});
}
void check_field_shape(const nav::Grid& g, const py::array& a, const char* what) {
  if (a.ndim() != 2 || a.shape(0) != g.height || a.shape(1) != g.width)
    throw py::value_error(std::string(what) + " must have the shape of costs (rows, columns)");
}
py::array_t<std::uint32_t> waypoints(ContextObject& ctx, const Array<std::uint8_t>& costs, const Array<float>& distance,
                                     const py::array_t<std::int8_t>& direction) {
  const nav::Grid g = grid_of(costs);
  check_field_shape(g, distance, "waypoints: distance");
  check_field_shape(g, direction, "waypoints: direction");
  py::array_t<std::uint32_t> out({static_cast<py::ssize_t>(g.height), static_cast<py::ssize_t>(g.width)});
  const std::span<std::uint32_t> w(out.mutable_data(), g.cells());
  check(without_gil([&] {
    return nav::waypoints(ctx.ctx(), g, {distance.data(), g.cells()}, {direction.data(), g.cells()}, w);
  }));
  return out;
}
py::tuple steer_to_waypoints(const Array<std::uint8_t>& costs, const Array<float>& distance,
                             const py::array_t<std::uint32_t>& waypoint, const Array<float>& positions) {
  const nav::Grid g = grid_of(costs);
  check_field_shape(g, distance, "steer_to_waypoints: distance");
  check_field_shape(g, waypoint, "steer_to_waypoints: waypoints");
  const std::span<const Vec2> p = points_of(positions, "steer_to_waypoints: positions");
  Array<float> out({static_cast<py::ssize_t>(p.size()), py::ssize_t{2}});
  Array<float> dist(static_cast<py::ssize_t>(p.size()));
  check(nav::steer_to_waypoints(g, {distance.data(), g.cells()}, {waypoint.data(), g.cells()}, p,
                                {reinterpret_cast<Vec2*>(out.mutable_data()), p.size()},
                                {dist.mutable_data(), p.size()}));
  return py::make_tuple(out, dist);
}

// A grid's costs as a new (rows, columns) uint8 array.
py::array_t<std::uint8_t> costs_of(const nav::Grid& g) {
  py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(g.height), static_cast<py::ssize_t>(g.width)});
  std::memcpy(out.mutable_data(), g.cost.data(), g.cost.size());
  return out;
}

// Moving AI map text -> costs; costs -> map text; a generated map's costs (nav/grid.h, nav/generate.h).
py::array_t<std::uint8_t> read_map(const std::string& text) {
  nav::Grid g;
  check(nav::read_moving_ai(text, g));
  return costs_of(g);
}
std::string write_map(const Array<std::uint8_t>& costs) {
  std::string out;
  check(nav::write_moving_ai(grid_of(costs), out));
  return out;
}
py::array_t<std::uint8_t> class_costs(const Array<std::uint8_t>& costs, int size_class) {
  nav::Grid g;
  check(nav::class_grid(grid_of(costs), size_class, g));
  return costs_of(g);
}
py::array_t<std::uint8_t> generate_map(const std::string& kind, int width, int height, std::uint64_t seed) {
  nav::MapKind k;
  if (!nav::parse_map_kind(kind, k)) throw py::value_error("kind: 'open', 'rooms' or 'maze', got '" + kind + "'");
  nav::Grid g;
  check(nav::generate_map(k, width, height, seed, g));
  return costs_of(g);
}

// Navigation fields kept up to date as cells change (warpmind/nav/nav_fields.h).
struct NavFieldsObject {
  std::shared_ptr<ContextObject> owner;
  std::unique_ptr<nav::NavFields> fields;
  std::vector<nav::CellChange> changes;  // reused by update()

  NavFieldsObject(std::shared_ptr<ContextObject> ctx, const Array<std::uint8_t>& costs,
                  const Array<std::int32_t>& goals)
      : owner(std::move(ctx)) {
    const nav::Grid g = grid_of(costs);
    const std::vector<nav::Cell> cells = cells_of(goals);
    check(without_gil([&] { return nav::NavFields::create(owner->ctx(), g, cells, fields); }));
  }
  // changes: (k, 3) integers (x, y, new cost 0..255).
  void update(const Array<std::int32_t>& c) {
    if (c.ndim() != 2 || c.shape(1) != 3)
      throw py::value_error("update: changes must be an array of shape (k, 3) of (x, y, cost)");
    changes.resize(static_cast<std::size_t>(c.shape(0)));
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const std::int32_t cost = c.data()[3 * i + 2];
      if (cost < 0 || cost > 255)
        throw py::value_error("update: change " + std::to_string(i) + ": cost outside 0..255");
      changes[i] = {{c.data()[3 * i], c.data()[3 * i + 1]}, static_cast<std::uint8_t>(cost)};
    }
    check(without_gil([&] { return fields->update(changes); }));
  }
  py::bytes save() const { return save_state(*fields); }
  void restore(const py::bytes& bytes) { restore_state(*fields, bytes); }
  std::size_t goal_index(std::size_t g) const {
    if (g >= fields->goals()) throw py::value_error("goal " + std::to_string(g) + " out of range");
    return g;
  }
  Array<float> distance(std::size_t g) const {
    const nav::Grid& grid = fields->grid();
    const std::span<const float> d = fields->distance(goal_index(g));
    Array<float> out({static_cast<py::ssize_t>(grid.height), static_cast<py::ssize_t>(grid.width)});
    std::memcpy(out.mutable_data(), d.data(), d.size_bytes());
    return out;
  }
  py::array_t<std::int8_t> direction(std::size_t g) const {
    const nav::Grid& grid = fields->grid();
    const std::span<const std::int8_t> r = fields->direction(goal_index(g));
    py::array_t<std::int8_t> out({static_cast<py::ssize_t>(grid.height), static_cast<py::ssize_t>(grid.width)});
    std::memcpy(out.mutable_data(), r.data(), r.size_bytes());
    return out;
  }
};

// ---- the engines, through the C API's handles -------------------------------------------------------

py::dict result_of(const wm_search_result& r) {
  py::dict d;
  d["move"] = std::string(r.move);
  d["score"] = r.score;
  d["depth"] = r.depth;
  d["nodes"] = r.nodes;
  return d;
}

wm_search_limits limits_of(int depth, std::int64_t time_ms, std::uint64_t nodes) {
  wm_search_limits l{};
  l.depth = depth;
  l.time_ms = time_ms;
  l.nodes = nodes;
  return l;
}

struct ChessObject {
  std::shared_ptr<ContextObject> owner;
  wm_chess* h = nullptr;
  ChessObject(std::shared_ptr<ContextObject> ctx, int hash_mb, int threads) : owner(std::move(ctx)) {
    check_c(wm_chess_create(&owner->c, hash_mb, threads, &h));
  }
  ~ChessObject() { wm_chess_destroy(h); }
  void set_position(const std::optional<std::string>& fen, const std::string& moves) {
    check_c(wm_chess_set_position(h, fen ? fen->c_str() : nullptr, moves.c_str()));
  }
  py::dict search(int depth, std::int64_t time_ms, std::uint64_t nodes) {
    const wm_search_limits l = limits_of(depth, time_ms, nodes);
    wm_search_result r{};
    check_c_without_gil([&] { return wm_chess_search(h, &l, &r); });
    return result_of(r);
  }
};

struct Connect6Object {
  std::shared_ptr<ContextObject> owner;
  wm_connect6* h = nullptr;
  Connect6Object(std::shared_ptr<ContextObject> ctx, int threads) : owner(std::move(ctx)) {
    check_c(wm_connect6_create(&owner->c, threads, &h));
  }
  ~Connect6Object() { wm_connect6_destroy(h); }
  void set_position(const std::string& turns) { check_c(wm_connect6_set_position(h, turns.c_str())); }
  py::dict search(int depth, std::int64_t time_ms) {
    const wm_search_limits l = limits_of(depth, time_ms, 0);
    wm_search_result r{};
    check_c_without_gil([&] { return wm_connect6_search(h, &l, &r); });
    return result_of(r);
  }
};

// search_many through the C API's handle: a move for each of many positions.
struct TablesObject {
  std::shared_ptr<ContextObject> owner;
  wm_tables* h = nullptr;
  TablesObject(std::shared_ptr<ContextObject> ctx, const std::string& game, int width) : owner(std::move(ctx)) {
    wm_game g;
    if (game == "chess")
      g = WM_GAME_CHESS;
    else if (game == "connect6")
      g = WM_GAME_CONNECT6;
    else
      throw py::value_error("game: 'chess' or 'connect6', got '" + game + "'");
    check_c(wm_tables_create(&owner->c, g, width, &h));
  }
  ~TablesObject() { wm_tables_destroy(h); }
  py::tuple search(const std::vector<std::string>& positions, int depth) {
    std::vector<const char*> p;
    p.reserve(positions.size());
    for (const std::string& s : positions) p.push_back(s.c_str());
    std::vector<wm_search_result> r(positions.size());
    std::uint64_t nodes = 0;
    check_c_without_gil([&] { return wm_tables_search(h, p.data(), p.size(), depth, r.data(), &nodes); });
    py::list out;
    for (const wm_search_result& x : r) out.append(result_of(x));
    return py::make_tuple(out, nodes);
  }
};

}  // namespace

PYBIND11_MODULE(_warpmind, m) {
  m.doc() = "warpmind's native module; use the package `warpmind`.";
  static py::exception<std::runtime_error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<std::range_error> unavailable(m, "Unavailable", error.ptr());
  g_error = error.ptr();
  g_unavailable = unavailable.ptr();
  m.attr("__version__") = wm_version();

  py::class_<ContextObject, std::shared_ptr<ContextObject>>(m, "Context", R"(The backend every module runs on.

backend: 'auto' (the GPU when one is usable, else the CPU threads), 'cpu' or 'cuda' (Unavailable
without a usable GPU); threads: the CPU pool's size, 0 for one per hardware thread, at most 4096;
log: None (the library's messages are dropped) or a callable(level, message), level 'info' or 'warning',
called with the backend choice during the constructor and with any later message; what it raises is
reported as unraisable and dropped.)")
      .def(py::init<const std::string&, unsigned, const py::object&>(), py::arg("backend") = "auto",
           py::arg("threads") = 0u, py::arg("log") = py::none())
      .def_property_readonly("uses_gpu", [](const ContextObject& c) { return c.c.ctx->backend() == Backend::Cuda; })
      .def_property_readonly("backend",
                             [](const ContextObject& c) { return std::string(backend_name(c.c.ctx->backend())); });

  py::class_<field::ChargeKind>(m, "ChargeKind",
                                "A radial charge profile: value(d) piecewise linear up to its cut-off.")
      .def(py::init(&charge_kind), py::arg("name"), py::arg("segments"),
           "segments: [(end, slope, intercept), ...] in increasing end (at most 4)")
      .def_readonly("name", &field::ChargeKind::name)
      .def_property_readonly("cutoff", &field::ChargeKind::cutoff)
      .def("value", &field::ChargeKind::value, py::arg("d"), "The profile at distance d (float32 arithmetic).");
  m.def("charge_kind", &preset, py::arg("type"), py::arg("param"),
        "A preset kind by name: circle, attack, retreat, own_unit, obstacle or trail, with its first parameter.");

  py::class_<FieldObject>(m, "Field", R"(Potential-field layers on a grid (warpmind/field/field.h).

world: (x0, y0, width, height); size: (columns, rows); kinds: ChargeKinds; layers: per layer a list of
(group, kind index) rules; variant: 'auto' or a variant name. Layers are (rows, columns) float32
arrays, row 0 at y0.)")
      .def(py::init<std::shared_ptr<ContextObject>, std::tuple<float, float, float, float>, std::tuple<int, int>,
                    std::vector<field::ChargeKind>, std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t>>>,
                    const std::string&>(),
           py::arg("context"), py::arg("world"), py::arg("size"), py::arg("kinds"), py::arg("layers"),
           py::arg("variant") = "auto")
      .def("build", &FieldObject::build, py::arg("positions"), py::arg("groups"),
           "Every layer from entities: positions (n, 2), groups (n,).")
      .def("layer", &FieldObject::layer, py::arg("index"), "The layer as a new (rows, columns) float32 array.")
      .def("sample", &FieldObject::sample, py::arg("layer"), py::arg("points"))
      .def("gradient", &FieldObject::gradient, py::arg("layer"), py::arg("points"))
      .def("best_move", &FieldObject::best_move, py::arg("layer"), py::arg("points"), py::arg("window"),
           "(cells, targets, values) of the best cell of each point's window x window block.")
      .def_property_readonly(
          "variant", [](const FieldObject& f) { return std::string(field::variant_name(f.layers->variant())); });

  bind_crowd(m);
  bind_world(m);

  m.attr("COMMAND_DTYPE") = command_dtype();
  py::class_<AoiObject>(m, "Aoi", R"(An area-of-interest world (warpmind/aoi/aoi.h): who is told about whom each tick.

world: (x0, y0, width, height); size: the bucket side (square) or radius (circle). tick(commands) takes
an array of COMMAND_DTYPE (type 0 move by dx, dy; 1 attack target with damage; 2 heal the player by damage)
and returns a dict:
notifications (n, 4) uint32 (receiver, subject, field 0 x / 1 y / 2 hp, value bits), entered and left
(k, 2) uint32 (receiver, other), accepted, rejected (counts by reason). tick_chunked(commands, on_chunk)
hands the notifications to on_chunk(first_receiver, end_receiver, first_notification, notifications)
chunk by chunk instead (every receiver in exactly one chunk, in order; at most chunk_notifications a
chunk unless one receiver alone has more; 0: the library's default), so a tick of any size runs in
bounded memory; its dict's notifications are then empty.)")
      .def(py::init<std::shared_ptr<ContextObject>, std::tuple<float, float, float, float>, float, const std::string&,
                    float, float, bool, const std::string&, std::uint64_t>(),
           py::arg("context"), py::arg("world"), py::arg("size"), py::arg("shape") = "square",
           py::arg("max_move") = 10.0f, py::arg("attack_range") = 10.0f, py::arg("track_visibility") = true,
           py::arg("variant") = "auto", py::arg("chunk_notifications") = 0)
      .def("reset", &AoiObject::reset, py::arg("positions"), py::arg("hp"))
      .def("save", &AoiObject::save, "The players and the config's fingerprint as bytes (format in aoi.h).")
      .def("restore", &AoiObject::restore, py::arg("state"),
           "Puts saved bytes back (same settings, any variant); bad bytes: ValueError, nothing changes.")
      .def("tick", &AoiObject::tick, py::arg("commands"))
      .def("tick_chunked", &AoiObject::tick_chunked, py::arg("commands"), py::arg("on_chunk"))
      .def("state", &AoiObject::state, "(positions (n, 2) float32, hp (n,) int32) after the last tick.");

  py::class_<RegionsObject>(m, "Regions", R"(Publish/subscribe region matching in 2-D or 3-D (warpmind/ddm/ddm.h).

Boxes are (lo_x, lo_y, hi_x, hi_y) in 2-D and (lo_x, lo_y, lo_z, hi_x, hi_y, hi_z) in 3-D, half-open;
match() returns the overlapping (publication, subscription) pairs as a (k, 2) uint32 array in ascending
order, match_changes() the pairs that appeared and those that went since the last match.)")
      .def(py::init<std::shared_ptr<ContextObject>, const std::string&, float, int>(), py::arg("context"),
           py::arg("variant") = "auto", py::arg("grid_cell") = 0.0f, py::arg("dimensions") = 2)
      .def("add", &RegionsObject::add, py::arg("kind"), py::arg("box"))
      .def("update", &RegionsObject::update, py::arg("id"), py::arg("box"))
      .def("remove", &RegionsObject::remove, py::arg("id"))
      .def("match", &RegionsObject::match)
      .def("match_changes", &RegionsObject::match_changes);

  py::class_<CombatObject>(m, "Combat", R"(Volleys of an RTS battle (warpmind/combat/combat.h).

fire(positions) returns the keep flags (1: survived); the survivors are renumbered in order, as
Crowd.retain(keep) does.)")
      .def(py::init<std::shared_ptr<ContextObject>, std::tuple<float, float, float, float>, float, float, int,
                    const std::string&>(),
           py::arg("context"), py::arg("world"), py::arg("range") = 6.0f, py::arg("damage") = 12.0f,
           py::arg("cooldown_ticks") = 4, py::arg("variant") = "auto")
      .def("reset", &CombatObject::reset, py::arg("teams"), py::arg("hp"))
      .def("fire", &CombatObject::fire, py::arg("positions"))
      .def("state", &CombatObject::state, "(teams, hp, cooldown) of the living units.")
      .def("__len__", [](const CombatObject& c) { return c.volleys->size(); });

  m.def("distance_fields", &distance_fields, py::arg("context"), py::arg("costs"), py::arg("goals"),
        py::arg("unreachable") = "infinity",
        R"(Navigation fields (warpmind/nav/nav.h): costs (rows, columns) uint8, 0 blocked; goals (n, 2) cells
(x, y). Returns (distance (n, rows, columns) float32, +inf where unreachable; direction (n, rows,
columns) int8, an index into the 8 steps E, SE, S, SW, W, NW, N, NE, -1 at the goal and where none).
unreachable='nearest': a cell that cannot reach the goal gets the field of its region's cell nearest
the goal in a straight line instead of +inf.)");

  m.def("goal_set_field", &goal_set_field, py::arg("context"), py::arg("costs"), py::arg("goals"),
        py::arg("unreachable") = "infinity",
        R"(The field of a goal set (warpmind/nav/nav.h): the walk from every cell to the nearest of goals (n, 2)
(x, y) on costs (rows, columns) uint8. Returns (distance (rows, columns) float32, direction (rows,
columns) int8), as distance_fields' for one goal; no goal gives +inf everywhere. unreachable as
distance_fields'.)");

  m.def("clearance", &clearance_of, py::arg("costs"),
        "Clearance (warpmind/nav/clearance.h): (rows, columns) uint16, 0 blocked, else the Chebyshev distance to "
        "the nearest blocked or outside cell.");
  m.def("class_costs", &class_costs, py::arg("costs"), py::arg("size_class"),
        "The costs of size class n: a cell's cost where its clearance is at least n, 0 elsewhere.");
  m.def("size_class", &size_class, py::arg("radius_cells"),
        "The size class of a disc of this radius in cell units: max(1, ceil(r + 0.5)).");
  m.def("line_of_sight", &line_of_sight, py::arg("costs"), py::arg("a"), py::arg("b"),
        "Whether the segment between the centres of cells a and b (x, y) walks only passable cells "
        "(warpmind/nav/sight.h).");
  m.def("waypoints", &waypoints, py::arg("context"), py::arg("costs"), py::arg("distance"), py::arg("direction"),
        "The waypoints of one field (warpmind/nav/sight.h): (rows, columns) uint32, the row-major cell each cell "
        "heads for, 0xFFFFFFFF where none.");
  m.def("steer_to_waypoints", &steer_to_waypoints, py::arg("costs"), py::arg("distance"), py::arg("waypoints"),
        py::arg("positions"), "(steer (n, 2) float32, dist (n,) float32): toward each position's waypoint centre.");

  m.def("read_map", &read_map, py::arg("text"),
        "A Moving AI map's text (warpmind/nav/grid.h) as costs (rows, columns) uint8: 0 blocked, 1 passable.");
  m.def("write_map", &write_map, py::arg("costs"), "Costs (0 or 1 per cell) as a Moving AI map's text.");
  m.def("generate_map", &generate_map, py::arg("kind"), py::arg("width"), py::arg("height"), py::arg("seed") = 1,
        "A generated map (warpmind/nav/generate.h: 'open', 'rooms' or 'maze') as costs (rows, columns) uint8.");
  py::class_<NavFieldsObject>(m, "NavFields",
                              R"(Navigation fields kept up to date as cells change (warpmind/nav/nav_fields.h).

NavFields(context, costs, goals) computes the fields of goals (n, 2) on costs (rows, columns) uint8;
update(changes) applies (k, 3) rows (x, y, new cost; 0 blocks) and brings every field up to date, equal
bit for bit to distance_fields on the changed grid; distance(g) and direction(g) are new arrays.)")
      .def(py::init<std::shared_ptr<ContextObject>, const Array<std::uint8_t>&, const Array<std::int32_t>&>(),
           py::arg("context"), py::arg("costs"), py::arg("goals"))
      .def("update", &NavFieldsObject::update, py::arg("changes"))
      .def("save", &NavFieldsObject::save, "The grid as updated and the goals as bytes (format in nav_fields.h).")
      .def("restore", &NavFieldsObject::restore, py::arg("state"),
           "Replaces the grid and goals with saved ones and computes their fields; bad bytes: ValueError.")
      .def("distance", &NavFieldsObject::distance, py::arg("goal"))
      .def("direction", &NavFieldsObject::direction, py::arg("goal"))
      .def("__len__", [](const NavFieldsObject& f) { return f.fields->goals(); });

  m.def("steer", &steer, py::arg("costs"), py::arg("distance"), py::arg("direction"), py::arg("positions"),
        R"(Steering by one goal's navigation field (warpmind/nav/nav.h): distance and direction (rows, columns)
as distance_fields returns them for that goal, positions (n, 2) in cell units. Returns (steer (n, 2)
float32, the unit vector of each position's cell direction, (0, 0) where none or outside; dist (n,)
float32, the cell's distance, +inf outside).)");

  py::class_<ChessObject>(m, "Chess", "The chess engine (scores: see warpmind/warpmind.h).")
      .def(py::init<std::shared_ptr<ContextObject>, int, int>(), py::arg("context"), py::arg("hash_mb") = 64,
           py::arg("threads") = 1)
      .def("set_position", &ChessObject::set_position, py::arg("fen") = py::none(), py::arg("moves") = "")
      .def("search", &ChessObject::search, py::arg("depth") = 0, py::arg("time_ms") = 0, py::arg("nodes") = 0,
           "A dict: move (UCI), score, depth, nodes.");

  py::class_<TablesObject>(m, "Tables", R"(A move for each of many positions (warpmind/search/search_many.h).

game: 'chess' or 'connect6'; width: Connect6's candidate turns per node. search(positions, depth) takes
FENs (chess) or turns from the empty board (Connect6) and returns (results, nodes): a dict per position
(move, score, depth, nodes) as the engines' search returns, and every node the call visited.)")
      .def(py::init<std::shared_ptr<ContextObject>, const std::string&, int>(), py::arg("context"),
           py::arg("game") = "chess", py::arg("width") = 16)
      .def("search", &TablesObject::search, py::arg("positions"), py::arg("depth"));

  py::class_<Connect6Object>(m, "Connect6", "The Connect6 engine.")
      .def(py::init<std::shared_ptr<ContextObject>, int>(), py::arg("context"), py::arg("threads") = 1)
      .def("set_position", &Connect6Object::set_position, py::arg("turns") = "")
      .def("search", &Connect6Object::search, py::arg("depth") = 0, py::arg("time_ms") = 0,
           "A dict: move (letters), score, depth, nodes.");
}
