// The C API (contract in warpmind/warpmind.h): thin wrappers over the C++ modules. Every entry point
// checks its arguments, catches whatever the C++ side might throw (allocation failures), and turns a
// Status into a code plus the thread's last-error message.
#include "warpmind/warpmind.h"

#include "c/c_api.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/gpu_batch.h"
#include "warpmind/search/search_many.h"

using namespace warpmind;
using namespace warpmind::capi;

struct wm_field {
  std::unique_ptr<field::FieldLayers> layers;
  std::vector<field::Entity> entities;
  std::vector<Vec2> points;  // buffers reused by the queries (no allocation per call once grown)
  std::vector<field::MoveChoice> moves;
  std::vector<Vec2> gradients;
  std::vector<Vec2> steered;
  std::vector<float> headings;
};
struct wm_aoi {
  std::unique_ptr<aoi::AoiWorld> world;
  std::vector<aoi::Command> commands;  // the tick's commands in C++ form, reused every tick
  aoi::TickResult result;
  std::vector<wm_notification> notifications;  // the last tick's, or a chunk's on its way to a sink
  std::vector<wm_visibility_event> entered, left;
  std::vector<std::uint8_t> saved;  // the last wm_aoi_save's bytes
};
struct wm_regions {
  int dimensions = 2;
  std::unique_ptr<ddm::RegionMatcher<2>> m2;
  std::unique_ptr<ddm::RegionMatcher<3>> m3;
  std::vector<ddm::Pair> appeared, disappeared;          // the matcher's output
  std::vector<wm_pair> held_appeared, held_disappeared;  // the same, as handed out
  std::vector<ddm::Box<2>> boxes2;                       // wm_regions_update_many's boxes, reused
  std::vector<ddm::Box<3>> boxes3;
  // Calls f(matcher) on the matcher of this handle's dimension.
  template <class F>
  auto with(F&& f) {
    return dimensions == 2 ? f(*m2) : f(*m3);
  }
};
struct wm_chess {
  search::chess::Searcher searcher;
  search::chess::Position position;
  std::vector<std::uint64_t> history;  // keys before `position`, for repetition draws
  wm_chess(int hash_mb, int threads) : searcher(hash_mb, threads) {
    searcher.set_network(search::chess::Network::builtin());
  }
};
struct wm_connect6 {
  search::connect6::Board board;
  int threads = 1;
};
struct wm_tables {
  Context* ctx = nullptr;
  int game = WM_GAME_CHESS;
  search::connect6::Connect6Game connect6;
  std::unique_ptr<search::chess::GpuBatch> chess_gpu;  // on a CUDA context
  std::unique_ptr<search::connect6::GpuBatch> connect6_gpu;
  std::vector<search::chess::Position> positions;  // reused from call to call
  std::vector<search::connect6::Board> boards;
  std::vector<search::TableMove<search::chess::Move>> chess_moves;
  std::vector<search::TableMove<search::connect6::Turn>> connect6_turns;
};

namespace {

// Turns in either notation, separated by white space, played from the empty board into `b`.
wm_status read_turns(const char* turns, search::connect6::Board& b) {
  using namespace search::connect6;
  std::istringstream in(turns ? turns : "");
  for (std::string text; in >> text;) {
    Turn t;
    if (wm_status s = from(parse_turn(text, t)); s != WM_OK) return s;
    if (wm_status s = from(b.play(t)); s != WM_OK) return fail(s, "turn '" + text + "': " + last_error);
  }
  return WM_OK;
}

void copy_move(const std::string& text, char (&out)[8]) {
  std::memset(out, 0, sizeof out);
  std::memcpy(out, text.data(), std::min(text.size(), sizeof out - 1));
}

// Reads a box of the handle's dimension; lo/hi checked non-null by the caller.
template <int D>
ddm::Box<D> read_box(const float* lo, const float* hi) {
  ddm::Box<D> b;
  for (int k = 0; k < D; ++k) {
    b.lo[static_cast<std::size_t>(k)] = lo[k];
    b.hi[static_cast<std::size_t>(k)] = hi[k];
  }
  return b;
}

void copy_pairs(const std::vector<ddm::Pair>& in, std::vector<wm_pair>& held, const wm_pair** out, size_t* count) {
  held.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) held[i] = {in[i].publication, in[i].subscription};
  *out = held.data();
  *count = held.size();
}

}  // namespace

extern "C" {

const char* wm_last_error(void) { return last_error.c_str(); }

const char* wm_version(void) { return "0.2.0"; }

// ---- context ----------------------------------------------------------------------------------------

wm_status wm_context_create(wm_backend backend, unsigned cpu_threads, wm_context** out) {
  wm_context_options o{};
  o.backend = backend;
  o.cpu_threads = cpu_threads;
  return wm_context_create_with(&o, out);
}

wm_status wm_context_create_with(const wm_context_options* options, wm_context** out) {
  if (!options) return null_argument("wm_context_create_with", "options");
  if (!out) return null_argument("wm_context_create_with", "out");
  const int b = raw_enum(options->backend);
  if (b != WM_BACKEND_AUTO && b != WM_BACKEND_CPU && b != WM_BACKEND_CUDA)
    return fail(WM_INVALID_ARGUMENT, "wm_context_create: unknown backend " + std::to_string(b));
  return guarded([&] {
    ContextOptions o;
    o.backend = b == WM_BACKEND_CPU ? Backend::Cpu : b == WM_BACKEND_CUDA ? Backend::Cuda : Backend::Auto;
    o.cpu_threads = options->cpu_threads;
    o.cuda_device = options->cuda_device;
    o.quiet = options->log == nullptr;
    if (wm_log_fn fn = options->log) {
      void* user = options->log_user;
      o.log = [fn, user](LogLevel level, std::string_view message) {
        const std::string line(message);  // NUL-terminated for C
        fn(user, level == LogLevel::Warning ? WM_LOG_WARNING : WM_LOG_INFO, line.c_str());
      };
    }
    auto h = std::make_unique<wm_context>();
    if (wm_status s = from(Context::create(o, h->ctx).context("wm_context_create")); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_context_destroy(wm_context* ctx) { delete ctx; }

int wm_context_uses_gpu(const wm_context* ctx) { return ctx && ctx->ctx->cuda() ? 1 : 0; }

// ---- field ------------------------------------------------------------------------------------------

wm_status wm_field_create(wm_context* ctx, const wm_field_config* c, wm_field** out) {
  if (!ctx) return null_argument("wm_field_create", "ctx");
  if (!c) return null_argument("wm_field_create", "config");
  if (!out) return null_argument("wm_field_create", "out");
  if (c->kind_count && !c->kinds) return null_argument("wm_field_create", "config->kinds");
  if (c->rule_count && !c->rules) return null_argument("wm_field_create", "config->rules");
  if (c->kind_count > static_cast<std::size_t>(field::kMaxKinds))
    return fail(WM_INVALID_ARGUMENT, "wm_field_create: at most " + std::to_string(field::kMaxKinds) + " kinds");
  if (c->layer_count == 0 || c->layer_count > 1024)
    return fail(WM_INVALID_ARGUMENT, "wm_field_create: layer_count must be 1..1024");
  return guarded([&] {
    field::FieldConfig fc;
    fc.world = {c->x0, c->y0, c->width, c->height};
    fc.width = c->cells_x;
    fc.height = c->cells_y;
    for (std::size_t k = 0; k < c->kind_count; ++k) {
      const wm_charge_kind& kind = c->kinds[k];
      if (kind.segments < 1 || kind.segments > 4)
        return fail(WM_INVALID_ARGUMENT, "wm_field_create: kinds[" + std::to_string(k) + "]: segments must be 1..4");
      std::vector<field::ChargeSegment> seg;
      for (int s = 0; s < kind.segments; ++s) seg.push_back({kind.end[s], kind.slope[s], kind.intercept[s]});
      field::ChargeKind ck;
      if (wm_status st = from(field::make_charge_kind("kind" + std::to_string(k), seg, ck)); st != WM_OK) return st;
      fc.kinds.push_back(std::move(ck));
    }
    fc.layers.resize(c->layer_count);
    for (std::uint32_t l = 0; l < c->layer_count; ++l) fc.layers[l].name = "layer" + std::to_string(l);
    for (std::size_t r = 0; r < c->rule_count; ++r) {
      const wm_layer_rule& rule = c->rules[r];
      if (rule.layer >= c->layer_count)
        return fail(WM_INVALID_ARGUMENT, "wm_field_create: rules[" + std::to_string(r) + "]: layer out of range");
      fc.layers[rule.layer].rules.push_back({rule.group, rule.kind});
    }
    auto h = std::make_unique<wm_field>();
    if (wm_status st = from(field::FieldLayers::create(*ctx->ctx, fc, h->layers)); st != WM_OK) return st;
    *out = h.release();
    return WM_OK;
  });
}

void wm_field_destroy(wm_field* f) { delete f; }

wm_status wm_field_build(wm_field* f, const wm_entity* entities, size_t count) {
  if (!f) return null_argument("wm_field_build", "field");
  if (count && !entities) return null_argument("wm_field_build", "entities");
  return guarded([&] {
    f->entities.resize(count);
    for (std::size_t i = 0; i < count; ++i) f->entities[i] = {entities[i].x, entities[i].y, entities[i].group, 0};
    return from(f->layers->build(f->entities));
  });
}

namespace {

// Checks a query's common arguments and copies the points.
wm_status query_points(const char* call, wm_field* f, uint32_t layer, const wm_vec2* points, size_t count,
                       const void* out) {
  if (!f) return null_argument(call, "field");
  if (count && !points) return null_argument(call, "points");
  if (count && !out) return null_argument(call, "the output array");
  if (layer >= static_cast<uint32_t>(f->layers->layer_count()))
    return fail(WM_INVALID_ARGUMENT, std::string(call) + ": layer " + std::to_string(layer) + " out of range");
  f->points.resize(count);
  for (std::size_t i = 0; i < count; ++i) f->points[i] = {points[i].x, points[i].y};
  return WM_OK;
}

}  // namespace

wm_status wm_field_sample(wm_field* f, uint32_t layer, const wm_vec2* points, size_t count, float* values) {
  return guarded([&] {
    if (wm_status s = query_points("wm_field_sample", f, layer, points, count, values); s != WM_OK) return s;
    return from(f->layers->sample(static_cast<int>(layer), f->points, std::span<float>(values, count)));
  });
}

wm_status wm_field_best_move(wm_field* f, uint32_t layer, const wm_vec2* points, size_t count, int window,
                             wm_move* out) {
  return guarded([&] {
    if (wm_status s = query_points("wm_field_best_move", f, layer, points, count, out); s != WM_OK) return s;
    f->moves.resize(count);
    if (wm_status s = from(f->layers->best_move(static_cast<int>(layer), f->points, window, f->moves)); s != WM_OK)
      return s;
    for (std::size_t i = 0; i < count; ++i)
      out[i] = {
          f->moves[i].cell_x, f->moves[i].cell_y, {f->moves[i].target.x, f->moves[i].target.y}, f->moves[i].value};
    return WM_OK;
  });
}

wm_status wm_field_gradient(wm_field* f, uint32_t layer, const wm_vec2* points, size_t count, wm_vec2* out) {
  return guarded([&] {
    if (wm_status s = query_points("wm_field_gradient", f, layer, points, count, out); s != WM_OK) return s;
    std::vector<Vec2>& g = f->gradients;
    g.resize(count);
    if (wm_status s = from(f->layers->gradient(static_cast<int>(layer), f->points, g)); s != WM_OK) return s;
    for (std::size_t i = 0; i < count; ++i) out[i] = {g[i].x, g[i].y};
    return WM_OK;
  });
}

wm_status wm_field_steer(wm_field* f, const wm_vec2* points, const uint8_t* layer_of, size_t count, int window,
                         float step, wm_vec2* out, float* heading) {
  return guarded([&] {
    if (!f) return null_argument("wm_field_steer", "field");
    if (count && !points) return null_argument("wm_field_steer", "points");
    if (count && !layer_of) return null_argument("wm_field_steer", "layer_of");
    if (count && !out) return null_argument("wm_field_steer", "out");
    f->points.resize(count);
    for (std::size_t i = 0; i < count; ++i) f->points[i] = {points[i].x, points[i].y};
    f->steered.resize(count);
    if (heading)
      f->headings.assign(heading, heading + count);
    else
      f->headings.clear();
    if (wm_status s = from(f->layers->steer(f->points, std::span<const std::uint8_t>(layer_of, count), window, step,
                                            f->steered, f->headings));
        s != WM_OK)
      return s;
    for (std::size_t i = 0; i < count; ++i) out[i] = {f->steered[i].x, f->steered[i].y};
    if (heading) std::copy(f->headings.begin(), f->headings.end(), heading);
    return WM_OK;
  });
}

// ---- area of interest -------------------------------------------------------------------------------

wm_status wm_aoi_create(wm_context* ctx, const wm_aoi_config* c, wm_aoi** out) {
  if (!ctx) return null_argument("wm_aoi_create", "ctx");
  if (!c) return null_argument("wm_aoi_create", "config");
  if (!out) return null_argument("wm_aoi_create", "out");
  if (const int s = raw_enum(c->shape); s != WM_AOI_SQUARE && s != WM_AOI_CIRCLE)
    return fail(WM_INVALID_ARGUMENT, "wm_aoi_create: unknown shape " + std::to_string(s));
  if (const int v = raw_enum(c->variant); v < WM_AOI_AUTO || v > WM_AOI_GPU_FAST)
    return fail(WM_INVALID_ARGUMENT, "wm_aoi_create: unknown variant " + std::to_string(v));
  return guarded([&] {
    aoi::AoiConfig ac;
    ac.world = {c->x0, c->y0, c->width, c->height};
    ac.aoi = c->aoi;
    ac.shape = c->shape == WM_AOI_CIRCLE ? aoi::AoiShape::Circle : aoi::AoiShape::Square;
    ac.max_move = c->max_move;
    ac.attack_range = c->attack_range;
    ac.track_visibility = c->track_visibility != 0;
    static constexpr aoi::AoiVariant kVariants[] = {aoi::AoiVariant::Auto, aoi::AoiVariant::CpuGrid,
                                                    aoi::AoiVariant::CpuFast, aoi::AoiVariant::GpuSorted,
                                                    aoi::AoiVariant::GpuFast};
    ac.variant = kVariants[c->variant];
    if (c->chunk_notifications) ac.chunk_notifications = c->chunk_notifications;
    auto h = std::make_unique<wm_aoi>();
    if (wm_status s = from(aoi::AoiWorld::create(*ctx->ctx, ac, h->world)); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_aoi_destroy(wm_aoi* a) { delete a; }

wm_status wm_aoi_reset(wm_aoi* a, const wm_player* players, size_t count) {
  if (!a) return null_argument("wm_aoi_reset", "aoi");
  if (count && !players) return null_argument("wm_aoi_reset", "players");
  return guarded([&] {
    std::vector<aoi::Player> p(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = {players[i].x, players[i].y, players[i].hp};
    if (wm_status s = from(a->world->reset(p)); s != WM_OK) return s;
    a->notifications.clear();
    a->entered.clear();
    a->left.clear();
    return WM_OK;
  });
}

wm_status wm_aoi_save(wm_aoi* a, const uint8_t** bytes, size_t* size) {
  if (!a) return null_argument("wm_aoi_save", "aoi");
  if (!bytes || !size) return null_argument("wm_aoi_save", "bytes or size");
  return guarded([&] {
    if (wm_status s = from(a->world->save(a->saved)); s != WM_OK) return s;
    *bytes = a->saved.data();
    *size = a->saved.size();
    return WM_OK;
  });
}

wm_status wm_aoi_restore(wm_aoi* a, const uint8_t* bytes, size_t size) {
  if (!a) return null_argument("wm_aoi_restore", "aoi");
  if (size && !bytes) return null_argument("wm_aoi_restore", "bytes");
  return guarded([&] {
    if (wm_status s = from(a->world->restore(std::span<const std::uint8_t>(bytes, size))); s != WM_OK) return s;
    a->notifications.clear();
    a->entered.clear();
    a->left.clear();
    return WM_OK;
  });
}

namespace {

void to_c(const aoi::Notification* in, std::size_t n, std::vector<wm_notification>& out) {
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = {in[i].receiver, in[i].subject, static_cast<uint32_t>(in[i].field), in[i].value};
}

// The tick of wm_aoi_tick and wm_aoi_tick_chunked (sink null: the notifications kept in the handle).
wm_status aoi_tick(const char* who, wm_aoi* a, const wm_command* commands, size_t count, wm_notification_sink sink,
                   void* user, wm_aoi_tick_stats* stats) {
  if (!a) return null_argument(who, "aoi");
  if (count && !commands) return null_argument(who, "commands");
  return guarded([&] {
    // The type is carried as is (CommandType's underlying type is uint32_t), so an unknown value is
    // rejected by the tick's validation as UnknownType.
    std::vector<aoi::Command>& cmd = a->commands;
    cmd.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const wm_command& c = commands[i];
      cmd[i] = {c.player, static_cast<aoi::CommandType>(c.type), c.dx, c.dy, c.target, c.damage};
    }
    const aoi::TickResult& r = a->result;
    if (sink) {
      struct Target {
        wm_aoi* a;
        wm_notification_sink sink;
        void* user;
      } to{a, sink, user};
      // One pointer captured: the std::function holds it without allocating.
      const aoi::NotificationSink forward = [t = &to](const aoi::NotificationChunk& k) {
        to_c(k.notifications.data(), k.notifications.size(), t->a->notifications);
        const wm_notification_chunk c{k.first_receiver, k.end_receiver, k.first_notification,
                                      t->a->notifications.data(), t->a->notifications.size()};
        t->sink(&c, t->user);
      };
      if (wm_status s = from(a->world->tick(cmd, a->result, forward)); s != WM_OK) return s;
      a->notifications.clear();
    } else {
      if (wm_status s = from(a->world->tick(cmd, a->result)); s != WM_OK) return s;
      to_c(r.notifications.data(), r.notifications.size(), a->notifications);
    }
    const auto events = [](const std::vector<aoi::VisibilityEvent>& in, std::vector<wm_visibility_event>& o) {
      o.resize(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) o[i] = {in[i].receiver, in[i].other};
    };
    events(r.entered, a->entered);
    events(r.left, a->left);
    if (stats) {
      *stats = {};
      stats->accepted = r.accepted;
      for (int k = 0; k < aoi::kRejectReasons; ++k) stats->rejected[k] = r.rejected[static_cast<std::size_t>(k)];
      stats->updates = r.updates.size();
      stats->notifications = r.notification_count;
      stats->entered = r.entered.size();
      stats->left = r.left.size();
      stats->ms_logic = r.ms_logic;
      stats->ms_query = r.ms_query;
      stats->ms_visibility = r.ms_visibility;
    }
    return WM_OK;
  });
}

}  // namespace

wm_status wm_aoi_tick(wm_aoi* a, const wm_command* commands, size_t count, wm_aoi_tick_stats* stats) {
  return aoi_tick("wm_aoi_tick", a, commands, count, nullptr, nullptr, stats);
}

wm_status wm_aoi_tick_chunked(wm_aoi* a, const wm_command* commands, size_t count, wm_notification_sink sink,
                              void* user, wm_aoi_tick_stats* stats) {
  if (!sink) return null_argument("wm_aoi_tick_chunked", "sink");
  return aoi_tick("wm_aoi_tick_chunked", a, commands, count, sink, user, stats);
}

wm_status wm_aoi_notifications(const wm_aoi* a, const wm_notification** out, size_t* count) {
  if (!a) return null_argument("wm_aoi_notifications", "aoi");
  if (!out) return null_argument("wm_aoi_notifications", "out");
  if (!count) return null_argument("wm_aoi_notifications", "count");
  *out = a->notifications.data();
  *count = a->notifications.size();
  return WM_OK;
}

wm_status wm_aoi_visibility(const wm_aoi* a, const wm_visibility_event** entered, size_t* entered_count,
                            const wm_visibility_event** left, size_t* left_count) {
  if (!a) return null_argument("wm_aoi_visibility", "aoi");
  if (!entered || !entered_count || !left || !left_count)
    return null_argument("wm_aoi_visibility", "an output pointer");
  *entered = a->entered.data();
  *entered_count = a->entered.size();
  *left = a->left.data();
  *left_count = a->left.size();
  return WM_OK;
}

wm_status wm_aoi_players(const wm_aoi* a, wm_player* players, size_t count) {
  if (!a) return null_argument("wm_aoi_players", "aoi");
  if (count && !players) return null_argument("wm_aoi_players", "players");
  const std::span<const aoi::Player> p = a->world->players();
  if (count != p.size())
    return fail(WM_INVALID_ARGUMENT, "wm_aoi_players: room for " + std::to_string(count) + " players, " +
                                         std::to_string(p.size()) + " in the world");
  for (std::size_t i = 0; i < count; ++i) players[i] = {p[i].x, p[i].y, p[i].hp};
  return WM_OK;
}

size_t wm_aoi_size(const wm_aoi* a) { return a ? a->world->players().size() : 0; }

float wm_aoi_value_float(uint32_t value) { return aoi::value_as_float(value); }
int32_t wm_aoi_value_int(uint32_t value) { return aoi::value_as_int(value); }

// ---- region matching --------------------------------------------------------------------------------

wm_status wm_regions_create(wm_context* ctx, int dimensions, wm_ddm_variant variant, float grid_cell,
                            wm_regions** out) {
  if (!ctx) return null_argument("wm_regions_create", "ctx");
  if (!out) return null_argument("wm_regions_create", "out");
  if (dimensions != 2 && dimensions != 3)
    return fail(WM_INVALID_ARGUMENT, "wm_regions_create: dimensions must be 2 or 3, not " + std::to_string(dimensions));
  if (const int v = raw_enum(variant); v < WM_DDM_AUTO || v > WM_DDM_GPU_GRID)
    return fail(WM_INVALID_ARGUMENT, "wm_regions_create: unknown variant " + std::to_string(v));
  if (!std::isfinite(grid_cell) || grid_cell < 0)
    return fail(WM_INVALID_ARGUMENT, "wm_regions_create: grid_cell must be finite and >= 0");
  return guarded([&] {
    static constexpr ddm::DdmVariant kVariants[] = {ddm::DdmVariant::Auto, ddm::DdmVariant::CpuBrute,
                                                    ddm::DdmVariant::CpuSort, ddm::DdmVariant::GpuRegion,
                                                    ddm::DdmVariant::GpuGrid};
    ddm::MatcherConfig mc;
    mc.variant = kVariants[variant];
    mc.grid_cell = grid_cell;
    auto h = std::make_unique<wm_regions>();
    h->dimensions = dimensions;
    const Status st = dimensions == 2 ? ddm::RegionMatcher<2>::create(*ctx->ctx, mc, h->m2)
                                      : ddm::RegionMatcher<3>::create(*ctx->ctx, mc, h->m3);
    if (wm_status s = from(st); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_regions_destroy(wm_regions* r) { delete r; }

wm_status wm_regions_add(wm_regions* r, wm_region_kind kind, const float* lo, const float* hi, uint32_t* id) {
  if (!r) return null_argument("wm_regions_add", "regions");
  if (!lo || !hi) return null_argument("wm_regions_add", "lo or hi");
  if (!id) return null_argument("wm_regions_add", "id");
  if (const int k = raw_enum(kind); k != WM_PUBLICATION && k != WM_SUBSCRIPTION)
    return fail(WM_INVALID_ARGUMENT, "wm_regions_add: unknown kind " + std::to_string(k));
  return guarded([&] {
    const ddm::RegionKind k = kind == WM_PUBLICATION ? ddm::RegionKind::Publication : ddm::RegionKind::Subscription;
    return from(r->with([&](auto& m) {
      constexpr int D = std::remove_reference_t<decltype(m)>::kDimensions;
      return m.add(k, read_box<D>(lo, hi), *id);
    }));
  });
}

wm_status wm_regions_update(wm_regions* r, uint32_t id, const float* lo, const float* hi) {
  if (!r) return null_argument("wm_regions_update", "regions");
  if (!lo || !hi) return null_argument("wm_regions_update", "lo or hi");
  return guarded([&] {
    return from(r->with([&](auto& m) {
      constexpr int D = std::remove_reference_t<decltype(m)>::kDimensions;
      return m.update(id, read_box<D>(lo, hi));
    }));
  });
}

wm_status wm_regions_update_many(wm_regions* r, const uint32_t* ids, size_t count, const float* lo, const float* hi) {
  if (!r) return null_argument("wm_regions_update_many", "regions");
  if (count == 0) return WM_OK;
  if (!ids) return null_argument("wm_regions_update_many", "ids");
  if (!lo || !hi) return null_argument("wm_regions_update_many", "lo or hi");
  if (count > SIZE_MAX / sizeof(ddm::Box<3>))
    return fail(WM_INVALID_ARGUMENT, "wm_regions_update_many: count " + std::to_string(count) + " is too large");
  return guarded([&] {
    const auto run = [&](auto& m, auto& boxes) {
      constexpr int D = std::remove_reference_t<decltype(m)>::kDimensions;
      boxes.resize(count);  // grows once; no allocation per call after that
      for (std::size_t i = 0; i < count; ++i) boxes[i] = read_box<D>(lo + i * D, hi + i * D);
      return from(
          m.update(std::span<const ddm::RegionId>(ids, count), std::span<const ddm::Box<D>>(boxes.data(), count)));
    };
    return r->dimensions == 2 ? run(*r->m2, r->boxes2) : run(*r->m3, r->boxes3);
  });
}

wm_status wm_regions_remove(wm_regions* r, uint32_t id) {
  if (!r) return null_argument("wm_regions_remove", "regions");
  return guarded([&] { return from(r->with([&](auto& m) { return m.remove(id); })); });
}

wm_status wm_regions_match(wm_regions* r, const wm_pair** pairs, size_t* count) {
  if (!r) return null_argument("wm_regions_match", "regions");
  if (!pairs || !count) return null_argument("wm_regions_match", "pairs or count");
  return guarded([&] {
    r->disappeared.clear();
    if (wm_status s = from(r->with([&](auto& m) { return m.match(r->appeared); })); s != WM_OK) return s;
    copy_pairs(r->appeared, r->held_appeared, pairs, count);
    return WM_OK;
  });
}

wm_status wm_regions_match_changes(wm_regions* r, const wm_pair** appeared, size_t* appeared_count,
                                   const wm_pair** disappeared, size_t* disappeared_count) {
  if (!r) return null_argument("wm_regions_match_changes", "regions");
  if (!appeared || !appeared_count || !disappeared || !disappeared_count)
    return null_argument("wm_regions_match_changes", "an output pointer");
  return guarded([&] {
    if (wm_status s = from(r->with([&](auto& m) { return m.match_changes(r->appeared, r->disappeared); })); s != WM_OK)
      return s;
    copy_pairs(r->appeared, r->held_appeared, appeared, appeared_count);
    copy_pairs(r->disappeared, r->held_disappeared, disappeared, disappeared_count);
    return WM_OK;
  });
}

size_t wm_regions_count(const wm_regions* r, wm_region_kind kind) {
  if (!r) return 0;
  const bool pub = kind == WM_PUBLICATION;
  if (r->dimensions == 2) return pub ? r->m2->publications() : r->m2->subscriptions();
  return pub ? r->m3->publications() : r->m3->subscriptions();
}

// ---- chess ------------------------------------------------------------------------------------------

wm_status wm_chess_create(wm_context* ctx, int hash_mb, int threads, wm_chess** out) {
  if (!ctx) return null_argument("wm_chess_create", "ctx");
  if (!out) return null_argument("wm_chess_create", "out");
  if (hash_mb < 1 || hash_mb > 65536) return fail(WM_INVALID_ARGUMENT, "wm_chess_create: hash_mb must be 1..65536");
  if (threads < 1 || threads > 256) return fail(WM_INVALID_ARGUMENT, "wm_chess_create: threads must be 1..256");
  return guarded([&] {
    auto h = std::make_unique<wm_chess>(hash_mb, threads);
    (void)search::chess::parse_fen(search::chess::kStartFen, h->position);
    *out = h.release();
    return WM_OK;
  });
}

void wm_chess_destroy(wm_chess* c) { delete c; }

wm_status wm_chess_set_position(wm_chess* c, const char* fen, const char* moves) {
  if (!c) return null_argument("wm_chess_set_position", "chess");
  return guarded([&] {
    using namespace search::chess;
    Position p;
    if (wm_status s = from(parse_fen(fen ? fen : kStartFen, p)); s != WM_OK) return s;
    std::vector<std::uint64_t> history;
    std::istringstream in(moves ? moves : "");
    for (std::string text; in >> text;) {
      Move m;
      if (wm_status s = from(parse_uci_move(p, text, m)); s != WM_OK) return s;
      history.push_back(p.key);
      Undo u;
      make_move(p, m, u);
    }
    c->position = p;
    c->history = std::move(history);
    return WM_OK;
  });
}

wm_status wm_chess_set_evaluation(wm_chess* c, int network, const char* file) {
  if (!c) return null_argument("wm_chess_set_evaluation", "chess");
  if (network != 0 && network != 1) return fail(WM_INVALID_ARGUMENT, "wm_chess_set_evaluation: network must be 0 or 1");
  return guarded([&] {
    std::shared_ptr<const search::chess::Network> n;
    if (network && file) {
      const Status st = search::chess::Network::load(file, n);
      if (!st.ok()) return fail(WM_INVALID_ARGUMENT, "wm_chess_set_evaluation: " + st.message());
    } else if (network) {
      n = search::chess::Network::builtin();
    }
    c->searcher.set_network(std::move(n));
    return WM_OK;
  });
}

wm_status wm_chess_search(wm_chess* c, const wm_search_limits* limits, wm_search_result* out) {
  if (!c) return null_argument("wm_chess_search", "chess");
  if (!limits) return null_argument("wm_chess_search", "limits");
  if (!out) return null_argument("wm_chess_search", "out");
  if (limits->depth < 0 || limits->depth > 64) return fail(WM_INVALID_ARGUMENT, "wm_chess_search: depth must be 0..64");
  if (limits->time_ms < 0) return fail(WM_INVALID_ARGUMENT, "wm_chess_search: time_ms must be >= 0");
  return guarded([&] {
    search::chess::SearchLimits l;
    l.depth = limits->depth ? limits->depth : 64;
    l.time_ms = limits->time_ms;
    l.nodes = limits->nodes;
    if (!limits->depth && !limits->time_ms && !limits->nodes) l.depth = 8;  // no limit at all: a quick search
    const search::chess::SearchResult r = c->searcher.search(c->position, c->history, l);
    copy_move(r.has_move ? search::chess::move_to_uci(r.best) : std::string(), out->move);
    out->score = r.score;
    out->depth = r.depth;
    out->nodes = r.nodes;
    return WM_OK;
  });
}

// ---- Connect6 ---------------------------------------------------------------------------------------

wm_status wm_connect6_create(wm_context* ctx, int threads, wm_connect6** out) {
  if (!ctx) return null_argument("wm_connect6_create", "ctx");
  if (!out) return null_argument("wm_connect6_create", "out");
  if (threads < 1 || threads > 256) return fail(WM_INVALID_ARGUMENT, "wm_connect6_create: threads must be 1..256");
  return guarded([&] {
    auto h = std::make_unique<wm_connect6>();
    h->threads = threads;
    *out = h.release();
    return WM_OK;
  });
}

void wm_connect6_destroy(wm_connect6* c) { delete c; }

wm_status wm_connect6_set_position(wm_connect6* c, const char* turns) {
  if (!c) return null_argument("wm_connect6_set_position", "connect6");
  return guarded([&] {
    search::connect6::Board b;
    if (wm_status s = read_turns(turns, b); s != WM_OK) return s;
    c->board = b;
    return WM_OK;
  });
}

wm_status wm_connect6_search(wm_connect6* c, const wm_search_limits* limits, wm_search_result* out) {
  if (!c) return null_argument("wm_connect6_search", "connect6");
  if (!limits) return null_argument("wm_connect6_search", "limits");
  if (!out) return null_argument("wm_connect6_search", "out");
  if (limits->depth < 0 || limits->depth > 20)
    return fail(WM_INVALID_ARGUMENT, "wm_connect6_search: depth must be 0..20");
  if (limits->time_ms < 0 || limits->time_ms > 3600000)
    return fail(WM_INVALID_ARGUMENT, "wm_connect6_search: time_ms must be 0..3600000");
  if (c->board.over()) return fail(WM_INVALID_ARGUMENT, "wm_connect6_search: the game is over");
  return guarded([&] {
    using namespace search::connect6;
    SearchOptions o;
    o.depth = limits->depth ? limits->depth : 3;
    o.time_ms = static_cast<int>(limits->time_ms);
    o.threads = c->threads;
    const SearchOutcome r = search::connect6::search(c->board, o);
    copy_move(turn_name(r.best, Notation::Letters), out->move);
    out->score = r.score;
    out->depth = r.depth;
    out->nodes = r.nodes;
    return WM_OK;
  });
}

// ---- many positions at once --------------------------------------------------------------------------

wm_status wm_tables_create(wm_context* ctx, wm_game game, int width, wm_tables** out) {
  if (!ctx) return null_argument("wm_tables_create", "ctx");
  if (!out) return null_argument("wm_tables_create", "out");
  const int g = raw_enum(game);
  if (g != WM_GAME_CHESS && g != WM_GAME_CONNECT6)
    return fail(WM_INVALID_ARGUMENT, "wm_tables_create: unknown game " + std::to_string(g));
  if (g == WM_GAME_CONNECT6 && (width < 1 || width > 128))
    return fail(WM_INVALID_ARGUMENT, "wm_tables_create: width must be 1..128");
  return guarded([&] {
    auto h = std::make_unique<wm_tables>();
    h->ctx = ctx->ctx.get();
    h->game = g;
    h->connect6.width = width;
    if (h->ctx->cuda()) {
      const Status st = g == WM_GAME_CHESS ? search::chess::GpuBatch::create(*h->ctx, h->chess_gpu)
                                           : search::connect6::GpuBatch::create(*h->ctx, h->connect6_gpu, h->connect6);
      if (!st.ok()) return from(st.context("wm_tables_create"));
    }
    *out = h.release();
    return WM_OK;
  });
}

void wm_tables_destroy(wm_tables* t) { delete t; }

wm_status wm_tables_search(wm_tables* t, const char* const* positions, size_t count, int depth,
                           wm_search_result* results, uint64_t* nodes) {
  if (!t) return null_argument("wm_tables_search", "tables");
  if (count && !positions) return null_argument("wm_tables_search", "positions");
  if (count && !results) return null_argument("wm_tables_search", "results");
  if (depth < 1 || depth > search::kSearchManyMaxDepth)
    return fail(WM_INVALID_ARGUMENT,
                "wm_tables_search: depth must be 1.." + std::to_string(search::kSearchManyMaxDepth));
  return guarded([&] {
    using namespace search;
    const bool chess_game = t->game == WM_GAME_CHESS;
    if (chess_game)
      t->positions.resize(count);
    else
      t->boards.assign(count, connect6::Board{});
    for (std::size_t i = 0; i < count; ++i) {
      if (!positions[i])
        return fail(WM_INVALID_ARGUMENT, "wm_tables_search: positions[" + std::to_string(i) + "] is null");
      const wm_status s =
          chess_game ? from(chess::parse_fen(positions[i], t->positions[i])) : read_turns(positions[i], t->boards[i]);
      if (s != WM_OK) return fail(s, "wm_tables_search: positions[" + std::to_string(i) + "]: " + last_error);
    }
    SearchManyStats stats;
    Status st;
    // Each game's moves, written out as text with the scores.
    const auto write = [&](const auto& found, auto&& name) {
      for (std::size_t i = 0; i < count; ++i) {
        copy_move(found[i].has_move ? name(found[i].best) : std::string(), results[i].move);
        results[i].score = found[i].value;
        results[i].depth = depth;
        results[i].nodes = 0;
      }
    };
    if (chess_game) {
      t->chess_moves.resize(count);
      st = t->chess_gpu
               ? t->chess_gpu->search_many(std::span<const chess::Position>(t->positions), depth,
                                           std::span(t->chess_moves), &stats)
               : search_many(t->ctx->pool(), chess::ChessGame{}, std::span<const chess::Position>(t->positions), depth,
                             std::span(t->chess_moves), &stats);
      if (st.ok()) write(t->chess_moves, [](const chess::Move& m) { return chess::move_to_uci(m); });
    } else {
      t->connect6_turns.resize(count);
      st = t->connect6_gpu ? t->connect6_gpu->search_many(std::span<const connect6::Board>(t->boards), depth,
                                                          std::span(t->connect6_turns), &stats)
                           : search_many(t->ctx->pool(), t->connect6, std::span<const connect6::Board>(t->boards),
                                         depth, std::span(t->connect6_turns), &stats);
      if (st.ok())
        write(t->connect6_turns, [](const connect6::Turn& m) { return turn_name(m, connect6::Notation::Letters); });
    }
    if (!st.ok()) return from(st.context("wm_tables_search"));
    if (nodes) *nodes = stats.nodes;
    return WM_OK;
  });
}

}  // extern "C"
