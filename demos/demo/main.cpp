// warpmind-demo — the library at work. With a display: a window with the battle, crowd and field scenes
// and ImGui panels (app.h). Headless (--headless, or no display): the battle rendered offscreen to PNG
// frames (on a render thread, beside the next frame's ticks) and a stats summary.
// With --connect HOST:PORT the AOI scene watches a live warpmind-server instead (observer.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "app.h"
#include "battle.h"
#include "chess_table.h"
#include "connect6_table.h"
#include "flags.h"
#if WARPMIND_HEAT_INTEROP
#include "heat_interop.h"
#endif
#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/engine/image.h"
#include "warpmind/engine/renderer.h"
#if WARPMIND_HAVE_WINDOW
#include "warpmind/engine/window.h"
#endif
#include "warpmind/field/field.h"
#if WARPMIND_HAVE_OBSERVER
#include "observer.h"
#endif
#include "output.h"
#include "stats.h"

namespace {

using namespace warpmind;
using demos::median;
using Clock = std::chrono::steady_clock;

constexpr demos::Refusal bad{"warpmind-demo"};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A board scene headless: the picture rendered to OUT/frame-0000.png, `stats` (a JSON object's fields)
// to OUT/stats.json.
int render_board(const demos::BoardPicture& pic, int w, int h, const std::string& out, const std::string& stats) {
  std::unique_ptr<engine::OffscreenRenderer> renderer;
  std::string err = engine::OffscreenRenderer::create(w, h, renderer);
  if (!err.empty()) return bad(err);
  engine::Frame f;
  const float aspect = static_cast<float>(w) / static_cast<float>(h);
  const float cx = pic.area.x0 + pic.area.width / 2, cy = pic.area.y0 + pic.area.height / 2;
  const float span = std::max(pic.area.height, pic.area.width / aspect);
  f.camera = {cx - span * aspect / 2, cy - span / 2, cx + span * aspect / 2, cy + span / 2};
  f.fills = pic.fills.data();
  f.fill_vertex_count = pic.fills.size();
  f.units = pic.discs.data();
  f.unit_count = pic.discs.size();
  f.lines = pic.lines.data();
  f.line_vertex_count = pic.lines.size();
  std::vector<std::uint8_t> rgba;
  err = renderer->render(f, rgba);
  if (err.empty()) err = engine::write_png(out + "/frame-0000.png", w, h, rgba.data());
  if (err.empty())
    err = demos::write_file(out + "/stats.json",
                            "{" + stats + ", \"renderer\": \"" + demos::json_escape(renderer->device_name()) + "\"}\n");
  if (!err.empty()) return bad(err);
  return 0;
}

// The computer's last search, for stats.json.
std::string thinking_json(const demos::Thinking& th) {
  return ", \"computer\": {\"search\": \"" +
         std::string(th.search == demos::AiSearch::Hybrid ? "hybrid" : "alphabeta") +
         "\", \"on_gpu\": " + (th.on_gpu ? "true" : "false") + ", \"depth\": " + std::to_string(th.depth) +
         ", \"score\": " + std::to_string(th.score) + ", \"nodes\": " + std::to_string(th.nodes) +
         ", \"time_ms\": " + std::to_string(th.time_ms) +
         ", \"batched_nodes\": " + std::to_string(th.hybrid.batched_leaves + th.hybrid.batched_branches) +
         ", \"note\": \"" + demos::json_escape(th.backend_note) + "\"}";
}

// The chess scene headless: the computer makes `plays` moves, then the board is drawn.
int render_chess(demos::ChessTable& table, int plays, int ai_time, int w, int h, const std::string& out) {
  namespace chess = search::chess;
  table.ai().time_ms = ai_time;
  for (int k = 0; k < plays && !table.over(); ++k) {
    table.set_player(table.position().side, demos::Player::Computer);
    table.wait_for_computer();
  }
  for (chess::Color c : {chess::White, chess::Black}) table.set_player(c, demos::Player::Person);
  demos::BoardPicture pic;
  table.draw(pic, false);
  const int rc =
      render_board(pic, w, h, out,
                   "\"scene\": \"chess\", \"fen\": \"" + demos::json_escape(table.fen()) + "\", \"moves\": \"" +
                       table.moves_text() + "\", \"over\": " + (table.over() ? "true" : "false") + ", \"status\": \"" +
                       demos::json_escape(table.status()) + "\"" + thinking_json(table.thinking_info()));
  if (rc == 0)
    std::printf("warpmind-demo: chess, %zu moves, %s; %s/frame-0000.png\n", table.moves().size(),
                table.status().c_str(), out.c_str());
  return rc;
}

// The connect6 scene headless: the computer plays `plays` turns, then the board is drawn.
int render_connect6(demos::Connect6Table& table, int plays, int ai_time, int w, int h, const std::string& out) {
  namespace c6 = search::connect6;
  table.ai().time_ms = ai_time;
  for (int k = 0; k < plays && !table.over(); ++k) {
    table.set_player(table.board().to_move(), demos::Player::Computer);
    table.wait_for_computer();
  }
  for (c6::Stone s : {c6::BlackStone, c6::WhiteStone}) table.set_player(s, demos::Player::Person);
  demos::BoardPicture pic;
  table.draw(pic);
  const int rc = render_board(pic, w, h, out,
                              "\"scene\": \"connect6\", \"turns\": \"" + table.turns_text() +
                                  "\", \"over\": " + (table.over() ? "true" : "false") + ", \"status\": \"" +
                                  demos::json_escape(table.status()) + "\"" + thinking_json(table.thinking_info()));
  if (rc == 0)
    std::printf("warpmind-demo: connect6, %zu turns, %s; %s/frame-0000.png\n", table.turns().size(),
                table.status().c_str(), out.c_str());
  return rc;
}

#if WARPMIND_HAVE_OBSERVER
// The AOI scene headless, watching the warpmind-server at `address` (docs/server.md, "Watching a
// server"): waits for the Welcome and a first Snapshot (the observer gives up after 5 s without an
// answer, 5 s more without a Welcome), then renders `frames` frames, one every `per_frame` server ticks,
// servicing the connection between them without blocking. stats.json gets a "connect" object. Exit 2
// with the reason when the server was never watched (unreachable, refused, no Welcome); a disconnect
// after that is recorded in stats.json and the remaining frames show the last snapshot.
int render_observed(const std::string& address, const std::string& key, const std::string& server_key, int frames,
                    int per_frame, int save_every, int w, int h, const std::string& out) {
  std::unique_ptr<engine::OffscreenRenderer> renderer;
  std::string err = engine::OffscreenRenderer::create(w, h, renderer);
  if (!err.empty()) return bad(err + " (install Mesa's Vulkan drivers: scripts/setup.sh)");
  std::unique_ptr<demos::ServerObserver> obs;
  err = demos::ServerObserver::open(address, key, server_key, obs);
  if (!err.empty()) return bad(err);
  std::uint32_t selected = 0;
  const auto stats = [&](int drawn) {
    const std::string e = demos::write_file(
        out + "/stats.json", "{\"scene\": \"aoi\", \"frames\": " + std::to_string(drawn) + ", \"renderer\": \"" +
                                 demos::json_escape(renderer->device_name()) +
                                 "\", \"selected\": " + std::to_string(selected) +
                                 ", \"in_aoi\": " + std::to_string(demos::observed_aoi(*obs, selected).size()) +
                                 ", \"connect\": " + obs->stats_json() + "}\n");
    if (!e.empty()) std::fprintf(stderr, "warpmind-demo: %s\n", e.c_str());
  };
  const auto pump_until = [&](auto done, double seconds) {
    for (const auto until = Clock::now() + std::chrono::duration<double>(seconds); Clock::now() < until;) {
      obs->poll();
      if (done()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  };
  const auto over = [&] {
    const demos::ObserverState s = obs->state();
    return s == demos::ObserverState::Refused || s == demos::ObserverState::Disconnected ||
           s == demos::ObserverState::Failed;
  };
  pump_until([&] { return over() || obs->snapshots() > 0; }, 3 * demos::kObserverTimeoutS);
  if (!obs->welcomed() || obs->snapshots() == 0) {
    stats(0);
    return bad("--connect " + address + ": " +
               (obs->reason().empty() ? std::string("no snapshot from the server") : obs->reason()));
  }
  std::vector<std::uint8_t> rgba;
  const double period = static_cast<double>(per_frame) / std::max<std::uint32_t>(1, obs->world().tick_hz);
  const float aspect = static_cast<float>(w) / static_cast<float>(h);
  for (int f = 0; f < frames; ++f) {
    if (f > 0) pump_until([] { return false; }, period);
    const auto ids = obs->ids();
    if (!ids.empty() && !std::binary_search(ids.begin(), ids.end(), selected)) selected = ids[0];
    std::vector<engine::UnitInstance> units;
    std::vector<engine::LineVertex> lines;
    demos::draw_observed(*obs, selected, units, lines);
    const WorldRect v = demos::observed_view(*obs);
    const float cx = v.x0 + v.width / 2, cy = v.y0 + v.height / 2;
    const float span = std::max(v.height, v.width / aspect) * 1.05f;
    engine::Frame fr;
    fr.camera = {cx - span * aspect / 2, cy - span / 2, cx + span * aspect / 2, cy + span / 2};
    fr.units = units.data();
    fr.unit_count = units.size();
    fr.lines = lines.data();
    fr.line_vertex_count = lines.size();
    err = renderer->render(fr, rgba);
    if (err.empty() && (f % save_every == 0 || f == frames - 1)) {
      char name[64];
      std::snprintf(name, sizeof name, "/frame-%04d.png", f);
      err = engine::write_png(out + name, w, h, rgba.data());
    }
    if (!err.empty()) return bad(err);
  }
  stats(frames);
  std::printf(
      "warpmind-demo: aoi, watching %s: %s, tick %llu, %zu players, %llu snapshots, %llu bad packets; "
      "%d frames in %s\n",
      address.c_str(), demos::observer_state_name(obs->state()), static_cast<unsigned long long>(obs->tick()),
      obs->players().size(), static_cast<unsigned long long>(obs->snapshots()),
      static_cast<unsigned long long>(obs->bad_packets()), frames, out.c_str());
  obs->close(0.2);
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Two armies on a map with walls: navigation fields around the walls, potential-field layers per team, "
      "best-neighbour moves, collision-checked crowd movement, combat until one army is gone. In a window (the "
      "default when there is a display) with ImGui panels and the crowd, field, nav, aoi, regions, chess and "
      "connect6 scenes too; headless, rendered offscreen "
      "to PNG frames and stats.json. The aoi scene can watch a live warpmind-server instead (--connect).",
      "warpmind-demo");
  demos::configure(app);
  app.footer("window keys: space pause, n single step, F12/p screenshot, Esc quit; wheel zoom, right drag pan");
  bool headless = false, want_window = false, no_interop = false, no_nav = false, nav_8 = false;
  std::string connect, observer_key_file, observer_key, server_key,
      scene = "battle", fen, moves, ai_search = "alphabeta", out = "out/demo", map_file, size = "768x768",
      crowd_layout = "lattice", nav_map;
  int frames = 0, per_frame = 5, plays = 0, ai_time = 200, save_every = 1;
  std::size_t units = 600;
  std::uint64_t seed = 1;
  int map = 0, resolution = 256;
  float sight = 60, gap = 60, heat_range = 300;
  demos::ContextFlags context;
  demos::add_flag(app, "--headless", headless, "render offscreen to PNG (the default without a display)");
  demos::add_flag(app, "--window", want_window, "open a window or fail");
  demos::add_choice(app, "--scene", scene, {"battle", "crowd", "field", "nav", "aoi", "regions", "chess", "connect6"},
                    "the scene; headless: battle, chess or connect6, or aoi with --connect");
  demos::add_choice(app, "--crowd-layout", crowd_layout, {"lattice", "bottleneck", "corridor", "crossing"},
                    "crowd scene: a lattice walking to a clicked goal, or a standard scenario (docs/crowd.md), "
                    "which starts in Avoid mode");
  demos::add_text(app, "--nav-map", nav_map, "FILE",
                  "nav scene: a Moving AI map (.map or gzip-compressed .map.gz; assets/maps/movingai holds ten) "
                  "instead of a generated one");
  demos::add_text(app, "--connect", connect, "HOST:PORT",
                  "aoi: watch the warpmind-server at HOST:PORT (its players, buckets, a chosen player's AOI) instead "
                  "of simulating; headless: a frame every --ticks-per-frame server ticks, exit 2 when it cannot be "
                  "reached within 5 s",
                  {}, "");
  demos::add_text(app, "--observer-key-file", observer_key_file, "FILE",
                  "with --connect: the server's observer key (the first line of FILE, 16 to 256 bytes), for a server "
                  "started with --observer-key-file",
                  {}, "none (a server without a key admits observers from loopback)");
  demos::add_text(app, "--server-key", server_key, "HEX",
                  "with --connect: the server's public key (64 hexadecimal digits, as warpmind-server prints it); a "
                  "server whose Keys carry another is left before the Observe (exit 2)",
                  {}, "none: any server's key is taken");
  demos::add_text(app, "--fen", fen, "F", "chess: the starting position", {}, "the start");
  demos::add_text(app, "--moves", moves, "\"M ...\"",
                  "chess: moves played from it, in UCI letters (e2e4 e7e5 ...); connect6: the turns from the empty "
                  "board in the protocol's letters (JJ KJKK ...)");
  demos::add_integer(app, "--ai-plays", plays, 0, 1000, "N",
                     "chess, connect6, headless: the computer makes the next N moves first, --ai-time ms each");
  demos::add_integer(app, "--ai-time", ai_time, 1, 600000, "MS", "chess, connect6: the computer's time per move");
  demos::add_choice(app, "--ai-search", ai_search, {"alphabeta", "hybrid"},
                    "chess, connect6: the computer's search; hybrid: its batches on --backend");
  demos::add_integer(app, "--frames", frames, 0, 100000, "N", "frames to render; headless: at least 1",
                     "headless 10; window: until closed");
  demos::add_integer(app, "--ticks-per-frame", per_frame, 1, 1000, "K", "headless: ticks between frames");
  demos::add_text(app, "--out", out, "DIR", "where frame-NNNN.png and stats.json go");
  demos::add_integer(app, "--units", units, 1, 50000, "N", "units per army");
  demos::add_text(app, "--map-file", map_file, "FILE", "walls and start row, in the format of assets/maps/battle.json",
                  {}, "that layout");
  demos::add_integer(app, "--map", map, 0, 4096, "M", "map side in world units, a multiple of 128",
                     "0: the smallest that fits");
  demos::add_integer(app, "--resolution", resolution, 16, 8192, "R", "field cells per map side");
  demos::add_number(app, "--sight", sight, 0.0, 1000.0, "S", "how far beyond weapon range enemies attract");
  demos::add_number(app, "--gap", gap, 2.0, 4000.0, "G", "distance between the armies' fronts at the start");
  demos::add_number(app, "--heat-range", heat_range, 1e-3, 1e9, "R",
                    "colour range +-R when the heat map comes straight from CUDA");
  demos::add_flag(app, "--no-interop", no_interop, "always take the heat map through the host");
  demos::add_flag(app, "--no-nav", no_nav,
                  "battle: no navigation fields (units follow the potential field alone, walls and all)");
  demos::add_flag(app, "--nav-8-directions", nav_8,
                  "battle: walkers step along the fields' 8 directions instead of straight to their waypoints");
  demos::add_integer(app, "--save-every", save_every, 1, 1000000, "K",
                     "write every K-th frame as PNG; the last frame is always written");
  demos::add_text(
      app, "--size", size, "WxH", "image or window size",
      [](const std::string& s) {
        int w = 0, h = 0;
        return std::sscanf(s.c_str(), "%dx%d", &w, &h) == 2 && w >= 16 && h >= 16 && w <= 8192 && h <= 8192
                   ? std::string()
                   : std::string("expected WxH between 16 and 8192");
      },
      "768x768; the window 1280x800");
  demos::add_context_flags(app, context, false);
  demos::add_integer(app, "--seed", seed, 0, INT64_MAX, "N", "the armies' placement");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;

  const bool display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  if (headless && want_window) return bad("--headless and --window exclude each other");
  if (app.count("--connect")) {
#if WARPMIND_HAVE_OBSERVER
    if (!app.count("--scene")) scene = "aoi";
    if (scene != "aoi") return bad("--connect: only with --scene aoi");
    if (const std::string e = demos::ServerObserver::check_address(connect); !e.empty()) return bad(e);
    if (!observer_key_file.empty())
      if (const std::string e = demos::ServerObserver::read_key(observer_key_file, observer_key); !e.empty())
        return bad(e);
    if (!server_key.empty())
      if (const std::string e = demos::ServerObserver::check_server_key(server_key); !e.empty()) return bad(e);
#else
    return bad("--connect is not available in this build (it needs ENet and FlatBuffers: scripts/setup.sh)");
#endif
  }
  if (app.count("--observer-key-file") && !app.count("--connect"))
    return bad("--observer-key-file: only with --connect");
  if (app.count("--server-key") && !app.count("--connect")) return bad("--server-key: only with --connect");
  const bool windowed = want_window || (!headless && display);
  if (!app.count("--frames"))
    frames = windowed ? 0 : 10;
  else if (!windowed && frames < 1)
    return bad("--frames: expected an integer in 1..100000, got '" + std::to_string(frames) + "'");
  int img_w = 768, img_h = 768;
  std::sscanf(size.c_str(), "%dx%d", &img_w, &img_h);  // checked when parsed
  ContextOptions co;
  co.backend = demos::backend_of(context);
  // The chess game to start from (checked before anything opens: bad input is exit 2 with the reason).
  std::unique_ptr<demos::ChessTable> chess_table;
  if (scene == "chess") {
    chess_table = std::make_unique<demos::ChessTable>();
    const Status cs = chess_table->start(fen, moves);
    if (!cs.ok()) return bad(cs.message());
  }
  std::unique_ptr<demos::Connect6Table> connect6_table;
  if (scene == "connect6") {
    connect6_table = std::make_unique<demos::Connect6Table>();
    const Status cs = connect6_table->start(moves);
    if (!cs.ok()) return bad(cs.message());
  }
  demos::BattleConfig bc;
  bc.units_per_army = units;
  bc.seed = seed;
  bc.map = map;
  bc.field_resolution = resolution;
  bc.sight = sight;
  bc.start_gap = gap;
  bc.nav = !no_nav;
  bc.nav_straight = !nav_8;
  if (app.count("--map-file")) {
    const Status ms = demos::load_battle_map(map_file, bc.layout);
    if (!ms.ok()) return bad(ms.message());
  }
  if (windowed) {
#if WARPMIND_HAVE_WINDOW
    std::unique_ptr<engine::Window> window;
    if (!app.count("--size")) img_w = 1280, img_h = 800;  // room for the panel beside the scene
    const std::string werr = engine::Window::create("warpmind demo", img_w, img_h, window);
    if (werr.empty()) {
      demos::AppOptions ao;
      ao.scene = scene;
      ao.backend = co.backend;
      ao.battle = bc;
      ao.frames = frames;
      ao.out = out;
      ao.fen = fen;
      ao.moves = moves;
      ao.interop = !no_interop;
      ao.cuda_device = co.cuda_device;
      ao.connect = connect;
      ao.observer_key = observer_key;
      ao.server_key = server_key;
      ao.crowd_layout = crowd_layout;
      ao.nav_map = nav_map;
      return demos::run_window(ao, *window);
    }
    if (want_window) return bad(werr);
    std::fprintf(stderr, "warpmind-demo: %s; running headless\n", werr.c_str());
#else
    if (want_window) return bad("this build has no window support (GLFW and Dear ImGui were not found)");
#endif
  }
  if (scene != "battle" && scene != "chess" && scene != "connect6" && connect.empty())
    return bad("--scene: headless runs the battle, chess or connect6, or aoi with --connect");
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return bad("--out: cannot create '" + out + "'");
#if WARPMIND_HAVE_OBSERVER
  if (!connect.empty())
    return render_observed(connect, observer_key, server_key, frames, per_frame, save_every, img_w, img_h, out);
#endif
  if (chess_table || connect6_table) {
    const std::string& kind = ai_search;
    demos::AiSettings& ai = chess_table ? static_cast<demos::AiSettings&>(chess_table->ai()) : connect6_table->ai();
    ai.search = kind == "hybrid" ? demos::AiSearch::Hybrid : demos::AiSearch::AlphaBeta;
    ai.backend = co.backend;  // where the hybrid's batches run
    return chess_table ? render_chess(*chess_table, plays, ai_time, img_w, img_h, out)
                       : render_connect6(*connect6_table, plays, ai_time, img_w, img_h, out);
  }

  std::unique_ptr<Context> ctx;
  Status st = Context::create(co, ctx);
  if (!st.ok()) return bad(st.message());
  std::unique_ptr<demos::Battle> battle;
  st = demos::Battle::create(*ctx, bc, battle);
  if (!st.ok()) return bad(st.message());
  const std::size_t start_units[2] = {battle->alive(0), battle->alive(1)};
  std::unique_ptr<engine::OffscreenRenderer> renderer;
  const std::string rerr = engine::OffscreenRenderer::create(img_w, img_h, renderer);
  if (!rerr.empty()) return bad(rerr + " (install Mesa's Vulkan drivers: scripts/setup.sh)");

  const int res = bc.field_resolution;
  const float kMap = static_cast<float>(battle->map());
  // The heat map: straight from the CUDA field buffer into Vulkan when both sit on one GPU (interop),
  // else downloaded and uploaded through the host. The interop path has no host copy to take the
  // colour range from, so it uses --heat-range.
  std::string heat_path = "upload";
  const float fixed_range = heat_range;
#if WARPMIND_HEAT_INTEROP
  std::unique_ptr<demos::HeatInterop> interop;
  if (ctx->cuda() && battle->layers().device_layer(0).data && !no_interop) {
    engine::SharedHeat shared;
    std::string ierr = renderer->share_heat(res, res, shared);
    if (ierr.empty()) ierr = demos::HeatInterop::open(shared, co.cuda_device, interop);
    if (ierr.empty())
      heat_path = "interop";
    else
      std::fprintf(stderr, "warpmind-demo: %s; the heat map goes through the host\n", ierr.c_str());
  }
#endif
  // Rendering overlaps the simulation. After frame f's ticks the main thread takes a snapshot (the unit
  // instances, and the heat map: into a host buffer on the upload path, into the renderer's shared buffer
  // with interop) and hands it to a render thread, which renders it and writes the PNG while the main
  // thread runs frame f+1's ticks. The renderer draws one frame at a time and the shared buffer is single,
  // so a snapshot is handed over (with interop: copied) only once the previous frame's render is joined;
  // the host buffers alternate, so building a snapshot does not wait for it.
  struct Snapshot {
    std::vector<float> heat;
    std::vector<engine::UnitInstance> units;
  };
  Snapshot snaps[2];
  for (Snapshot& s : snaps) s.heat.resize(static_cast<std::size_t>(res) * res);
  std::vector<std::uint8_t> rgba;  // the render thread's
  // t_render and t_png are appended to by the render thread and read only after its last frame is joined.
  std::vector<double> t_field, t_decide, t_crowd, t_combat, t_nav, t_tick, t_render, t_png;
  // The frame on the render thread (std::async: a thread per frame, one frame at a time); declared after
  // all it uses, so an early return waits for it first.
  std::future<std::string> rendering;
  const auto join_render = [&] { return rendering.valid() ? rendering.get() : std::string(); };
  const auto run0 = Clock::now();
  for (int f = 0; f < frames; ++f) {
    for (int k = 0; k < per_frame && battle->winner() < 0; ++k) {
      const auto tt = Clock::now();
      st = battle->tick();
      if (!st.ok()) return bad(st.message());
      t_tick.push_back(ms_since(tt));
      const demos::BattleTimes& bt = battle->last_times();
      t_field.push_back(bt.field_ms);
      t_decide.push_back(bt.decisions_ms);
      t_crowd.push_back(bt.crowd_ms);
      t_combat.push_back(bt.combat_ms);
      if (bt.nav_ms > 0) t_nav.push_back(bt.nav_ms);  // the ticks that computed the navigation fields
    }
    // The snapshot, into the buffers of frame f-2 (joined before frame f-1 was handed over).
    Snapshot& s = snaps[f % 2];
    if (heat_path == "upload") {
      st = battle->layers().read(0, s.heat);
      if (!st.ok()) return bad(st.message());
    }
    s.units.clear();
    const auto& pos = battle->positions();
    for (std::size_t i = 0; i < pos.size(); ++i) {
      // Team colour (RGBA, R in the low byte): cyan and pink, dimmed as health drops.
      const float life = std::clamp(battle->hp()[i] / bc.hp, 0.25f, 1.0f);
      const auto shade = [&](int v) { return static_cast<std::uint32_t>(v * life); };
      s.units.push_back({pos[i].x, pos[i].y, bc.unit_radius,
                         battle->teams()[i] == 0 ? (0xffu << 24) | (shade(255) << 16) | (shade(224) << 8) | shade(64)
                                                 : (0xffu << 24) | (shade(255) << 16) | (shade(112) << 8) | shade(255),
                         battle->facing()[i]});
    }
    std::string err = join_render();  // frame f-1: the renderer is free and reads the shared buffer no more
    if (!err.empty()) return bad(err);
#if WARPMIND_HEAT_INTEROP
    if (interop) {
      // Ordered after the ticks on the battle's stream; copy() waits for it, so the shared buffer is
      // complete before the render thread's submit reads it.
      const field::DeviceField dev = battle->layers().device_layer(0);
      err = interop->copy(dev.data, dev.stream);
      if (!err.empty()) return bad(err);
    }
#endif
    engine::Frame fr;
    fr.camera = {0, 0, kMap, kMap};
    fr.heat = s.heat.data();
    fr.heat_shared = heat_path == "interop";
    fr.heat_w = fr.heat_h = res;
    fr.heat_area = {0, 0, kMap, kMap};
    const float m = fr.heat_shared ? fixed_range : std::max(1.0f, *std::max_element(s.heat.begin(), s.heat.end()));
    fr.heat_lo = -m;
    fr.heat_hi = m;
    fr.units = s.units.data();
    fr.unit_count = s.units.size();
    const bool save = f % save_every == 0 || f == frames - 1;
    rendering = std::async(std::launch::async, [&, fr, f, save]() -> std::string {
      const auto t0 = Clock::now();
      std::string rerr = renderer->render(fr, rgba);
      if (!rerr.empty()) return rerr;
      t_render.push_back(ms_since(t0));
      if (!save) return {};
      const auto tp = Clock::now();
      char name[64];
      std::snprintf(name, sizeof name, "/frame-%04d.png", f);
      rerr = engine::write_png(out + name, img_w, img_h, rgba.data());
      t_png.push_back(ms_since(tp));
      return rerr;
    });
  }
  if (const std::string err = join_render(); !err.empty()) return bad(err);
  const double run_s = ms_since(run0) / 1e3;
  // Ticks per second of the whole loop, frames drawn and PNGs written: the render thread works beside the
  // ticks, so the slower of the two bounds it.
  const double with_render = run_s > 0 ? static_cast<double>(t_tick.size()) / run_s : 0.0;
  const int w = battle->winner();
  const std::string stats = demos::write_file(
      out + "/stats.json",
      "{\"units_at_start\": [" + std::to_string(start_units[0]) + ", " + std::to_string(start_units[1]) +
          "], \"units\": [" + std::to_string(battle->alive(0)) + ", " + std::to_string(battle->alive(1)) +
          "], \"ticks\": " + std::to_string(battle->ticks()) + ", \"frames\": " + std::to_string(frames) +
          ", \"winner\": " + std::to_string(w) + ", \"backend\": \"" + backend_name(ctx->backend()) +
          "\", \"field_variant\": \"" + field::variant_name(battle->layers().variant()) + "\", \"crowd_variant\": \"" +
          crowd::variant_name(battle->solver().variant()) + "\", \"renderer\": \"" +
          demos::json_escape(renderer->device_name()) + "\", \"heat_path\": \"" + heat_path + "\", \"overlaps\": " +
          std::to_string(battle->overlaps()) + ", \"median_ms\": {\"field\": " + std::to_string(median(t_field)) +
          ", \"decisions\": " + std::to_string(median(t_decide)) + ", \"crowd\": " + std::to_string(median(t_crowd)) +
          ", \"combat\": " + std::to_string(median(t_combat)) + ", \"nav\": " + std::to_string(median(t_nav)) +
          ", \"tick\": " + std::to_string(median(t_tick)) + ", \"render\": " + std::to_string(median(t_render)) +
          ", \"png\": " + std::to_string(median(t_png)) + "}, \"nav\": " + (bc.nav ? "true" : "false") +
          ", \"nav_every\": " + std::to_string(bc.nav_every) + ", \"map\": " + std::to_string(battle->map()) +
          ", \"field_resolution\": " + std::to_string(bc.field_resolution) +
          ", \"ticks_per_s\": " + std::to_string(median(t_tick) > 0 ? 1e3 / median(t_tick) : 0.0) +
          ", \"ticks_per_s_with_render\": " + std::to_string(with_render) + ", \"render_overlap\": true" +
          ", \"ticks_per_frame\": " + std::to_string(per_frame) + ", \"run_s\": " + std::to_string(run_s) + "}\n");
  if (!stats.empty()) return bad(stats);
  std::printf(
      "warpmind-demo: %lld ticks, armies %zu vs %zu%s, %d frames in %s (backend %s, renderer %s, heat map by %s)\n",
      battle->ticks(), battle->alive(0), battle->alive(1),
      w < 0 ? "" : (w == 2 ? ", draw" : (w == 0 ? ", team 0 won" : ", team 1 won")), frames, out.c_str(),
      backend_name(ctx->backend()), renderer->device_name().c_str(), heat_path.c_str());
  std::printf(
      "median ms per tick: field %.3f, decisions %.3f, crowd %.3f, combat %.3f = tick %.3f (%.0f ticks/s), "
      "navigation fields %.3f every %d ticks; "
      "per frame on the render thread: render %.2f, PNG %.1f; with a frame every %d ticks, rendered beside the "
      "ticks: %.0f ticks/s\n",
      median(t_field), median(t_decide), median(t_crowd), median(t_combat), median(t_tick),
      median(t_tick) > 0 ? 1e3 / median(t_tick) : 0.0, median(t_nav), bc.nav_every, median(t_render), median(t_png),
      per_frame, with_render);
  return 0;
}
