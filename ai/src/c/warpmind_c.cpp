// The C API (contract in warpmind/warpmind.h): thin wrappers over the C++ modules. Every entry point
// checks its arguments, catches whatever the C++ side might throw (allocation failures), and turns a
// Status into a code plus the thread's last-error message.
#include "warpmind/warpmind.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"

using namespace warpmind;

struct wm_context {
  std::unique_ptr<Context> ctx;
};
struct wm_field {
  std::unique_ptr<field::FieldLayers> layers;
  std::vector<field::Entity> entities;
  std::vector<Vec2> points;
  std::vector<field::MoveChoice> moves;
};
struct wm_crowd {
  std::unique_ptr<crowd::CrowdSolver> solver;
};
struct wm_chess {
  search::chess::Searcher searcher;
  search::chess::Position position;
  std::vector<std::uint64_t> history;  // keys before `position`, for repetition draws
  wm_chess(int hash_mb, int threads) : searcher(hash_mb, threads) {}
};
struct wm_connect6 {
  search::connect6::Board board;
  int threads = 1;
};

namespace {

thread_local std::string last_error;

wm_status fail(wm_status code, std::string message) {
  last_error = std::move(message);
  return code;
}

wm_status from(const Status& st) {
  if (st.ok()) return WM_OK;
  switch (st.code()) {
    case StatusCode::InvalidArgument:
      return fail(WM_INVALID_ARGUMENT, st.message());
    case StatusCode::Unavailable:
      return fail(WM_UNAVAILABLE, st.message());
    case StatusCode::OutOfMemory:
      return fail(WM_OUT_OF_MEMORY, st.message());
    default:
      return fail(WM_INTERNAL, st.message());
  }
}

// Runs f() (returning wm_status), turning exceptions into codes: nothing escapes into C.
template <class F>
wm_status guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return fail(WM_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(WM_INTERNAL, e.what());
  } catch (...) {
    return fail(WM_INTERNAL, "unexpected error");
  }
}

wm_status null_argument(const char* call, const char* what) {
  return fail(WM_INVALID_ARGUMENT, std::string(call) + ": " + what + " is null");
}

void copy_move(const std::string& text, char (&out)[8]) {
  std::memset(out, 0, sizeof out);
  std::memcpy(out, text.data(), std::min(text.size(), sizeof out - 1));
}

}  // namespace

extern "C" {

const char* wm_last_error(void) { return last_error.c_str(); }

const char* wm_version(void) { return "0.2.0"; }

// ---- context ----------------------------------------------------------------------------------------

wm_status wm_context_create(wm_backend backend, unsigned cpu_threads, wm_context** out) {
  if (!out) return null_argument("wm_context_create", "out");
  if (backend != WM_BACKEND_AUTO && backend != WM_BACKEND_CPU && backend != WM_BACKEND_CUDA)
    return fail(WM_INVALID_ARGUMENT, "wm_context_create: unknown backend " + std::to_string(static_cast<int>(backend)));
  if (cpu_threads > 4096) return fail(WM_INVALID_ARGUMENT, "wm_context_create: cpu_threads must be 0..4096");
  return guarded([&] {
    ContextOptions o;
    o.backend = backend == WM_BACKEND_CPU ? Backend::Cpu : backend == WM_BACKEND_CUDA ? Backend::Cuda : Backend::Auto;
    o.cpu_threads = cpu_threads;
    o.quiet = true;
    auto h = std::make_unique<wm_context>();
    if (wm_status s = from(Context::create(o, h->ctx)); s != WM_OK) return s;
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
    std::vector<Vec2> g(count);
    if (wm_status s = from(f->layers->gradient(static_cast<int>(layer), f->points, g)); s != WM_OK) return s;
    for (std::size_t i = 0; i < count; ++i) out[i] = {g[i].x, g[i].y};
    return WM_OK;
  });
}

// ---- crowd ------------------------------------------------------------------------------------------

wm_status wm_crowd_create(wm_context* ctx, float x0, float y0, float width, float height, float radius,
                          wm_crowd** out) {
  if (!ctx) return null_argument("wm_crowd_create", "ctx");
  if (!out) return null_argument("wm_crowd_create", "out");
  return guarded([&] {
    crowd::CrowdConfig cc;
    cc.world = {x0, y0, width, height};
    cc.radius = radius;
    auto h = std::make_unique<wm_crowd>();
    if (wm_status s = from(crowd::CrowdSolver::create(*ctx->ctx, cc, h->solver)); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_crowd_destroy(wm_crowd* c) { delete c; }

static_assert(sizeof(wm_vec2) == sizeof(Vec2) && alignof(wm_vec2) == alignof(Vec2), "wm_vec2 is warpmind::Vec2");

wm_status wm_crowd_reset(wm_crowd* c, const wm_vec2* positions, size_t count) {
  if (!c) return null_argument("wm_crowd_reset", "crowd");
  if (count && !positions) return null_argument("wm_crowd_reset", "positions");
  return guarded([&] {
    std::vector<Vec2> p(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = {positions[i].x, positions[i].y};
    return from(c->solver->reset(p));
  });
}

wm_status wm_crowd_step(wm_crowd* c, const wm_vec2* proposals, size_t count, wm_crowd_stats* stats) {
  if (!c) return null_argument("wm_crowd_step", "crowd");
  if (count && !proposals) return null_argument("wm_crowd_step", "proposals");
  if (count != c->solver->size())
    return fail(WM_INVALID_ARGUMENT, "wm_crowd_step: " + std::to_string(count) + " proposals for " +
                                         std::to_string(c->solver->size()) + " agents");
  return guarded([&] {
    std::vector<Vec2> p(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = {proposals[i].x, proposals[i].y};
    if (wm_status s = from(c->solver->step(p)); s != WM_OK) return s;
    if (stats) {
      const crowd::StepStats& st = c->solver->last_stats();
      *stats = {st.moved, st.stayed, st.out_of_world, st.blocked, st.collisions};
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
    std::vector<Vec2> p(count);
    if (wm_status s = from(c->solver->read_positions(p)); s != WM_OK) return s;
    for (std::size_t i = 0; i < count; ++i) positions[i] = {p[i].x, p[i].y};
    return WM_OK;
  });
}

size_t wm_crowd_size(const wm_crowd* c) { return c ? c->solver->size() : 0; }

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
    using namespace search::connect6;
    Board b;
    std::istringstream in(turns ? turns : "");
    for (std::string text; in >> text;) {
      Turn t;
      if (wm_status s = from(parse_turn(text, t)); s != WM_OK) return s;
      if (wm_status s = from(b.play(t)); s != WM_OK) return fail(s, "turn '" + text + "': " + last_error);
    }
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

}  // extern "C"
