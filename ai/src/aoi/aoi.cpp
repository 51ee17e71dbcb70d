// The AOI tick on the CPU (contract in aoi.h). [SECTION] helpers   [SECTION] creation
// [SECTION] buckets and range queries   [SECTION] the tick's stages on the CPU
// [SECTION] the tick on the device   [SECTION] the tick
#include "core/names.h"
#include "warpmind/aoi/aoi.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <string>

#include "aoi/aoi_rules.h"
#include "core/bucket_index.h"
#include "core/bytes.h"

#if WARPMIND_HAVE_CUDA
#include "aoi/aoi_device.h"
#endif

namespace warpmind::aoi {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr warpmind::detail::Named<AoiVariant> kVariants[] = {
    {AoiVariant::Auto, "auto"},        {AoiVariant::CpuGrid, "cpu-grid"},
    {AoiVariant::CpuFast, "cpu-fast"}, {AoiVariant::GpuSorted, "gpu-sorted"},
    {AoiVariant::GpuFast, "gpu-fast"}, {AoiVariant::GpuSorted, "gpu-seed"}};  // the old name

bool is_gpu(AoiVariant v) { return v == AoiVariant::GpuSorted || v == AoiVariant::GpuFast; }

#if WARPMIND_HAVE_CUDA
// The device records mirror the public ones byte for byte.
static_assert(sizeof(gpu::AoiPlayerRec) == sizeof(Player) && offsetof(Player, hp) == offsetof(gpu::AoiPlayerRec, hp));
static_assert(sizeof(gpu::AoiCommandRec) == sizeof(Command) &&
              offsetof(Command, dx) == offsetof(gpu::AoiCommandRec, dx) &&
              offsetof(Command, target) == offsetof(gpu::AoiCommandRec, target) &&
              offsetof(Command, damage) == offsetof(gpu::AoiCommandRec, damage));
static_assert(sizeof(gpu::AoiUpdateRec) == sizeof(Update) &&
              offsetof(Update, value) == offsetof(gpu::AoiUpdateRec, value));
static_assert(sizeof(gpu::AoiNotificationRec) == sizeof(Notification) &&
              offsetof(Notification, value) == offsetof(gpu::AoiNotificationRec, value));
static_assert(sizeof(gpu::AoiPairRec) == sizeof(VisibilityEvent));
static_assert(sizeof(gpu::AoiMailboxRec) == sizeof(MailboxEntry) &&
              offsetof(MailboxEntry, value) == offsetof(gpu::AoiMailboxRec, value));
#endif

constexpr const char* kReasons[kRejectReasons] = {"unknown player", "unknown command", "bad move",
                                                  "unknown target", "self attack",     "target out of range",
                                                  "bad damage"};

std::uint32_t float_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The arithmetic shared with the kernels (ai/src/aoi/aoi_rules.h).
using rules::distance2;

}  // namespace

// ---- [SECTION] helpers ---------------------------------------------------------------------------

const char* variant_name(AoiVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, AoiVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
}
const char* shape_name(AoiShape s) { return s == AoiShape::Square ? "square" : "circle"; }
bool parse_shape(std::string_view name, AoiShape& out) {
  if (name == "square")
    out = AoiShape::Square;
  else if (name == "circle")
    out = AoiShape::Circle;
  else
    return false;
  return true;
}
const char* reason_name(RejectReason r) {
  const int i = static_cast<int>(r);
  return i >= 0 && i < kRejectReasons ? kReasons[i] : "?";
}
float value_as_float(std::uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
std::int32_t value_as_int(std::uint32_t bits) { return static_cast<std::int32_t>(bits); }

struct AoiWorld::Impl {
  // Geometry: buckets of side `side` from the world's corner, cols x rows of them (see bucket_side).
  float x1 = 0, y1 = 0, aoi2 = 0, side = 0;
  int cols = 1, rows = 1;
  // Merged offsets per player (reused every tick).
  std::vector<float> dx, dy;
  std::vector<std::int64_t> damage;
  std::vector<std::uint8_t> moved, hit;
  std::vector<std::uint32_t> touched;       // players with an update, ascending
  std::vector<std::uint32_t> first_update;  // index of each player's first update (valid when touched)
  std::vector<std::uint8_t> update_count;   // updates per player (0..3)
  // Buckets: each player's bucket, and the players by bucket.
  std::vector<std::uint32_t> bucket_of;
  warpmind::detail::BucketIndex buckets;          // cpu-fast: the players by bucket (ids ascending in a bucket)
  std::vector<std::vector<std::uint32_t>> lists;  // cpu-grid: the thesis's bucket lists
  // Receiver-centric enumeration (cpu-fast): per-receiver counts and offsets, per-worker scratch.
  std::vector<std::uint64_t> counts, vis_counts;
  std::vector<Notification> all_notes;  // cpu-grid: the whole sorted list
  // A chunk on its way to a sink (reused).
  std::vector<Notification> chunk_notes;
  std::vector<MailboxEntry> chunk_boxes;
  std::vector<std::uint64_t> chunk_starts;
  std::vector<std::vector<std::uint32_t>> scratch;
  std::vector<VisibilityEvent> vis_prev, vis_cur;
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::AoiDevice> device;
  bool device_failed = false;  // a device error mid-tick: ticks refused until a reset succeeds
#endif

  int bucket_x(float x, const WorldRect& w) const { return rules::bucket_axis(x, w.x0, side, cols); }
  int bucket_y(float y, const WorldRect& w) const { return rules::bucket_axis(y, w.y0, side, rows); }
};

namespace {

// The bucket side. Square: the AOI itself — the buckets are the definition of the square AOI. Circle:
// the buckets only gather candidates for the distance test, so every pair within the radius must fall
// in the same or adjacent buckets. With side = aoi, rounding in floor((x - x0) / aoi) can put two
// players a hair under aoi apart two buckets apart (x0 = -767.651062, aoi = 19.091898: x = -137.618454
// and -118.526566 land in buckets 32 and 34) and the pair would be missed. Each bucket index is off by
// at most about m * 2^-23 (m buckets per axis) and the float distance test admits separations up to
// aoi * (1 + 2^-22), so a side of aoi * (1 + (m + 8) * 2^-20) keeps every such pair within one bucket,
// with a margin of four.
float bucket_side(const AoiConfig& c) {
  if (c.shape == AoiShape::Square) return c.aoi;
  const double m =
      std::max(1.0, std::ceil(std::max(static_cast<double>(c.world.width), static_cast<double>(c.world.height)) /
                              static_cast<double>(c.aoi)));
  return static_cast<float>(static_cast<double>(c.aoi) * (1.0 + (m + 8.0) * 0x1p-20));
}

}  // namespace

// ---- [SECTION] creation --------------------------------------------------------------------------

Status AoiWorld::create(Context& ctx, const AoiConfig& c, std::unique_ptr<AoiWorld>& out) {
  const auto finite = [](float v) { return std::isfinite(v); };
  if (!finite(c.world.x0) || !finite(c.world.y0) || !(c.world.width > 0) || !(c.world.height > 0) ||
      !finite(c.world.width) || !finite(c.world.height) || !finite(c.world.x0 + c.world.width) ||
      !finite(c.world.y0 + c.world.height))
    return Status::Invalid(
        "world: x0, y0 must be finite, width, height finite and > 0, and x0 + width, y0 + height finite");
  if (!(c.aoi > 0) || !finite(c.aoi)) return Status::Invalid("aoi: must be finite and > 0");
  // Buckets of side aoi, counted as the contract does (float quotients) before any count becomes an int;
  // the circle's buckets are a little wider (bucket_side), so never more.
  const auto buckets = [&](float side) {
    return std::max(1.0, std::ceil(static_cast<double>(c.world.width / side))) *
           std::max(1.0, std::ceil(static_cast<double>(c.world.height / side)));
  };
  if (!(buckets(c.aoi) <= 1e8)) return Status::Invalid("aoi: more than 10^8 buckets; choose a larger AOI");
  const float side = bucket_side(c);
  if (!(c.max_move >= 0) || !finite(c.max_move) || !(c.attack_range >= 0) || !finite(c.attack_range))
    return Status::Invalid("max_move and attack_range: finite and >= 0");
  if (c.chunk_notifications < 1) return Status::Invalid("chunk_notifications: must be >= 1");
  AoiVariant v = c.variant == AoiVariant::Auto ? (ctx.cuda() ? AoiVariant::GpuFast : AoiVariant::CpuFast) : c.variant;
  if (is_gpu(v) && !ctx.cuda())
    return Status::Unavailable(std::string("variant ") + variant_name(v) + " needs the CUDA backend");
  std::unique_ptr<AoiWorld> w(new AoiWorld());
  w->ctx_ = &ctx;
  w->config_ = c;
  w->variant_ = v;
  w->impl_ = std::make_unique<Impl>();
  Impl& im = *w->impl_;
  im.x1 = c.world.x0 + c.world.width;
  im.y1 = c.world.y0 + c.world.height;
  im.aoi2 = c.aoi * c.aoi;
  im.side = side;
  im.cols = std::max(1, static_cast<int>(std::ceil(c.world.width / side)));
  im.rows = std::max(1, static_cast<int>(std::ceil(c.world.height / side)));
  im.scratch.resize(ctx.pool().size());
#if WARPMIND_HAVE_CUDA
  if (is_gpu(v)) {
    const gpu::AoiGeometry g{c.world.x0,
                             c.world.y0,
                             std::nextafter(im.x1, c.world.x0),
                             std::nextafter(im.y1, c.world.y0),
                             im.side,
                             im.aoi2,
                             c.max_move,
                             c.attack_range * c.attack_range,
                             im.cols,
                             im.rows,
                             c.shape == AoiShape::Circle,
                             c.track_visibility,
                             c.format == NotificationFormat::Mailboxes};
    Status err = gpu::AoiDevice::create(
        ctx.stream(), v == AoiVariant::GpuSorted ? gpu::AoiKernel::Sorted : gpu::AoiKernel::Fast, g, im.device);
    if (err.ok()) err = im.device->reset(nullptr, 0);  // a tick before reset() works as on the CPU
    if (!err.ok()) return err.context("aoi");
  }
#endif
  out = std::move(w);
  return Status::Ok();
}

AoiWorld::~AoiWorld() = default;

// ---- [SECTION] buckets and range queries ---------------------------------------------------------

namespace {

// Calls fn(s) for every player s in r's AOI (r included), candidates from the 3 x 3 buckets around r.
template <class Buckets, class Fn>
void for_each_in_aoi(const AoiWorld::Impl& im, const AoiConfig& c, const std::vector<Player>& p, std::uint32_t r,
                     const Buckets& bucket, Fn&& fn) {
  const int bx = static_cast<int>(im.bucket_of[r] % static_cast<std::uint32_t>(im.cols));
  const int by = static_cast<int>(im.bucket_of[r] / static_cast<std::uint32_t>(im.cols));
  for (int y = std::max(0, by - 1); y <= std::min(im.rows - 1, by + 1); ++y)
    for (int x = std::max(0, bx - 1); x <= std::min(im.cols - 1, bx + 1); ++x)
      bucket(static_cast<std::size_t>(y) * im.cols + x, [&](std::uint32_t s) {
        if (c.shape == AoiShape::Square || distance2(p[r].x, p[r].y, p[s].x, p[s].y) <= im.aoi2) fn(s);
      });
}

}  // namespace

// ---- [SECTION] the tick's stages on the CPU ------------------------------------------------------

namespace {

// One tick on the CPU (cpu-fast when `fast`, else cpu-grid), stage by stage in the order run_tick calls
// them: the commands checked and merged, the merged offsets applied, the players bucketed, the
// notifications counted and written (to `out` or to a sink), the visibility compared.
struct CpuTick {
  AoiWorld::Impl& im;
  const AoiConfig& c;
  std::vector<Player>& p;
  ThreadPool& pool;
  const bool fast;
  TickResult& out;

  // fn(s) for every player s in r's AOI (r included): candidates from the sorted buckets (cpu-fast) or
  // from the bucket lists (cpu-grid).
  template <class Fn>
  void in_aoi_sorted(std::uint32_t r, Fn&& fn) const {
    const auto sorted_bucket = [&](std::size_t b, auto&& f) { im.buckets.each(b, f); };
    for_each_in_aoi(im, c, p, r, sorted_bucket, fn);
  }
  template <class Fn>
  void in_aoi_listed(std::uint32_t r, Fn&& fn) const {
    const auto list_bucket = [&](std::size_t b, auto&& f) {
      for (std::uint32_t s : im.lists[b]) f(s);
    };
    for_each_in_aoi(im, c, p, r, list_bucket, fn);
  }

  // Logic and conflict merge: each command checked (a rejected one counted by its reason), the accepted
  // ones' offsets summed per (player, field) in command order.
  void merge(std::span<const Command> commands) {
    const std::size_t n = p.size();
    const float range2 = c.attack_range * c.attack_range;
    for (const Command& cmd : commands) {
      RejectReason why{};
      bool ok = cmd.player < n;
      if (!ok)
        why = RejectReason::UnknownPlayer;
      else if (cmd.type == CommandType::Move) {
        ok = std::isfinite(cmd.dx) && std::isfinite(cmd.dy) && std::fabs(cmd.dx) <= c.max_move &&
             std::fabs(cmd.dy) <= c.max_move;
        if (!ok) why = RejectReason::BadMove;
      } else if (cmd.type == CommandType::Attack) {
        if (cmd.target >= n)
          ok = false, why = RejectReason::UnknownTarget;
        else if (cmd.target == cmd.player)
          ok = false, why = RejectReason::SelfAttack;
        else if (cmd.damage < 0)
          ok = false, why = RejectReason::BadDamage;
        else if (!(distance2(p[cmd.player].x, p[cmd.player].y, p[cmd.target].x, p[cmd.target].y) <= range2))
          ok = false, why = RejectReason::TargetOutOfRange;
      } else if (cmd.type == CommandType::Heal) {
        if (cmd.damage < 0) ok = false, why = RejectReason::BadDamage;
      } else {
        ok = false;
        why = RejectReason::UnknownType;
      }
      if (!ok) {
        ++out.rejected[static_cast<int>(why)];
        continue;
      }
      ++out.accepted;
      if (cmd.type == CommandType::Move) {
        im.dx[cmd.player] += cmd.dx;
        im.dy[cmd.player] += cmd.dy;
        im.moved[cmd.player] = 1;
      } else if (cmd.type == CommandType::Attack) {
        im.damage[cmd.target] += cmd.damage;
        im.hit[cmd.target] = 1;
      } else {  // Heal: a negative damage of its own player
        im.damage[cmd.player] -= cmd.damage;
        im.hit[cmd.player] = 1;
      }
    }
  }

  // Apply, in player order: the updates come out sorted by (player, field).
  void apply() {
    const std::size_t n = p.size();
    const WorldRect& w = c.world;
    out.updates.clear();
    const float x_last = std::nextafter(im.x1, w.x0), y_last = std::nextafter(im.y1, w.y0);
    for (std::uint32_t i = 0; i < n; ++i) {
      im.update_count[i] = 0;
      if (!im.moved[i] && !im.hit[i]) continue;
      im.first_update[i] = static_cast<std::uint32_t>(out.updates.size());
      if (im.moved[i]) {
        p[i].x = rules::moved(p[i].x, im.dx[i], w.x0, x_last);
        p[i].y = rules::moved(p[i].y, im.dy[i], w.y0, y_last);
        out.updates.push_back({i, Field::X, float_bits(p[i].x)});
        out.updates.push_back({i, Field::Y, float_bits(p[i].y)});
        im.dx[i] = im.dy[i] = 0.0f;
        im.moved[i] = 0;
      }
      if (im.hit[i]) {
        p[i].hp = rules::hp_after(p[i].hp, im.damage[i]);
        out.updates.push_back({i, Field::Hp, static_cast<std::uint32_t>(p[i].hp)});
        im.damage[i] = 0;
        im.hit[i] = 0;
      }
      im.update_count[i] = static_cast<std::uint8_t>(out.updates.size() - im.first_update[i]);
    }
  }

  // Buckets on the new positions: each player's bucket, then the players by bucket.
  void bucket() {
    const std::size_t n = p.size();
    const WorldRect& w = c.world;
    const std::size_t nb = static_cast<std::size_t>(im.cols) * im.rows;
    im.bucket_of.resize(n);
    const auto place = [&](std::size_t b, std::size_t e, unsigned) {
      for (std::size_t i = b; i < e; ++i)
        im.bucket_of[i] = static_cast<std::uint32_t>(im.bucket_y(p[i].y, w)) * im.cols +
                          static_cast<std::uint32_t>(im.bucket_x(p[i].x, w));
    };
    if (fast) {
      pool.parallel_for(n, place, 4096);
      im.buckets.build(im.bucket_of, nb);
    } else {
      place(0, n, 0);
      im.lists.resize(nb);
      for (auto& l : im.lists) l.clear();
      for (std::uint32_t i = 0; i < n; ++i) im.lists[im.bucket_of[i]].push_back(i);
    }
  }

  // The players with updates in receiver r's AOI, ascending (cpu-fast).
  void gather(std::uint32_t r, std::vector<std::uint32_t>& subjects) const {
    subjects.clear();
    in_aoi_sorted(r, [&](std::uint32_t s) {
      if (im.update_count[s]) subjects.push_back(s);
    });
    std::sort(subjects.begin(), subjects.end());
  }

  // Range query, first half: each receiver's notifications counted, as offsets in im.counts (n + 1 of
  // them); cpu-grid builds its whole sorted list here.
  void count_notifications() {
    const std::size_t n = p.size();
    std::vector<std::uint64_t>& off = im.counts;
    off.assign(n + 1, 0);
    if (fast) {
      // Receiver-centric, two phases: count per receiver, prefix sum, store. Subjects of a receiver are
      // gathered from its 9 buckets and sorted (a handful), so the output is ordered without a global sort.
      pool.parallel_for(
          n,
          [&](std::size_t b, std::size_t e, unsigned worker) {
            std::vector<std::uint32_t>& subjects = im.scratch[worker];
            for (std::size_t r = b; r < e; ++r) {
              gather(static_cast<std::uint32_t>(r), subjects);
              std::uint64_t k = 0;
              for (std::uint32_t s : subjects) k += im.update_count[s];
              off[r + 1] = k;
            }
          },
          1024);
    } else {
      // The thesis's CPU server: for every update, every player in its subject's AOI; then the sort the
      // output order needs.
      im.all_notes.clear();
      for (const Update& u : out.updates)
        in_aoi_listed(u.player, [&](std::uint32_t r) { im.all_notes.push_back({r, u.player, u.field, u.value}); });
      std::sort(im.all_notes.begin(), im.all_notes.end(), [](const Notification& a, const Notification& b) {
        return a.receiver != b.receiver ? a.receiver < b.receiver
                                        : (a.subject != b.subject ? a.subject < b.subject : a.field < b.field);
      });
      for (const Notification& q : im.all_notes) ++off[q.receiver + 1];
    }
    for (std::size_t r = 0; r < n; ++r) off[r + 1] += off[r];
  }

  // Range query, second half: the notifications of receivers [r0, r1) written to `records`, or as mailbox
  // entries to `boxes` when `records` is null, from the array's start.
  void write(std::size_t r0, std::size_t r1, Notification* records, MailboxEntry* boxes) {
    const std::vector<std::uint64_t>& off = im.counts;
    const auto put = [&](std::uint64_t at, const Notification& q) {
      if (records)
        records[at] = q;
      else
        boxes[at] = {q.subject | static_cast<std::uint32_t>(q.field) << 30, q.value};
    };
    if (!fast) {
      for (std::uint64_t k = off[r0]; k < off[r1]; ++k) put(k - off[r0], im.all_notes[k]);
      return;
    }
    pool.parallel_for(
        r1 - r0,
        [&](std::size_t b, std::size_t e, unsigned worker) {
          std::vector<std::uint32_t>& subjects = im.scratch[worker];
          for (std::size_t r = r0 + b; r < r0 + e; ++r) {
            gather(static_cast<std::uint32_t>(r), subjects);
            std::uint64_t at = off[r] - off[r0];
            for (std::uint32_t s : subjects)
              for (std::uint32_t u = im.first_update[s]; u < im.first_update[s] + im.update_count[s]; ++u)
                put(at++, {static_cast<std::uint32_t>(r), s, out.updates[u].field, out.updates[u].value});
          }
        },
        1024);
  }

  // The notifications into `out` when no sink takes them: as mailboxes, or as the list.
  void store_notifications(bool boxes) {
    const std::vector<std::uint64_t>& off = im.counts;
    const std::size_t n = p.size();
    if (boxes) {
      out.mailbox_start.assign(off.begin(), off.end());
      out.mailbox.resize(off[n]);
      write(0, n, nullptr, out.mailbox.data());
    } else if (!fast) {  // cpu-grid's sorted list is the result: handed over, not copied
      out.notifications.swap(im.all_notes);
    } else {
      out.notifications.resize(off[n]);
      write(0, n, out.notifications.data(), nullptr);
    }
  }

  // Visibility and its changes: the pairs (receiver, other) in each other's AOI now, sorted, and those
  // that entered or left it since the last tick.
  void visibility() {
    const std::size_t n = p.size();
    out.entered.clear();
    out.left.clear();
    if (!c.track_visibility) return;
    im.vis_cur.clear();
    if (fast) {
      const auto gather_others = [&](std::uint32_t r, std::vector<std::uint32_t>& others) {
        others.clear();
        in_aoi_sorted(r, [&](std::uint32_t s) {
          if (s != r) others.push_back(s);
        });
        std::sort(others.begin(), others.end());
      };
      im.vis_counts.assign(n + 1, 0);
      pool.parallel_for(
          n,
          [&](std::size_t b, std::size_t e, unsigned worker) {
            for (std::size_t r = b; r < e; ++r) {
              gather_others(static_cast<std::uint32_t>(r), im.scratch[worker]);
              im.vis_counts[r + 1] = im.scratch[worker].size();
            }
          },
          1024);
      for (std::size_t r = 0; r < n; ++r) im.vis_counts[r + 1] += im.vis_counts[r];
      im.vis_cur.resize(im.vis_counts[n]);
      pool.parallel_for(
          n,
          [&](std::size_t b, std::size_t e, unsigned worker) {
            for (std::size_t r = b; r < e; ++r) {
              gather_others(static_cast<std::uint32_t>(r), im.scratch[worker]);
              VisibilityEvent* o = im.vis_cur.data() + im.vis_counts[r];
              for (std::uint32_t s : im.scratch[worker]) *o++ = {static_cast<std::uint32_t>(r), s};
            }
          },
          1024);
    } else {
      std::vector<std::uint32_t>& others = im.scratch[0];
      for (std::uint32_t r = 0; r < n; ++r) {
        others.clear();
        in_aoi_listed(r, [&](std::uint32_t s) {
          if (s != r) others.push_back(s);
        });
        std::sort(others.begin(), others.end());
        for (std::uint32_t s : others) im.vis_cur.push_back({r, s});
      }
    }
    const auto less = [](const VisibilityEvent& a, const VisibilityEvent& b) {
      return a.receiver != b.receiver ? a.receiver < b.receiver : a.other < b.other;
    };
    std::set_difference(im.vis_cur.begin(), im.vis_cur.end(), im.vis_prev.begin(), im.vis_prev.end(),
                        std::back_inserter(out.entered), less);
    std::set_difference(im.vis_prev.begin(), im.vis_prev.end(), im.vis_cur.begin(), im.vis_cur.end(),
                        std::back_inserter(out.left), less);
    std::swap(im.vis_prev, im.vis_cur);
  }

  // Delivery to a sink, chunk by chunk; the writes count in ms_query, the sink's time in nothing.
  void deliver(const NotificationSink& sink, bool boxes) {
    std::vector<std::uint64_t>& off = im.counts;
    const std::size_t n = p.size();
    rules::for_each_chunk(off.data(), n, c.chunk_notifications, [&](std::size_t r0, std::size_t r1) {
      const auto t_write = Clock::now();
      const std::uint64_t count = off[r1] - off[r0];
      NotificationChunk chunk;
      chunk.first_receiver = static_cast<std::uint32_t>(r0);
      chunk.end_receiver = static_cast<std::uint32_t>(r1);
      chunk.first_notification = off[r0];
      if (boxes) {
        im.chunk_boxes.resize(count);
        im.chunk_starts.resize(r1 - r0 + 1);
        for (std::size_t r = r0; r <= r1; ++r) im.chunk_starts[r - r0] = off[r] - off[r0];
        write(r0, r1, nullptr, im.chunk_boxes.data());
        chunk.mailbox_start = im.chunk_starts;
        chunk.mailbox = im.chunk_boxes;
      } else if (!fast) {  // cpu-grid holds the whole list: a slice of it
        chunk.notifications = std::span<const Notification>(im.all_notes).subspan(off[r0], count);
      } else {
        im.chunk_notes.resize(count);
        write(r0, r1, im.chunk_notes.data(), nullptr);
        chunk.notifications = im.chunk_notes;
      }
      out.ms_query += ms_since(t_write);
      sink(chunk);
    });
  }
};

}  // namespace
// ---- [SECTION] the tick on the device ------------------------------------------------------------

#if WARPMIND_HAVE_CUDA
namespace {

// Where the device's chunks go: the sink, or the TickResult's vectors at their offsets.
struct DeviceDelivery {
  const NotificationSink* sink;
  TickResult* out;
  bool boxes;
};

void deliver_chunk(const DeviceDelivery& d, const gpu::AoiChunk& c) {
  const std::size_t receivers = c.end_receiver - c.first_receiver;
  if (d.sink) {
    NotificationChunk v;
    v.first_receiver = c.first_receiver;
    v.end_receiver = c.end_receiver;
    v.first_notification = c.first_notification;
    if (d.boxes) {
      v.mailbox_start = {c.mailbox_start, receivers + 1};
      v.mailbox = {reinterpret_cast<const MailboxEntry*>(c.mailbox), c.count};
    } else {
      v.notifications = {reinterpret_cast<const Notification*>(c.notes), c.count};
    }
    (*d.sink)(v);
    return;
  }
  TickResult& o = *d.out;
  if (d.boxes) {
    if (c.count)
      std::memcpy(static_cast<void*>(o.mailbox.data() + c.first_notification), c.mailbox,
                  c.count * sizeof(MailboxEntry));
    for (std::size_t r = 0; r <= receivers; ++r)
      o.mailbox_start[c.first_receiver + r] = c.first_notification + c.mailbox_start[r];
  } else if (c.count) {
    std::memcpy(static_cast<void*>(o.notifications.data() + c.first_notification), c.notes,
                c.count * sizeof(Notification));
  }
}

Status tick_device(AoiWorld::Impl& im, const AoiConfig& cfg, std::span<const Command> commands,
                   std::vector<Player>& players, TickResult& out, const NotificationSink* sink) {
  if (im.device_failed) return Status::Internal("aoi: the device failed in an earlier tick; reset the world");
  gpu::AoiTickCounts k;
  double ms_write = 0, ms_chunks = 0;
  Status err = im.device->tick(reinterpret_cast<const gpu::AoiCommandRec*>(commands.data()), commands.size(), k);
  if (err.ok()) {
    for (int r = 0; r < kRejectReasons; ++r) out.rejected[r] = k.rejected[r];
    out.accepted = k.accepted;
    out.notification_count = k.notifications;
    out.updates.resize(k.updates);
    out.entered.resize(k.entered);
    out.left.resize(k.left);
    gpu::AoiHostOutputs o;
    o.updates = reinterpret_cast<gpu::AoiUpdateRec*>(out.updates.data());
    o.entered = reinterpret_cast<gpu::AoiPairRec*>(out.entered.data());
    o.left = reinterpret_cast<gpu::AoiPairRec*>(out.left.data());
    o.players = reinterpret_cast<gpu::AoiPlayerRec*>(players.data());
    err = im.device->download(o, out.ms_download);
  }
  if (err.ok()) {
    const bool boxes = cfg.format == NotificationFormat::Mailboxes;
    const bool store = sink == nullptr;
    out.notifications.resize(store && !boxes ? k.notifications : 0);
    out.mailbox_start.resize(store && boxes ? players.size() + 1 : 0);
    out.mailbox.resize(store && boxes ? k.notifications : 0);
    if (store && boxes) out.mailbox_start[0] = 0;
    const DeviceDelivery d{sink, &out, boxes};
    err = im.device->deliver(
        cfg.chunk_notifications, [p = &d](const gpu::AoiChunk& c) { deliver_chunk(*p, c); }, ms_write, ms_chunks);
  }
  if (!err.ok()) {
    im.device_failed = true;
    return err.context("aoi");
  }
  out.ms_upload = k.ms_upload;
  out.ms_logic = k.ms_logic;
  out.ms_sort = k.ms_sort;
  out.ms_query = k.ms_query + ms_write;
  out.ms_visibility = k.ms_visibility;
  out.ms_download += ms_chunks;
  return Status::Ok();
}

}  // namespace
#endif

// ---- [SECTION] the tick --------------------------------------------------------------------------

Status AoiWorld::reset(std::span<const Player> players) {
  if (players.size() >= (std::size_t{1} << 31)) return Status::Invalid("reset: too many players");
  if (config_.format == NotificationFormat::Mailboxes && players.size() >= (std::size_t{1} << 30))
    return Status::Invalid("reset: mailboxes hold fewer than 2^30 players");
  Impl& im = *impl_;
  const WorldRect& w = config_.world;
  for (std::size_t i = 0; i < players.size(); ++i) {
    const Player& p = players[i];
    const std::string who = "reset: player " + std::to_string(i);
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return Status::Invalid(who + ": position not finite");
    if (!(p.x >= w.x0 && p.x < im.x1 && p.y >= w.y0 && p.y < im.y1))
      return Status::Invalid(who + ": outside the world");
    if (p.hp < 0) return Status::Invalid(who + ": negative HP");
  }
#if WARPMIND_HAVE_CUDA
  if (im.device) {
    Status err = im.device->reset(reinterpret_cast<const gpu::AoiPlayerRec*>(players.data()), players.size());
    im.device_failed = !err.ok();
    if (!err.ok()) return err.context("aoi");
    players_.assign(players.begin(), players.end());
    return Status::Ok();
  }
#endif
  players_.assign(players.begin(), players.end());
  const std::size_t n = players_.size();
  im.dx.assign(n, 0.0f);
  im.dy.assign(n, 0.0f);
  im.damage.assign(n, 0);
  im.moved.assign(n, 0);
  im.hit.assign(n, 0);
  im.first_update.assign(n, 0);
  im.update_count.assign(n, 0);
  im.vis_prev.clear();
  if (config_.track_visibility) {
    TickResult none;
    Status st = tick({}, none);  // the visibility at reset: what the first tick's events compare with
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

// ---- save and restore -----------------------------------------------------------------------------

namespace {

// The saved form (aoi.h): little-endian, whatever the host.
constexpr char kMagic[8] = {'W', 'M', 'A', 'O', 'I', 0, 0, 0};
constexpr std::uint32_t kFormat = 1;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 3 * 4 + 7 * 4 + 8;
constexpr std::size_t kPlayerBytes = 12;

// What a saved state must match: the config but its variant and chunk size (neither changes a result).
void write_config(bytes::Writer& w, const AoiConfig& c) {
  w.u32(static_cast<std::uint32_t>(c.shape));
  w.u32(c.track_visibility ? 1 : 0);
  w.u32(static_cast<std::uint32_t>(c.format));
  for (float v : {c.world.x0, c.world.y0, c.world.width, c.world.height, c.aoi, c.max_move, c.attack_range}) w.f32(v);
}

}  // namespace

Status AoiWorld::save(std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t> b;
  b.reserve(kHeaderBytes + players_.size() * kPlayerBytes);
  bytes::Writer w{b};
  w.raw(kMagic, sizeof kMagic);
  w.u32(kFormat);
  w.u32(0);  // reserved
  write_config(w, config_);
  w.u64(players_.size());
  for (const Player& p : players_) {
    w.f32(p.x);
    w.f32(p.y);
    w.u32(static_cast<std::uint32_t>(p.hp));
  }
  out = std::move(b);
  return Status::Ok();
}

Status AoiWorld::restore(std::span<const std::uint8_t> in) {
  if (in.size() < kHeaderBytes || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0)
    return Status::Invalid("restore: not a saved AOI world (bad header)");
  bytes::Reader r{in, sizeof kMagic};
  if (const std::uint32_t f = r.u32(); f != kFormat)
    return Status::Invalid("restore: format " + std::to_string(f) + " (this library reads " + std::to_string(kFormat) +
                           ")");
  if (r.u32() != 0) return Status::Invalid("restore: the reserved word is not 0");
  std::vector<std::uint8_t> mine;
  bytes::Writer w{mine};
  write_config(w, config_);
  if (!r.same(mine))
    return Status::Invalid(
        "restore: saved under another config (world, aoi, shape, max_move, attack_range, track_visibility or "
        "format)");
  const std::uint64_t n = r.u64();
  if (n > (in.size() - kHeaderBytes) / kPlayerBytes || in.size() != kHeaderBytes + n * kPlayerBytes)
    return Status::Invalid("restore: " + std::to_string(in.size()) + " bytes do not hold the " + std::to_string(n) +
                           " players the header names");
  std::vector<Player> players(n);
  for (Player& p : players) {
    p.x = r.f32();
    p.y = r.f32();
    p.hp = static_cast<std::int32_t>(r.u32());
  }
  const Status st = reset(players);
  if (!st.ok() && st.code() == StatusCode::InvalidArgument && st.message().rfind("reset: ", 0) == 0)
    return Status::Invalid("restore: " + st.message().substr(7));
  return st;
}

Status AoiWorld::tick(std::span<const Command> commands, TickResult& out) { return run_tick(commands, out, nullptr); }

Status AoiWorld::tick(std::span<const Command> commands, TickResult& out, const NotificationSink& sink) {
  if (!sink) return Status::Invalid("tick: the sink is empty");
  return run_tick(commands, out, &sink);
}

Status AoiWorld::run_tick(std::span<const Command> commands, TickResult& out, const NotificationSink* sink) {
  Impl& im = *impl_;
  const AoiConfig& c = config_;
  out.rejected.fill(0);
  out.accepted = 0;
  out.ms_upload = out.ms_sort = out.ms_download = 0;
#if WARPMIND_HAVE_CUDA
  if (im.device) return tick_device(im, c, commands, players_, out, sink);
#endif
  CpuTick t{im, c, players_, ctx_->pool(), variant_ == AoiVariant::CpuFast, out};
  auto t0 = Clock::now();
  t.merge(commands);
  t.apply();
  out.ms_logic = ms_since(t0);
  // ms_query runs from here too: on the CPU the bucket sort is part of it (aoi.h).
  t0 = Clock::now();
  t.bucket();
  out.ms_sort = ms_since(t0);
  t.count_notifications();
  const bool boxes = c.format == NotificationFormat::Mailboxes;
  out.notification_count = im.counts[players_.size()];
  out.notifications.clear();
  out.mailbox_start.clear();
  out.mailbox.clear();
  if (!sink) t.store_notifications(boxes);
  out.ms_query = ms_since(t0);
  t0 = Clock::now();
  t.visibility();
  out.ms_visibility = ms_since(t0);
  // Delivery to a sink comes after every other result is in `out`.
  if (sink) t.deliver(*sink, boxes);
  return Status::Ok();
}

}  // namespace warpmind::aoi
