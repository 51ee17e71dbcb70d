// The combat volley (contract in combat.h): the CPU variant and the dispatch to the CUDA one.
#include "core/names.h"
#include "warpmind/combat/combat.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "core/bucket_index.h"
#include "warpmind/core/device_memory.h"
#include "combat/combat_rules.h"

#if WARPMIND_HAVE_CUDA
#include "combat/combat_device.h"
#endif

namespace warpmind::combat {

namespace {

constexpr warpmind::detail::Named<CombatVariant> kVariants[] = {
    {CombatVariant::Auto, "auto"}, {CombatVariant::Cpu, "cpu"}, {CombatVariant::Gpu, "gpu"}};

constexpr std::uint32_t kNone = UINT32_MAX;

using rules::better;
using rules::cell_axis;
using rules::distance2;

}  // namespace

const char* variant_name(CombatVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, CombatVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
}

struct Volleys::Impl {
  float x0 = 0, y0 = 0, side = 1, range2 = 0;
  int cols = 1, rows = 1;
  // CPU state and scratch (reused every volley).
  std::vector<std::uint8_t> team;
  std::vector<float> hp;
  std::vector<std::int32_t> cooldown;
  std::vector<std::uint32_t> cell, target, shots;
  warpmind::detail::BucketIndex by_cell;  // the units by cell (stable: ids ascend inside a cell)
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::CombatDevice> device;
  bool device_failed = false;
  DeviceBytes positions;  // fire() from host positions: their device copy (grown as needed)
#endif
};

Status Volleys::create(Context& ctx, const CombatConfig& c, std::unique_ptr<Volleys>& out) {
  const auto finite = [](float v) { return std::isfinite(v); };
  const WorldRect& w = c.world;
  if (!finite(w.x0) || !finite(w.y0) || !finite(w.width) || !finite(w.height) || !(w.width > 0) || !(w.height > 0))
    return Status::Invalid("combat: world x0, y0 finite, width and height finite and > 0");
  if (!finite(c.range) || !(c.range > 0)) return Status::Invalid("combat: range must be finite and > 0");
  if (!finite(c.damage) || !(c.damage >= 0)) return Status::Invalid("combat: damage must be finite and >= 0");
  if (c.cooldown_ticks < 0 || c.cooldown_ticks > (1 << 30)) return Status::Invalid("combat: cooldown_ticks 0..2^30");
  // Cells a little wider than the range (combat.h), counted in double before any becomes an int.
  const double m = std::max(1.0, std::ceil(std::max(static_cast<double>(w.width), static_cast<double>(w.height)) /
                                           static_cast<double>(c.range)));
  const float side = static_cast<float>(static_cast<double>(c.range) * (1.0 + (m + 8.0) * 0x1p-20));
  const double cols = std::max(1.0, std::ceil(static_cast<double>(w.width / side)));
  const double rows = std::max(1.0, std::ceil(static_cast<double>(w.height / side)));
  if (!(cols * rows <= 1e8)) return Status::Invalid("combat: more than 10^8 grid cells; the range is too small");
  const CombatVariant v =
      c.variant == CombatVariant::Auto ? (ctx.cuda() ? CombatVariant::Gpu : CombatVariant::Cpu) : c.variant;
  if (v == CombatVariant::Gpu && !ctx.cuda()) return Status::Unavailable("combat: variant gpu needs the CUDA backend");
  std::unique_ptr<Volleys> vol(new Volleys());
  vol->ctx_ = &ctx;
  vol->config_ = c;
  vol->variant_ = v;
  vol->impl_ = std::make_unique<Impl>();
  Impl& im = *vol->impl_;
  im.x0 = w.x0;
  im.y0 = w.y0;
  im.side = side;
  im.cols = static_cast<int>(cols);
  im.rows = static_cast<int>(rows);
  im.range2 = c.range * c.range;
#if WARPMIND_HAVE_CUDA
  if (v == CombatVariant::Gpu) {
    const gpu::CombatGeometry g{im.x0, im.y0, im.side, im.cols, im.rows, im.range2, c.damage, c.cooldown_ticks};
    Status err = gpu::CombatDevice::create(ctx.stream(), g, im.device);
    if (!err.ok()) return err.context("combat");
  }
#endif
  out = std::move(vol);
  return Status::Ok();
}

Volleys::~Volleys() = default;

Status Volleys::reset(std::span<const std::uint8_t> teams, std::span<const float> hp) {
  if (teams.size() != hp.size())
    return Status::Invalid("reset: " + std::to_string(teams.size()) + " teams but " + std::to_string(hp.size()) +
                           " HP values");
  if (teams.size() >= (std::size_t{1} << 31)) return Status::Invalid("reset: at most 2^31 - 1 units");
  for (std::size_t i = 0; i < hp.size(); ++i)
    if (!std::isfinite(hp[i]) || !(hp[i] > 0))
      return Status::Invalid("reset: unit " + std::to_string(i) + ": HP must be finite and > 0");
  Impl& im = *impl_;
#if WARPMIND_HAVE_CUDA
  if (im.device) {
    Status err = im.device->reset(teams.data(), hp.data(), teams.size());
    im.device_failed = !err.ok();
    if (!err.ok()) return err.context("combat");
    n_ = teams.size();
    return Status::Ok();
  }
#endif
  im.team.assign(teams.begin(), teams.end());
  im.hp.assign(hp.begin(), hp.end());
  im.cooldown.assign(teams.size(), 0);
  n_ = teams.size();
  return Status::Ok();
}

Status Volleys::fire(std::span<const Vec2> positions, std::span<std::uint8_t> keep) {
  const std::size_t n = n_;
  if (positions.size() != n || keep.size() != n)
    return Status::Invalid("fire: " + std::to_string(n) + " units but " + std::to_string(positions.size()) +
                           " positions and " + std::to_string(keep.size()) + " flags");
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(positions[i].x) || !std::isfinite(positions[i].y))
      return Status::Invalid("fire: position " + std::to_string(i) + " is not finite");
  Impl& im = *impl_;
#if WARPMIND_HAVE_CUDA
  if (im.device) {
    Status err;
    if (im.positions.size() < n * sizeof(Vec2)) err = im.positions.allocate(*ctx_, n * sizeof(Vec2));
    if (err.ok() && n > 0) err = im.positions.upload(*ctx_, positions.data(), n * sizeof(Vec2));
    if (err.ok()) err = fire_device(static_cast<const Vec2*>(im.positions.get()));
    if (err.ok()) err = im.device->read_keep(keep.data(), n);
    return err;
  }
#endif
  ThreadPool& pool = ctx_->pool();
  const int cols = im.cols, rows = im.rows;
  const std::size_t cells = static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows);
  // The units by cell.
  im.cell.resize(n);
  pool.parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i)
          im.cell[i] = static_cast<std::uint32_t>(cell_axis(positions[i].y, im.y0, im.side, rows)) *
                           static_cast<std::uint32_t>(cols) +
                       static_cast<std::uint32_t>(cell_axis(positions[i].x, im.x0, im.side, cols));
      },
      4096);
  im.by_cell.build(im.cell, cells);
  const std::vector<std::uint32_t>& start = im.by_cell.starts();
  const std::vector<std::uint32_t>& ids = im.by_cell.ids();
  // Targets of the ready weapons.
  im.target.assign(n, kNone);
  pool.parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          if (im.cooldown[i] > 0) continue;
          const int cx = static_cast<int>(im.cell[i] % static_cast<std::uint32_t>(cols)),
                    cy = static_cast<int>(im.cell[i] / static_cast<std::uint32_t>(cols));
          std::uint32_t best = kNone;
          float best_d2 = im.range2;
          for (int y = std::max(0, cy - 1); y <= std::min(rows - 1, cy + 1); ++y) {
            const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(cols);
            for (std::uint32_t k = start[row + std::max(0, cx - 1)], end = start[row + std::min(cols - 1, cx + 1) + 1];
                 k < end; ++k) {
              const std::uint32_t j = ids[k];
              if (im.team[j] == im.team[i]) continue;
              const float d2 = distance2(positions[i].x, positions[i].y, positions[j].x, positions[j].y);
              if (better(d2, j, best_d2, best)) {
                best_d2 = d2;
                best = j;
              }
            }
          }
          im.target[i] = best;
        }
      },
      1024);
  // Cooldowns and shots, then damage, deaths and the survivors in order.
  im.shots.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (im.cooldown[i] > 0) {
      --im.cooldown[i];
    } else if (im.target[i] != kNone) {
      ++im.shots[im.target[i]];
      im.cooldown[i] = config_.cooldown_ticks;
    }
  }
  std::size_t w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float h = im.hp[i];
    if (im.shots[i] > 0) {
      float sum = 0.0f;
      for (std::uint32_t s = 0; s < im.shots[i]; ++s) sum = fadd(sum, config_.damage);
      h = fsub(h, sum);
    }
    keep[i] = h > 0.0f ? 1 : 0;
    if (!keep[i]) continue;
    im.team[w] = im.team[i];
    im.hp[w] = h;
    im.cooldown[w] = im.cooldown[i];
    ++w;
  }
  im.team.resize(w);
  im.hp.resize(w);
  im.cooldown.resize(w);
  n_ = w;
  return Status::Ok();
}

Status Volleys::fire_device(const Vec2* device_positions) {
  if (variant_ != CombatVariant::Gpu) return Status::Invalid("fire_device needs the gpu variant");
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.device_failed) return Status::Internal("combat: the device failed in an earlier volley; reset");
  std::size_t survivors = 0;
  Status err = im.device->fire(reinterpret_cast<const float*>(device_positions), survivors);
  if (!err.ok()) {
    im.device_failed = true;
    return err.context("combat");
  }
  n_ = survivors;
#else
  (void)device_positions;
#endif
  return Status::Ok();
}

Status Volleys::read(std::vector<std::uint8_t>* teams, std::vector<float>* hp,
                     std::vector<std::int32_t>* cooldown) const {
  const Impl& im = *impl_;
#if WARPMIND_HAVE_CUDA
  if (im.device) {
    if (teams) teams->resize(n_);
    if (hp) hp->resize(n_);
    if (cooldown) cooldown->resize(n_);
    Status err = im.device->read(teams ? teams->data() : nullptr, hp ? hp->data() : nullptr,
                                 cooldown ? cooldown->data() : nullptr);
    return err.ok() ? err : err.context("combat");
  }
#endif
  if (teams) *teams = im.team;
  if (hp) *hp = im.hp;
  if (cooldown) *cooldown = im.cooldown;
  return Status::Ok();
}

Status Volleys::read_keep(std::span<std::uint8_t> keep) const {
#if WARPMIND_HAVE_CUDA
  if (impl_->device) return impl_->device->read_keep(keep.data(), keep.size());
#endif
  (void)keep;
  return Status::Invalid("read_keep: the cpu variant hands its flags to fire() directly");
}

const std::uint8_t* Volleys::device_teams() const {
#if WARPMIND_HAVE_CUDA
  if (impl_->device) return impl_->device->teams();
#endif
  return nullptr;
}
const float* Volleys::device_hp() const {
#if WARPMIND_HAVE_CUDA
  if (impl_->device) return impl_->device->hp();
#endif
  return nullptr;
}
const std::uint8_t* Volleys::device_keep() const {
#if WARPMIND_HAVE_CUDA
  if (impl_->device) return impl_->device->keep();
#endif
  return nullptr;
}

}  // namespace warpmind::combat
