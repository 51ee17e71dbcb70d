// A brute-force AOI tick written straight from the contract in warpmind/aoi/aoi.h, sharing no code with
// the variants: the independent reference of the AOI tests (whole ticks, O(N^2) range queries) and of
// `warpmind-bench aoi` (the logic of every command, the notifications of a sample of receivers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "warpmind/aoi/aoi.h"

namespace warpmind::oracle {

inline std::uint32_t aoi_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Whether s is in r's AOI. Square: buckets of side aoi from the world's corner, ceil(W / aoi) x
// ceil(H / aoi) of them (at least one), a position's index floor((x - x0) / aoi) clamped into the grid;
// r sees s iff their buckets are equal or adjacent. Circle: squared float distance <= aoi^2.
inline bool aoi_sees(const aoi::AoiConfig& c, const aoi::Player& r, const aoi::Player& s) {
  if (c.shape == aoi::AoiShape::Circle) {
    const float dx = r.x - s.x, dy = r.y - s.y;
    return dx * dx + dy * dy <= c.aoi * c.aoi;
  }
  const int cols = std::max(1, static_cast<int>(std::ceil(c.world.width / c.aoi)));
  const int rows = std::max(1, static_cast<int>(std::ceil(c.world.height / c.aoi)));
  const auto bx = [&](float x) {
    return std::clamp(static_cast<int>(std::floor((x - c.world.x0) / c.aoi)), 0, cols - 1);
  };
  const auto by = [&](float y) {
    return std::clamp(static_cast<int>(std::floor((y - c.world.y0) / c.aoi)), 0, rows - 1);
  };
  return std::abs(bx(r.x) - bx(s.x)) <= 1 && std::abs(by(r.y) - by(s.y)) <= 1;
}

// Steps 1-3 of the contract: validation (counted by reason), the merge in command order, the new values
// clamped, one update per (player, field) touched, sorted by (player, field). `p` becomes the players
// after the tick; `out`'s updates, rejected and accepted are overwritten.
inline void aoi_logic(const aoi::AoiConfig& c, std::vector<aoi::Player>& p, std::span<const aoi::Command> cmds,
                      aoi::TickResult& out) {
  using aoi::CommandType;
  const std::size_t n = p.size();
  out.updates.clear();
  out.rejected = {};
  out.accepted = 0;
  std::vector<float> dx(n, 0), dy(n, 0);
  std::vector<long long> dmg(n, 0);
  std::vector<bool> moved(n, false), hit(n, false);
  for (const aoi::Command& k : cmds) {
    aoi::RejectReason why{};
    bool bad = true;
    if (k.player >= n)
      why = aoi::RejectReason::UnknownPlayer;
    else if (k.type == CommandType::Move) {
      if (!std::isfinite(k.dx) || !std::isfinite(k.dy) || std::fabs(k.dx) > c.max_move || std::fabs(k.dy) > c.max_move)
        why = aoi::RejectReason::BadMove;
      else
        bad = false;
    } else if (k.type == CommandType::Attack) {
      if (k.target >= n)
        why = aoi::RejectReason::UnknownTarget;
      else if (k.target == k.player)
        why = aoi::RejectReason::SelfAttack;
      else if (k.damage < 0)
        why = aoi::RejectReason::BadDamage;
      else {
        const float ddx = p[k.player].x - p[k.target].x, ddy = p[k.player].y - p[k.target].y;
        if (!(ddx * ddx + ddy * ddy <= c.attack_range * c.attack_range))
          why = aoi::RejectReason::TargetOutOfRange;
        else
          bad = false;
      }
    } else if (k.type == CommandType::Heal) {
      if (k.damage < 0)
        why = aoi::RejectReason::BadDamage;
      else
        bad = false;
    } else {
      why = aoi::RejectReason::UnknownType;
    }
    if (bad) {
      ++out.rejected[static_cast<int>(why)];
      continue;
    }
    ++out.accepted;
    if (k.type == CommandType::Move) {
      dx[k.player] += k.dx;
      dy[k.player] += k.dy;
      moved[k.player] = true;
    } else if (k.type == CommandType::Attack) {
      dmg[k.target] += k.damage;
      hit[k.target] = true;
    } else {
      dmg[k.player] -= k.damage;
      hit[k.player] = true;
    }
  }
  const float x1 = c.world.x0 + c.world.width, y1 = c.world.y0 + c.world.height;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (moved[i]) {
      p[i].x = std::min(std::max(p[i].x + dx[i], c.world.x0), std::nextafter(x1, c.world.x0));
      p[i].y = std::min(std::max(p[i].y + dy[i], c.world.y0), std::nextafter(y1, c.world.y0));
      out.updates.push_back({i, aoi::Field::X, aoi_bits(p[i].x)});
      out.updates.push_back({i, aoi::Field::Y, aoi_bits(p[i].y)});
    }
    if (hit[i]) {
      p[i].hp = static_cast<std::int32_t>(std::clamp<long long>(p[i].hp - dmg[i], 0, INT32_MAX));
      out.updates.push_back({i, aoi::Field::Hp, static_cast<std::uint32_t>(p[i].hp)});
    }
  }
}

// Step 4 for one receiver: the notifications r gets, in (subject, field) order. O(updates).
inline std::vector<aoi::Notification> aoi_notifications_of(const aoi::AoiConfig& c, std::span<const aoi::Player> after,
                                                           std::span<const aoi::Update> updates, std::uint32_t r) {
  std::vector<aoi::Notification> out;
  for (const aoi::Update& u : updates)
    if (aoi_sees(c, after[r], after[u.player])) out.push_back({r, u.player, u.field, u.value});
  return out;
}

using AoiVisible = std::set<std::pair<std::uint32_t, std::uint32_t>>;

// The pairs (r, o), o != r, with o in r's AOI.
inline AoiVisible aoi_visibility(const aoi::AoiConfig& c, std::span<const aoi::Player> p) {
  AoiVisible v;
  for (std::uint32_t r = 0; r < p.size(); ++r)
    for (std::uint32_t o = 0; o < p.size(); ++o)
      if (o != r && aoi_sees(c, p[r], p[o])) v.insert({r, o});
  return v;
}

// A whole tick: `p` becomes the players after it, `visible` the visibility after it (it must hold the
// visibility before it); returns the tick's result with notifications as records.
inline aoi::TickResult aoi_tick(const aoi::AoiConfig& c, std::vector<aoi::Player>& p,
                                std::span<const aoi::Command> cmds, AoiVisible& visible) {
  aoi::TickResult r;
  aoi_logic(c, p, cmds, r);
  for (std::uint32_t rc = 0; rc < p.size(); ++rc)
    for (const aoi::Notification& nt : aoi_notifications_of(c, p, r.updates, rc)) r.notifications.push_back(nt);
  const AoiVisible now = aoi_visibility(c, p);
  for (const auto& [a, b] : now)
    if (!visible.count({a, b})) r.entered.push_back({a, b});
  for (const auto& [a, b] : visible)
    if (!now.count({a, b})) r.left.push_back({a, b});
  visible = now;
  return r;
}

}  // namespace warpmind::oracle
