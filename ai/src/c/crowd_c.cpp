// The C API's crowd (contract in warpmind/warpmind.h): a thin wrapper over crowd::CrowdSolver.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/warpmind.h"

using namespace warpmind;
using namespace warpmind::capi;

struct wm_crowd {
  std::unique_ptr<crowd::CrowdSolver> solver;
  mutable std::vector<Vec2> buffer;  // positions or proposals in C++ form, reused every tick
  std::vector<std::uint8_t> saved;   // the last wm_crowd_save's bytes
};

wm_status wm_crowd_create(wm_context* ctx, float x0, float y0, float width, float height, float radius,
                          wm_crowd** out) {
  wm_crowd_config config{};  // no obstacles, WM_CROWD_STRICT, WM_CROWD_AUTO, accept/reject, no maximum step
  config.x0 = x0, config.y0 = y0, config.width = width, config.height = height, config.radius = radius;
  return wm_crowd_create_with(ctx, &config, out);
}

wm_status wm_crowd_create_with(wm_context* ctx, const wm_crowd_config* config, wm_crowd** out) {
  if (!ctx) return null_argument("wm_crowd_create", "ctx");
  if (!config) return null_argument("wm_crowd_create", "config");
  if (!out) return null_argument("wm_crowd_create", "out");
  const wm_crowd_config& c = *config;
  const int rule = raw_enum(c.rule), variant = raw_enum(c.variant), movement = raw_enum(c.movement);
  if (movement != WM_CROWD_ACCEPT_REJECT && movement != WM_CROWD_AVOID)
    return fail(WM_INVALID_ARGUMENT,
                "wm_crowd_create: movement " + std::to_string(movement) + " is not a wm_crowd_movement");
  if (rule != WM_CROWD_STRICT && rule != WM_CROWD_LOWEST_ID_WINS)
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_create: rule " + std::to_string(rule) + " is not a wm_crowd_rule");
  if (variant < WM_CROWD_AUTO || variant > WM_CROWD_GPU_STATIC_GRID)
    return fail(WM_INVALID_ARGUMENT,
                "wm_crowd_create: variant " + std::to_string(variant) + " is not a wm_crowd_variant");
  if (c.obstacles_width < 0 || c.obstacles_height < 0 || (c.obstacles_width == 0) != (c.obstacles_height == 0))
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_create: obstacles of " + std::to_string(c.obstacles_width) + " x " +
                                         std::to_string(c.obstacles_height) + " cells (both > 0, or both 0)");
  if (c.obstacles_width > 0 && !c.blocked) return null_argument("wm_crowd_create", "blocked");
  return guarded([&] {
    static constexpr crowd::CrowdVariant kVariants[] = {crowd::CrowdVariant::Auto, crowd::CrowdVariant::CpuReference,
                                                        crowd::CrowdVariant::GpuSort, crowd::CrowdVariant::GpuTiled,
                                                        crowd::CrowdVariant::GpuStaticGrid};
    crowd::CrowdConfig cc;
    cc.world = {c.x0, c.y0, c.width, c.height};
    cc.radius = c.radius;
    cc.rule = rule == WM_CROWD_STRICT ? crowd::CrowdRule::Strict : crowd::CrowdRule::LowestIdWins;
    cc.variant = kVariants[variant];
    cc.movement = movement == WM_CROWD_AVOID ? crowd::CrowdMovement::Avoid : crowd::CrowdMovement::AcceptReject;
    cc.max_step = c.max_step;
    cc.min_radius = c.min_radius;
    if (c.obstacles_width > 0) {
      cc.obstacles.width = c.obstacles_width;
      cc.obstacles.height = c.obstacles_height;
      cc.obstacles.blocked.assign(c.blocked,
                                  c.blocked + std::size_t(c.obstacles_width) * std::size_t(c.obstacles_height));
    }
    auto h = std::make_unique<wm_crowd>();
    if (wm_status s = from(crowd::CrowdSolver::create(*ctx->ctx, cc, h->solver)); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_crowd_destroy(wm_crowd* c) { delete c; }

static_assert(sizeof(wm_vec2) == sizeof(Vec2) && alignof(wm_vec2) == alignof(Vec2), "wm_vec2 is warpmind::Vec2");

wm_status wm_crowd_reset(wm_crowd* c, const wm_vec2* p, size_t n) { return wm_crowd_reset_steps(c, p, nullptr, n); }

wm_status wm_crowd_reset_steps(wm_crowd* c, const wm_vec2* positions, const float* max_steps, size_t count) {
  return wm_crowd_reset_agents(c, positions, max_steps, nullptr, count);
}

namespace {
// count floats, or none (NULL).
std::span<const float> floats(const float* v, std::size_t count) {
  return v ? std::span<const float>(v, count) : std::span<const float>();
}
}  // namespace

wm_status wm_crowd_reset_agents(wm_crowd* c, const wm_vec2* positions, const float* max_steps, const float* radii,
                                size_t count) {
  if (!c) return null_argument("wm_crowd_reset", "crowd");
  if (count && !positions) return null_argument("wm_crowd_reset", "positions");
  return guarded([&] {
    std::vector<Vec2>& p = c->buffer;
    p.resize(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = {positions[i].x, positions[i].y};
    return from(c->solver->reset(p, floats(max_steps, count), floats(radii, count)));
  });
}

wm_status wm_crowd_step(wm_crowd* c, const wm_vec2* proposals, size_t count, wm_crowd_stats* stats) {
  if (!c) return null_argument("wm_crowd_step", "crowd");
  if (count && !proposals) return null_argument("wm_crowd_step", "proposals");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_step: " + std::to_string(count) + " proposals for " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] {
    std::vector<Vec2>& p = c->buffer;
    p.resize(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = {proposals[i].x, proposals[i].y};
    if (wm_status s = from(c->solver->step(p)); s != WM_OK) return s;
    if (stats) {
      const crowd::StepStats& st = c->solver->last_stats();
      *stats = {st.moved, st.stayed, st.out_of_world, st.blocked, st.collisions, st.too_far};
    }
    return WM_OK;
  });
}

wm_status wm_crowd_positions(const wm_crowd* c, wm_vec2* positions, size_t count) {
  if (!c) return null_argument("wm_crowd_positions", "crowd");
  if (count && !positions) return null_argument("wm_crowd_positions", "positions");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_positions: room for " + std::to_string(count) + " positions, " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] {
    std::vector<Vec2>& p = c->buffer;
    p.resize(count);
    if (wm_status s = from(c->solver->read_positions(p)); s != WM_OK) return s;
    for (std::size_t i = 0; i < count; ++i) positions[i] = {p[i].x, p[i].y};
    return WM_OK;
  });
}

size_t wm_crowd_size(const wm_crowd* c) { return c ? c->solver->size() : 0; }

static_assert(sizeof(crowd::Verdict) == 1 && static_cast<int>(crowd::Verdict::Moved) == WM_VERDICT_MOVED &&
                  static_cast<int>(crowd::Verdict::Stayed) == WM_VERDICT_STAYED &&
                  static_cast<int>(crowd::Verdict::OutOfWorld) == WM_VERDICT_OUT_OF_WORLD &&
                  static_cast<int>(crowd::Verdict::Blocked) == WM_VERDICT_BLOCKED &&
                  static_cast<int>(crowd::Verdict::Collision) == WM_VERDICT_COLLISION &&
                  static_cast<int>(crowd::Verdict::TooFar) == WM_VERDICT_TOO_FAR,
              "WM_VERDICT_* are crowd::Verdict's values");

wm_status wm_crowd_verdicts(const wm_crowd* c, uint8_t* verdicts, size_t count) {
  if (!c) return null_argument("wm_crowd_verdicts", "crowd");
  if (count && !verdicts) return null_argument("wm_crowd_verdicts", "verdicts");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_verdicts: room for " + std::to_string(count) + " verdicts, " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] {
    return from(
        c->solver->read_verdicts(std::span<crowd::Verdict>(reinterpret_cast<crowd::Verdict*>(verdicts), count)));
  });
}

wm_status wm_crowd_retain(wm_crowd* c, const uint8_t* keep, size_t count) {
  if (!c) return null_argument("wm_crowd_retain", "crowd");
  if (count && !keep) return null_argument("wm_crowd_retain", "keep");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_retain: " + std::to_string(count) + " flags for " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] { return from(c->solver->retain(std::span<const std::uint8_t>(keep, count))); });
}

wm_status wm_crowd_spawn(wm_crowd* c, const wm_vec2* positions, const float* max_steps, size_t count, uint32_t* ids) {
  return wm_crowd_spawn_agents(c, positions, max_steps, nullptr, count, ids);
}

wm_status wm_crowd_spawn_agents(wm_crowd* c, const wm_vec2* positions, const float* max_steps, const float* radii,
                                size_t count, uint32_t* ids) {
  if (!c) return null_argument("wm_crowd_spawn", "crowd");
  if (count && !positions) return null_argument("wm_crowd_spawn", "positions");
  return guarded([&] {
    std::vector<Vec2>& p = c->buffer;
    p.assign(reinterpret_cast<const Vec2*>(positions), reinterpret_cast<const Vec2*>(positions) + count);
    return from(c->solver->spawn(p, floats(max_steps, count),
                                 ids ? std::span<std::uint32_t>(ids, count) : std::span<std::uint32_t>(),
                                 floats(radii, count)));
  });
}

wm_status wm_crowd_radii(const wm_crowd* c, float* radii, size_t count) {
  if (!c) return null_argument("wm_crowd_radii", "crowd");
  if (count && !radii) return null_argument("wm_crowd_radii", "radii");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_radii: room for " + std::to_string(count) + " radii, " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] { return from(c->solver->read_radii(std::span<float>(radii, count))); });
}

wm_status wm_crowd_despawn(wm_crowd* c, const uint32_t* ids, size_t count) {
  if (!c) return null_argument("wm_crowd_despawn", "crowd");
  if (count && !ids) return null_argument("wm_crowd_despawn", "ids");
  return guarded([&] { return from(c->solver->despawn(std::span<const std::uint32_t>(ids, count))); });
}

wm_status wm_crowd_ids(const wm_crowd* c, uint32_t* ids, size_t count) {
  if (!c) return null_argument("wm_crowd_ids", "crowd");
  if (count && !ids) return null_argument("wm_crowd_ids", "ids");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_ids: room for " + std::to_string(count) + " ids, " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] { return from(c->solver->read_ids(std::span<std::uint32_t>(ids, count))); });
}

wm_status wm_crowd_save(wm_crowd* c, const uint8_t** bytes, size_t* size) {
  if (!c) return null_argument("wm_crowd_save", "crowd");
  if (!bytes || !size) return null_argument("wm_crowd_save", "bytes or size");
  return guarded([&] {
    if (wm_status s = from(c->solver->save(c->saved)); s != WM_OK) return s;
    *bytes = c->saved.data();
    *size = c->saved.size();
    return WM_OK;
  });
}

wm_status wm_crowd_restore(wm_crowd* c, const uint8_t* bytes, size_t size) {
  if (!c) return null_argument("wm_crowd_restore", "crowd");
  if (size && !bytes) return null_argument("wm_crowd_restore", "bytes");
  return guarded([&] { return from(c->solver->restore(std::span<const std::uint8_t>(bytes, size))); });
}
