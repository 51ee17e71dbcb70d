// The C API's combat (contract in warpmind/warpmind.h): a thin wrapper over combat::Volleys.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/combat/combat.h"
#include "warpmind/warpmind.h"

using namespace warpmind;
using namespace warpmind::capi;

struct wm_combat {
  std::unique_ptr<combat::Volleys> volleys;
  std::vector<Vec2> positions;  // the volley's positions in C++ form, reused every tick
  mutable std::vector<std::uint8_t> teams;
  mutable std::vector<float> hp;
  mutable std::vector<std::int32_t> cooldown;
};

wm_status wm_combat_create(wm_context* ctx, const wm_combat_config* config, wm_combat** out) {
  if (!ctx) return null_argument("wm_combat_create", "ctx");
  if (!config) return null_argument("wm_combat_create", "config");
  if (!out) return null_argument("wm_combat_create", "out");
  const int variant = raw_enum(config->variant);
  if (variant < WM_COMBAT_AUTO || variant > WM_COMBAT_GPU)
    return fail(WM_INVALID_ARGUMENT,
                "wm_combat_create: variant " + std::to_string(variant) + " is not a wm_combat_variant");
  return guarded([&] {
    combat::CombatConfig cc;
    cc.world = {config->x0, config->y0, config->width, config->height};
    cc.range = config->range;
    cc.damage = config->damage;
    cc.cooldown_ticks = config->cooldown_ticks;
    cc.variant = variant == WM_COMBAT_AUTO  ? combat::CombatVariant::Auto
                 : variant == WM_COMBAT_CPU ? combat::CombatVariant::Cpu
                                            : combat::CombatVariant::Gpu;
    auto h = std::make_unique<wm_combat>();
    if (wm_status s = from(combat::Volleys::create(*ctx->ctx, cc, h->volleys)); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_combat_destroy(wm_combat* c) { delete c; }

wm_status wm_combat_reset(wm_combat* c, const uint8_t* teams, const float* hp, size_t count) {
  if (!c) return null_argument("wm_combat_reset", "combat");
  if (count && !teams) return null_argument("wm_combat_reset", "teams");
  if (count && !hp) return null_argument("wm_combat_reset", "hp");
  return guarded([&] {
    return from(c->volleys->reset(std::span<const std::uint8_t>(teams, count), std::span<const float>(hp, count)));
  });
}

wm_status wm_combat_fire(wm_combat* c, const wm_vec2* positions, size_t count, uint8_t* keep) {
  if (!c) return null_argument("wm_combat_fire", "combat");
  if (count && !positions) return null_argument("wm_combat_fire", "positions");
  if (count && !keep) return null_argument("wm_combat_fire", "keep");
  if (count != c->volleys->size())
    return fail(WM_INVALID_ARGUMENT, "wm_combat_fire: " + std::to_string(count) + " positions for " +
                                         std::to_string(c->volleys->size()) + " units");
  return guarded([&] {
    c->positions.resize(count);
    for (std::size_t i = 0; i < count; ++i) c->positions[i] = {positions[i].x, positions[i].y};
    return from(c->volleys->fire(c->positions, std::span<std::uint8_t>(keep, count)));
  });
}

size_t wm_combat_size(const wm_combat* c) { return c ? c->volleys->size() : 0; }

wm_status wm_combat_state(const wm_combat* c, uint8_t* teams, float* hp, int32_t* cooldown, size_t count) {
  if (!c) return null_argument("wm_combat_state", "combat");
  if (count != c->volleys->size())
    return fail(WM_INVALID_ARGUMENT, "wm_combat_state: room for " + std::to_string(count) + " units, " +
                                         std::to_string(c->volleys->size()) + " units");
  return guarded([&] {
    if (wm_status s = from(
            c->volleys->read(teams ? &c->teams : nullptr, hp ? &c->hp : nullptr, cooldown ? &c->cooldown : nullptr));
        s != WM_OK)
      return s;
    for (std::size_t i = 0; i < count; ++i) {
      if (teams) teams[i] = c->teams[i];
      if (hp) hp[i] = c->hp[i];
      if (cooldown) cooldown[i] = c->cooldown[i];
    }
    return WM_OK;
  });
}
