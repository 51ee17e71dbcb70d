// CrowdSolver: validation, the multi-threaded CPU reference, and dispatch to gpu/.
#include "core/names.h"
#include "warpmind/crowd/crowd_solver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/bucket_index.h"
#include "core/bytes.h"
#include "crowd_math.h"

#if WARPMIND_HAVE_CUDA
#include "crowd/crowd_device.h"
#endif

namespace warpmind::crowd {

using detail::Geometry;

namespace {

constexpr warpmind::detail::Named<CrowdVariant> kVariants[] = {{CrowdVariant::Auto, "auto"},
                                                               {CrowdVariant::CpuReference, "cpu-reference"},
                                                               {CrowdVariant::GpuSort, "gpu-sort"},
                                                               {CrowdVariant::GpuTiled, "gpu-tiled"},
                                                               {CrowdVariant::GpuStaticGrid, "gpu-static-grid"}};

// Agents by binning cell (core/bucket_index.h: stable by id).
struct CellIndex {
  void build(std::span<const Vec2> pts, const Geometry& g) {
    index.build(pts.size(), static_cast<std::size_t>(g.cells_x) * g.cells_y,
                [&](std::size_t i) { return cell_of(pts[i], g); });
  }
  static std::size_t cell_of(Vec2 p, const Geometry& g) {
    return static_cast<std::size_t>(detail::cell_y(p.y, g)) * g.cells_x + detail::cell_x(p.x, g);
  }
  // Calls f(j) for every agent j binned within `reach` cells of p (reach 1: a superset of those within 2R).
  template <class F>
  void near(Vec2 p, const Geometry& g, F&& f, int reach = 1) const {
    const int cx = detail::cell_x(p.x, g), cy = detail::cell_y(p.y, g);
    for (int y = std::max(0, cy - reach); y <= std::min(g.cells_y - 1, cy + reach); ++y)
      for (int x = std::max(0, cx - reach); x <= std::min(g.cells_x - 1, cx + reach); ++x)
        index.each(static_cast<std::size_t>(y) * g.cells_x + x, f);
  }

 private:
  warpmind::detail::BucketIndex index;
};

std::string where(std::size_t i, Vec2 p) {
  return "agent " + std::to_string(i) + " at (" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

}  // namespace

const char* variant_name(CrowdVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, CrowdVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
}
bool is_gpu_variant(CrowdVariant v) {
  return v == CrowdVariant::GpuSort || v == CrowdVariant::GpuTiled || v == CrowdVariant::GpuStaticGrid;
}

const char* movement_name(CrowdMovement m) { return m == CrowdMovement::Avoid ? "avoid" : "accept-reject"; }
bool parse_movement(std::string_view name, CrowdMovement& out) {
  if (name == "accept-reject")
    out = CrowdMovement::AcceptReject;
  else if (name == "avoid")
    out = CrowdMovement::Avoid;
  else
    return false;
  return true;
}

const char* rule_name(CrowdRule r) { return r == CrowdRule::Strict ? "strict" : "lowest-id"; }
bool parse_rule(std::string_view name, CrowdRule& out) {
  if (name == "strict")
    out = CrowdRule::Strict;
  else if (name == "lowest-id")
    out = CrowdRule::LowestIdWins;
  else
    return false;
  return true;
}

struct CrowdSolver::Impl {
  Geometry g{};
  std::vector<Vec2> positions;  // CPU variant state
  std::vector<Verdict> verdicts;
  std::vector<float> limits;           // every agent's maximum step (0: none), both variants
  float reach = 0;                     // the largest of them
  std::vector<float> radii;            // every agent's radius, both variants
  std::vector<Vec2> chosen;            // Avoid: this tick's targets
  std::vector<std::uint8_t> fallback;  // Avoid: the verdict of an agent with no free candidate (or kCheckAgents)
  CellIndex olds, targets;
  std::vector<std::uint32_t> ids;   // every agent's stable id, increasing with the slot
  std::size_t next_id = 0;          // the id the next spawned agent gets
  std::vector<std::uint8_t> flags;  // retain_device: the flags copied back
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::CrowdDevice> device;
#endif
};

Status CrowdSolver::create(Context& ctx, const CrowdConfig& c, std::unique_ptr<CrowdSolver>& out) {
  const auto finite = [](float v) { return std::isfinite(v); };
  if (!finite(c.world.x0) || !finite(c.world.y0) || !(c.world.width > 0) || !(c.world.height > 0) ||
      !finite(c.world.width) || !finite(c.world.height))
    return Status::Invalid("world: x0, y0 must be finite and width, height finite and > 0");
  if (!(c.radius > 0) || !finite(c.radius) || 2.0f * c.radius >= std::fmin(c.world.width, c.world.height))
    return Status::Invalid("radius: must be > 0 and 2R smaller than the world");
  const ObstacleGrid& o = c.obstacles;
  if (o.width < 0 || o.height < 0 || (o.width == 0) != (o.height == 0) || o.width > 65536 || o.height > 65536 ||
      o.blocked.size() != static_cast<std::size_t>(o.width) * o.height)
    return Status::Invalid("obstacles: need width x height cells (both 0 for none) and as many blocked flags");
  if (c.rule != CrowdRule::Strict && c.rule != CrowdRule::LowestIdWins) return Status::Invalid("rule: not a CrowdRule");
  if (c.movement != CrowdMovement::AcceptReject && c.movement != CrowdMovement::Avoid)
    return Status::Invalid("movement: not a CrowdMovement");
  const bool avoid = c.movement == CrowdMovement::Avoid;
  if (!finite(c.max_step) || c.max_step < 0 || (avoid && !(c.max_step > 0 && c.max_step <= 64 * c.radius)))
    return Status::Invalid(avoid ? "max_step: Avoid needs a finite maximum step > 0 and <= 64 R"
                                 : "max_step: must be finite and >= 0 (0: no limit)");
  if (!(c.min_radius == 0 || (c.min_radius >= c.radius * 0.25f && c.min_radius <= c.radius)))
    return Status::Invalid("min_radius: must be 0 (every agent has `radius`) or in [radius / 4, radius]");
  CrowdVariant v = c.variant;
  if (v != CrowdVariant::Auto && v != CrowdVariant::CpuReference && !is_gpu_variant(v))
    return Status::Invalid("variant: not a CrowdVariant");
  if (v == CrowdVariant::Auto) v = ctx.cuda() ? CrowdVariant::GpuStaticGrid : CrowdVariant::CpuReference;
  if (is_gpu_variant(v) && !ctx.cuda())
    return Status::Unavailable(std::string("variant ") + variant_name(v) + " needs the CUDA backend");
  if (avoid && v != CrowdVariant::CpuReference && v != CrowdVariant::GpuStaticGrid)
    return Status::Unavailable(std::string("variant ") + variant_name(v) +
                               " is an accept/reject baseline: Avoid runs on cpu-reference and gpu-static-grid");

  std::unique_ptr<CrowdSolver> s(new CrowdSolver());
  s->ctx_ = &ctx;
  s->config_ = c;
  s->variant_ = v;
  s->impl_ = std::make_unique<Impl>();
  s->impl_->g = detail::make_geometry(c);
#if WARPMIND_HAVE_CUDA
  if (is_gpu_variant(v)) {
    const Geometry& g = s->impl_->g;
    if (v == CrowdVariant::GpuStaticGrid &&
        static_cast<double>(g.sg_cols) * static_cast<double>(g.sg_rows) > static_cast<double>(1u << 30))
      return Status::Invalid(
          "gpu-static-grid: the world holds more than 2^30 cells of side 2r/sqrt(2) (r: min_radius or "
          "radius)");
    const gpu::CrowdKernel k = v == CrowdVariant::GpuSort    ? gpu::CrowdKernel::Sort
                               : v == CrowdVariant::GpuTiled ? gpu::CrowdKernel::Tiled
                                                             : gpu::CrowdKernel::StaticGrid;
    Status err = gpu::CrowdDevice::create(ctx.stream(), k, g, o.blocked, c.rule == CrowdRule::LowestIdWins, avoid,
                                          c.min_radius > 0, s->impl_->device);
    if (!err.ok()) return err.context("crowd");
  }
#endif
  out = std::move(s);
  return Status::Ok();
}

CrowdSolver::~CrowdSolver() = default;

namespace {

// Every agent's maximum step from a call's max_steps (empty: the config's; 0: the config's) and the
// largest of them; `what` names the call in errors.
Status parse_limits(const CrowdConfig& c, std::span<const float> max_steps, std::size_t n, const char* what,
                    std::vector<float>& limits, float& reach) {
  if (!max_steps.empty() && max_steps.size() != n)
    return Status::Invalid(std::string(what) + ": " + std::to_string(max_steps.size()) + " maximum steps for " +
                           std::to_string(n) + " agents (give none or one each)");
  const bool avoid = c.movement == CrowdMovement::Avoid;
  limits.assign(n, c.max_step);
  reach = c.max_step;
  for (std::size_t i = 0; i < max_steps.size(); ++i) {
    const float m = max_steps[i];
    if (!std::isfinite(m) || m < 0 || (avoid && m > 64 * c.radius))
      return Status::Invalid(std::string(what) + ": maximum step of agent " + std::to_string(i) + " (" +
                             std::to_string(m) + "): must be finite, >= 0" + (avoid ? " and <= 64 R" : ""));
    if (m > 0) limits[i] = m;
    reach = std::max(reach, limits[i]);
  }
  return Status::Ok();
}

// Every agent's radius from a call's radii (empty: R; 0: R), each checked against the config.
Status parse_radii(const CrowdConfig& c, std::span<const float> given, std::size_t n, const char* what,
                   std::vector<float>& radii) {
  if (!given.empty() && given.size() != n)
    return Status::Invalid(std::string(what) + ": " + std::to_string(given.size()) + " radii for " + std::to_string(n) +
                           " agents (give none or one each)");
  radii.assign(n, c.radius);
  const float lo = c.min_radius > 0 ? c.min_radius : c.radius;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const float r = given[i];
    if (r == 0) continue;
    if (!(r >= lo && r <= c.radius))
      return Status::Invalid(std::string(what) + ": radius of agent " + std::to_string(i) + " (" + std::to_string(r) +
                             "): must be 0 (the config's) or in [min_radius, radius]" +
                             (c.min_radius > 0 ? "" : "; this config has no min_radius, so only radius itself"));
    radii[i] = r;
  }
  return Status::Ok();
}

// Checks the agents all[first..]: finite, inside the world, not in a blocked cell, and the sum of the two
// radii from every other agent of `all` (those before `first` are already known to be apart). Agents are
// named by name(i).
template <class Name>
Status check_agents(std::span<const Vec2> all, std::span<const float> radii, std::size_t first, const Geometry& g,
                    const std::uint8_t* grid, const char* what, Name&& name) {
  for (std::size_t i = first; i < all.size(); ++i) {
    const Vec2 p = all[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y))
      return Status::Invalid(std::string(what) + ": " + name(i) + ": not finite");
    if (!detail::inside(p, g)) return Status::Invalid(std::string(what) + ": " + name(i) + ": outside the world");
    if (detail::blocked(p, g, grid)) return Status::Invalid(std::string(what) + ": " + name(i) + ": in a blocked cell");
  }
  if (first == all.size()) return Status::Ok();
  CellIndex index;
  index.build(all, g);
  for (std::size_t i = first; i < all.size(); ++i) {
    std::size_t other = SIZE_MAX;
    index.near(all[i], g, [&](std::uint32_t j) {
      if (j != i && (j < first || j > i) && other == SIZE_MAX && !detail::apart(all[i], all[j], radii[i], radii[j]))
        other = j;
    });
    if (other != SIZE_MAX)
      return Status::Invalid(std::string(what) + ": " + name(i) + " overlaps " + name(other) +
                             " (closer than the sum of their radii)");
  }
  return Status::Ok();
}

}  // namespace

Status CrowdSolver::install(std::span<const Vec2> positions, std::vector<float> limits, float reach,
                            std::vector<float> radii) {
  Impl& im = *impl_;
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    const bool any_limit = config_.movement == CrowdMovement::Avoid || reach > 0;
    Status err = im.device->reset(&positions.data()->x, any_limit ? limits.data() : nullptr,
                                  config_.min_radius > 0 ? radii.data() : nullptr, positions.size(), reach);
    if (!err.ok()) return err;
#endif
  } else {
    im.positions.assign(positions.begin(), positions.end());
  }
  im.limits = std::move(limits);
  im.reach = reach;
  im.radii = std::move(radii);
  im.verdicts.assign(positions.size(), Verdict::Stayed);
  count_ = positions.size();
  stats_ = StepStats{};
  return Status::Ok();
}

Status CrowdSolver::reset(std::span<const Vec2> positions, std::span<const float> max_steps,
                          std::span<const float> radii) {
  if (positions.size() > kMaxAgents) return Status::Invalid("reset: too many agents");
  std::vector<float> limits, sizes;
  float reach = 0;
  WM_RETURN_IF_ERROR(parse_limits(config_, max_steps, positions.size(), "reset", limits, reach));
  WM_RETURN_IF_ERROR(parse_radii(config_, radii, positions.size(), "reset", sizes));
  WM_RETURN_IF_ERROR(check_agents(positions, sizes, 0, impl_->g, config_.obstacles.blocked.data(), "reset",
                                  [&](std::size_t i) { return where(i, positions[i]); }));
  Status err = install(positions, std::move(limits), reach, std::move(sizes));
  if (!err.ok()) return err.context("crowd reset");
  impl_->ids.resize(count_);
  for (std::size_t i = 0; i < count_; ++i) impl_->ids[i] = static_cast<std::uint32_t>(i);
  impl_->next_id = count_;
  return Status::Ok();
}

Status CrowdSolver::spawn(std::span<const Vec2> positions, std::span<const float> max_steps,
                          std::span<std::uint32_t> ids_out, std::span<const float> radii) {
  Impl& im = *impl_;
  const std::size_t k = positions.size(), n = count_;
  if (!ids_out.empty() && ids_out.size() < k) return Status::Invalid("spawn: ids_out holds fewer ids than agents");
  if (k > kMaxAgents - n) return Status::Invalid("spawn: too many agents");
  if (im.next_id + k > kMaxId)
    return Status::Invalid("spawn: the ids are used up (2^32 - 1 given since the last reset(); reset() renumbers)");
  if (k == 0) return Status::Ok();
  std::vector<float> limits, sizes;
  float reach = 0;
  WM_RETURN_IF_ERROR(parse_limits(config_, max_steps, k, "spawn", limits, reach));
  WM_RETURN_IF_ERROR(parse_radii(config_, radii, k, "spawn", sizes));
  sizes.insert(sizes.begin(), im.radii.begin(), im.radii.end());
  std::vector<Vec2> all(n + k);
  WM_RETURN_IF_ERROR(read_positions(std::span<Vec2>(all.data(), n)));
  std::copy(positions.begin(), positions.end(), all.begin() + n);
  WM_RETURN_IF_ERROR(check_agents(all, sizes, n, im.g, config_.obstacles.blocked.data(), "spawn", [&](std::size_t i) {
    return i >= n ? "new " + where(i - n, all[i])
                  : "agent id " + std::to_string(im.ids[i]) + " at (" + std::to_string(all[i].x) + ", " +
                        std::to_string(all[i].y) + ")";
  }));
  limits.insert(limits.begin(), im.limits.begin(), im.limits.end());
  Status err = install(all, std::move(limits), std::max(reach, im.reach), std::move(sizes));
  if (!err.ok()) return err.context("crowd spawn");
  for (std::size_t i = 0; i < k; ++i) {
    im.ids.push_back(static_cast<std::uint32_t>(im.next_id + i));
    if (!ids_out.empty()) ids_out[i] = static_cast<std::uint32_t>(im.next_id + i);
  }
  im.next_id += k;
  return Status::Ok();
}

bool CrowdSolver::find(std::uint32_t id, std::size_t& slot) const {
  const auto& ids = impl_->ids;
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return false;
  slot = static_cast<std::size_t>(it - ids.begin());
  return true;
}

Status CrowdSolver::read_ids(std::span<std::uint32_t> out) const {
  if (out.size() < count_) return Status::Invalid("read_ids: output too small");
  std::copy(impl_->ids.begin(), impl_->ids.end(), out.begin());
  return Status::Ok();
}

Status CrowdSolver::despawn(std::span<const std::uint32_t> ids) {
  std::vector<std::uint8_t> keep(count_, 1);
  for (std::uint32_t id : ids) {
    std::size_t slot = 0;
    if (!find(id, slot)) return Status::Invalid("despawn: no agent with id " + std::to_string(id));
    if (!keep[slot]) return Status::Invalid("despawn: id " + std::to_string(id) + " given twice");
    keep[slot] = 0;
  }
  if (ids.empty()) return Status::Ok();
  return retain(keep);
}

Status CrowdSolver::retain(std::span<const std::uint8_t> keep) {
  if (keep.size() != count_)
    return Status::Invalid("retain: " + std::to_string(keep.size()) + " flags for " + std::to_string(count_) +
                           " agents");
  Impl& im = *impl_;
  std::size_t kept = 0;
  for (std::uint8_t k : keep) kept += k != 0;
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = im.device->retain(keep.data(), count_, kept);
    if (!err.ok()) return err.context("crowd retain");
#endif
  } else {
    std::size_t w = 0;
    for (std::size_t i = 0; i < count_; ++i)
      if (keep[i]) im.positions[w++] = im.positions[i];
    im.positions.resize(w);
  }
  std::size_t w = 0;
  for (std::size_t i = 0; i < count_; ++i)
    if (keep[i]) {
      im.limits[w] = im.limits[i];
      im.radii[w] = im.radii[i];
      im.ids[w++] = im.ids[i];
    }
  im.limits.resize(w);
  im.radii.resize(w);
  im.ids.resize(w);
  im.verdicts.assign(kept, Verdict::Stayed);
  count_ = kept;
  return Status::Ok();
}

Status CrowdSolver::retain_device(const std::uint8_t* device_keep, std::size_t kept) {
  if (!is_gpu_variant(variant_))
    return Status::Invalid(std::string("retain_device needs a GPU variant, this one is ") + variant_name(variant_));
  if (kept > count_) return Status::Invalid("retain_device: more kept than agents");
  if (count_ > 0 && !device_keep) return Status::Invalid("retain_device: null flags");
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  std::vector<std::uint8_t>& flags = im.flags;  // the flags come back: the ids and maximum steps follow them
  flags.resize(count_);
  Status err = im.device->retain_device(device_keep, count_, kept, flags.data());
  if (!err.ok()) return err.context("crowd retain");
  std::size_t w = 0;
  for (std::size_t i = 0; i < count_; ++i)
    if (flags[i]) {
      im.limits[w] = im.limits[i];
      im.radii[w] = im.radii[i];
      im.ids[w++] = im.ids[i];
    }
  im.ids.resize(w);
  im.limits.resize(w);
  im.radii.resize(w);
  im.verdicts.assign(kept, Verdict::Stayed);
#endif
  count_ = kept;
  return Status::Ok();
}

// ---- save and restore -----------------------------------------------------------------------------

namespace {

// The saved form (crowd_solver.h): little-endian, whatever the host.
constexpr char kMagic[8] = {'W', 'M', 'C', 'R', 'O', 'W', 'D', 0};
constexpr std::uint32_t kFormat = 2;  // format 1: no min_radius, no radii (still read)
constexpr std::size_t header_bytes(std::uint32_t format) {
  return 8 + 4 * 4 + (format == 1 ? 6 : 7) * 4 + 2 * 4 + 8 + 8 + 8;
}
constexpr std::size_t agent_bytes(std::uint32_t format) { return 2 * 4 + 4 + (format == 1 ? 0 : 4) + 4; }

using bytes::Reader;
using bytes::Writer;

// What a saved state must match: everything in the config but the variant (a state saved on the GPU
// restores on the CPU and back); format 1 had no min_radius.
void write_config(Writer& w, const CrowdConfig& c, std::uint32_t format = kFormat) {
  w.u32(static_cast<std::uint32_t>(c.movement));
  w.u32(static_cast<std::uint32_t>(c.rule));
  w.u32(static_cast<std::uint32_t>(c.obstacles.width));
  w.u32(static_cast<std::uint32_t>(c.obstacles.height));
  for (float v : {c.world.x0, c.world.y0, c.world.width, c.world.height, c.radius, c.max_step}) w.f32(v);
  if (format != 1) w.f32(c.min_radius);
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the blocked flags as 0/1
  for (std::uint8_t b : c.obstacles.blocked) h = (h ^ (b != 0)) * 0x100000001b3ull;
  w.u64(h);
}

}  // namespace

Status CrowdSolver::save(std::vector<std::uint8_t>& out) const {
  std::vector<Vec2> pos(count_);
  WM_RETURN_IF_ERROR(read_positions(pos));
  std::vector<std::uint8_t> bytes;
  bytes.reserve(header_bytes(kFormat) + count_ * agent_bytes(kFormat));
  Writer w{bytes};
  w.raw(kMagic, sizeof kMagic);
  w.u32(kFormat);
  w.u32(0);  // reserved
  write_config(w, config_);
  w.u64(count_);
  w.u64(impl_->next_id);
  for (const Vec2& p : pos) {
    w.f32(p.x);
    w.f32(p.y);
  }
  for (float m : impl_->limits) w.f32(m);
  for (float r : impl_->radii) w.f32(r);
  for (std::uint32_t id : impl_->ids) w.u32(id);
  out = std::move(bytes);
  return Status::Ok();
}

Status CrowdSolver::restore(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < header_bytes(1) || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Status::Invalid("restore: not a saved crowd (bad header)");
  Reader r{bytes, sizeof kMagic};
  const std::uint32_t format = r.u32();
  if (format != kFormat && format != 1)
    return Status::Invalid("restore: format " + std::to_string(format) + " (this library reads 1 and " +
                           std::to_string(kFormat) + ")");
  if (format == 1 && config_.min_radius != 0)
    return Status::Invalid("restore: format 1 holds no radii; this crowd has a min_radius");
  if (bytes.size() < header_bytes(format)) return Status::Invalid("restore: not a saved crowd (bad header)");
  if (r.u32() != 0) return Status::Invalid("restore: the reserved word is not 0");
  std::vector<std::uint8_t> mine;
  Writer w{mine};
  write_config(w, config_, format);
  if (!r.same(mine))
    return Status::Invalid(
        "restore: saved under another config (world, radius, min_radius, obstacles, rule, movement or max_step)");
  const std::uint64_t n = r.u64(), next = r.u64();
  if (n > kMaxAgents || (bytes.size() - header_bytes(format)) / agent_bytes(format) != n ||
      (bytes.size() - header_bytes(format)) % agent_bytes(format) != 0)
    return Status::Invalid("restore: " + std::to_string(bytes.size()) + " bytes do not hold the " + std::to_string(n) +
                           " agents the header names");
  std::vector<Vec2> pos(n);
  std::vector<float> steps(n), radii(format == 1 ? 0 : n);
  std::vector<std::uint32_t> ids(n);
  for (Vec2& p : pos) p = {r.f32(), r.f32()};
  for (float& m : steps) m = r.f32();
  for (float& x : radii) x = r.f32();
  for (std::uint32_t& id : ids) id = r.u32();
  for (std::size_t i = 0; i < radii.size(); ++i)
    if (radii[i] == 0) return Status::Invalid("restore: agent " + std::to_string(i) + ": radius 0");
  for (std::size_t i = 0; i < n; ++i)
    if ((i > 0 && ids[i] <= ids[i - 1]) || ids[i] >= next || next > kMaxId)
      return Status::Invalid("restore: agent ids must increase and stay below the next id");
  for (std::size_t i = 0; i < n; ++i)
    if (!(steps[i] > 0) && !(steps[i] == 0 && config_.max_step == 0))
      return Status::Invalid("restore: agent " + std::to_string(i) + ": maximum step " + std::to_string(steps[i]));
  std::vector<float> limits, sizes;
  float reach = 0;
  WM_RETURN_IF_ERROR(parse_limits(config_, steps, n, "restore", limits, reach));
  WM_RETURN_IF_ERROR(parse_radii(config_, radii, n, "restore", sizes));
  WM_RETURN_IF_ERROR(check_agents(pos, sizes, 0, impl_->g, config_.obstacles.blocked.data(), "restore",
                                  [&](std::size_t i) { return where(i, pos[i]); }));
  Status err = install(pos, std::move(limits), reach, std::move(sizes));
  if (!err.ok()) return err.context("crowd restore");
  impl_->ids = std::move(ids);
  impl_->next_id = next;
  return Status::Ok();
}

namespace {

StepStats tally(const std::vector<Verdict>& verdicts) {
  std::size_t by[kVerdictCount] = {};
  for (Verdict v : verdicts) ++by[static_cast<int>(v)];
  return {by[0], by[1], by[2], by[3], by[4], by[5]};
}

}  // namespace

Status CrowdSolver::step(std::span<const Vec2> proposals) {
  if (proposals.size() != count_)
    return Status::Invalid("step: " + std::to_string(proposals.size()) + " proposals for " + std::to_string(count_) +
                           " agents");
  Impl& im = *impl_;
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    gpu::CrowdCounts counts{};
    Status err = im.device->step(&proposals.data()->x, proposals.size(), counts);
    if (!err.ok()) return err.context("crowd step");
    stats_ = {counts.by_verdict[0], counts.by_verdict[1], counts.by_verdict[2],
              counts.by_verdict[3], counts.by_verdict[4], counts.by_verdict[5]};
#endif
    return Status::Ok();
  }
  const Geometry& g = im.g;
  const std::uint8_t* grid = config_.obstacles.blocked.data();
  const bool lowest = config_.rule == CrowdRule::LowestIdWins;
  const bool avoid = config_.movement == CrowdMovement::Avoid;
  const std::vector<Vec2>& old = im.positions;
  const std::vector<float>& radii = im.radii;
  im.olds.build(old, g);
  std::span<const Vec2> targets = proposals;
  if (avoid) {
    // Each agent's candidate (crowd_solver.h), against the other agents whose old positions lie within
    // its longest candidate plus the following gap (1.15 x 2R) or its look-ahead plus 2R.
    im.chosen.resize(count_);
    im.fallback.resize(count_);
    const float two_r = 2.0f * config_.radius;
    const float far = std::max(im.reach + two_r * rules::kFollowGap, g.lookahead + two_r) * 1.01f;
    const int reach = static_cast<int>(std::ceil(far / g.cell)) + 1;
    ctx_->pool().parallel_for(
        count_,
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) {
            const Vec2 o = old[i], p = proposals[i];
            Vec2 to = o;
            std::uint8_t fb = rules::kCheckAgents;
            if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
              fb = rules::kOutOfWorld;
            } else if (p.x != o.x || p.y != o.y) {
              rules::Avoider a;
              a.start(o.x, o.y, p.x, p.y, im.limits[i], radii[i], g, grid);
              im.olds.near(
                  o, g,
                  [&](std::uint32_t j) {
                    if (j != i)
                      a.neighbour(old[j].x, old[j].y, proposals[j].x, proposals[j].y, rules::sum2(radii[i], radii[j]));
                  },
                  reach);
              const int k = a.choice();
              if (k >= 0)
                to = {a.cx[k], a.cy[k]};
              else
                fb = a.straight;
            }
            im.chosen[i] = to;
            im.fallback[i] = fb;
          }
        },
        1024);
    targets = im.chosen;
  }
  im.targets.build(targets, g);
  const float* limit = avoid ? nullptr : im.limits.data();
  ctx_->pool().parallel_for(
      count_,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          const Vec2 p = targets[i];
          unsigned char v = avoid && im.fallback[i] != rules::kCheckAgents
                                ? im.fallback[i]
                                : rules::static_verdict(old[i].x, old[i].y, p.x, p.y, limit ? limit[i] : 0.0f, g, grid);
          if (v == rules::kCheckAgents) {
            bool hit = false;
            im.olds.near(
                p, g, [&](std::uint32_t j) { hit = hit || (j != i && !detail::apart(p, old[j], radii[i], radii[j])); });
            if (!hit)
              im.targets.near(p, g, [&](std::uint32_t j) {
                hit = hit || (j != i && (!lowest || j < i) && !detail::apart(p, targets[j], radii[i], radii[j]));
              });
            v = hit ? rules::kCollision : rules::kMoved;
          }
          im.verdicts[i] = static_cast<Verdict>(v);
        }
      },
      2048);
  for (std::size_t i = 0; i < count_; ++i)
    if (im.verdicts[i] == Verdict::Moved) im.positions[i] = targets[i];
  stats_ = tally(im.verdicts);
  return Status::Ok();
}

Status CrowdSolver::step_device(const Vec2* device_proposals) {
  if (!is_gpu_variant(variant_))
    return Status::Invalid(std::string("step_device needs a GPU variant, this one is ") + variant_name(variant_));
#if WARPMIND_HAVE_CUDA
  Status err = impl_->device->step_device(&device_proposals->x, count_);
  if (!err.ok()) return err.context("crowd step");
#else
  (void)device_proposals;
#endif
  return Status::Ok();
}

Status CrowdSolver::fetch_stats() {
  if (!is_gpu_variant(variant_)) return Status::Ok();
#if WARPMIND_HAVE_CUDA
  gpu::CrowdCounts counts{};
  Status err = impl_->device->fetch_counts(counts);
  if (!err.ok()) return err.context("crowd stats");
  stats_ = {counts.by_verdict[0], counts.by_verdict[1], counts.by_verdict[2],
            counts.by_verdict[3], counts.by_verdict[4], counts.by_verdict[5]};
#endif
  return Status::Ok();
}

Status CrowdSolver::read_max_steps(std::span<float> out) const {
  if (out.size() < count_) return Status::Invalid("read_max_steps: output too small");
  std::copy(impl_->limits.begin(), impl_->limits.end(), out.begin());
  return Status::Ok();
}

Status CrowdSolver::read_radii(std::span<float> out) const {
  if (out.size() < count_) return Status::Invalid("read_radii: output too small");
  std::copy(impl_->radii.begin(), impl_->radii.end(), out.begin());
  return Status::Ok();
}

const Vec2* CrowdSolver::device_positions() const {
#if WARPMIND_HAVE_CUDA
  if (is_gpu_variant(variant_)) return reinterpret_cast<const Vec2*>(impl_->device->positions());
#endif
  return nullptr;
}

const Verdict* CrowdSolver::device_verdicts() const {
#if WARPMIND_HAVE_CUDA
  if (is_gpu_variant(variant_)) return reinterpret_cast<const Verdict*>(impl_->device->verdicts());
#endif
  return nullptr;
}

Status CrowdSolver::read_positions(std::span<Vec2> out) const {
  if (out.size() < count_) return Status::Invalid("read_positions: output too small");
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->download_positions(&out.data()->x);
    if (!err.ok()) return err.context("read_positions");
#endif
    return Status::Ok();
  }
  std::copy(impl_->positions.begin(), impl_->positions.end(), out.begin());
  return Status::Ok();
}

Status CrowdSolver::read_verdicts(std::span<Verdict> out) const {
  if (out.size() < count_) return Status::Invalid("read_verdicts: output too small");
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    static_assert(sizeof(Verdict) == 1);
    Status err = impl_->device->download_verdicts(reinterpret_cast<std::uint8_t*>(out.data()));
    if (!err.ok()) return err.context("read_verdicts");
#endif
    return Status::Ok();
  }
  std::copy(impl_->verdicts.begin(), impl_->verdicts.end(), out.begin());
  return Status::Ok();
}

std::size_t count_overlaps(std::span<const Vec2> positions, float radius) {
  const std::vector<float> radii(positions.size(), radius);
  return count_overlaps(positions, radii);
}

std::size_t count_overlaps(std::span<const Vec2> positions, std::span<const float> radii) {
  if (radii.size() != positions.size()) return SIZE_MAX;
  if (positions.empty()) return 0;
  float radius = 0;
  for (float r : radii) {
    if (!(r > 0) || !std::isfinite(r)) return SIZE_MAX;
    radius = std::fmax(radius, r);
  }
  float lo_x = positions[0].x, lo_y = positions[0].y, hi_x = lo_x, hi_y = lo_y;
  for (const Vec2& p : positions) {
    lo_x = std::fmin(lo_x, p.x);
    lo_y = std::fmin(lo_y, p.y);
    hi_x = std::fmax(hi_x, p.x);
    hi_y = std::fmax(hi_y, p.y);
  }
  CrowdConfig c;
  c.world = {lo_x, lo_y, std::fmax(hi_x - lo_x, 4.0f * radius) * 1.001f + 1e-3f,
             std::fmax(hi_y - lo_y, 4.0f * radius) * 1.001f + 1e-3f};
  c.radius = radius;
  const Geometry g = detail::make_geometry(c);
  CellIndex index;
  index.build(positions, g);
  std::size_t n = 0;
  for (std::size_t i = 0; i < positions.size(); ++i)
    index.near(positions[i], g,
               [&](std::uint32_t j) { n += j > i && !detail::apart(positions[i], positions[j], radii[i], radii[j]); });
  return n;
}

}  // namespace warpmind::crowd
