// The AOI scene: an MMO world's players through the AOI tick, a selected player's area of interest; with
// --connect HOST:PORT, a live warpmind-server's players instead (observer.h).
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#if WARPMIND_HAVE_OBSERVER
#include "observer.h"
#endif

namespace warpmind::demos {

namespace {

// Players of an MMO world moving and fighting through the AOI tick: the bucket grid, a selected
// player's area of interest, the notifications it receives this tick (lines to their subjects) and its
// enter (green) and leave (red) events.
//
// Connected to a server (AppOptions::connect), the scene simulates nothing: each frame services the
// observer connection without waiting (a bounded number of ENet events) and draws the latest snapshot —
// the server's players, its bucket grid, the selected player's AOI by the module's rule and lines to the
// players in it. Pause and ticks per frame do not apply (the server keeps its own pace).
class AoiScene : public Scene {
 public:
  explicit AoiScene(const AppOptions& o)
      : connect_(o.connect),
        observer_key_(o.observer_key),
        server_key_(o.server_key),
        clients_(static_cast<int>(std::min<std::size_t>(o.battle.units_per_army * 4, 200000))),
        seed_(o.battle.seed) {}
  const char* name() const override { return "aoi"; }
  Status reset(Context& ctx) override {
#if WARPMIND_HAVE_OBSERVER
    if (!connect_.empty()) return reset_observer();
#endif
    world_.reset();
    aoi::AoiConfig c;
    c.world = {0, 0, static_cast<float>(map_), static_cast<float>(map_)};
    c.aoi = c.max_move = c.attack_range = aoi_;
    c.max_move = aoi_ * 0.3f;
    c.shape = shape_;
    c.variant = variant_;
    WM_RETURN_IF_ERROR(aoi::AoiWorld::create(ctx, c, world_));
    is_gpu_ = world_->variant() == aoi::AoiVariant::GpuSorted || world_->variant() == aoi::AoiVariant::GpuFast;
    WM_RETURN_IF_ERROR(
        world_->reset(aoi::generate_players(static_cast<std::size_t>(clients_), c.world, hot_spots_, seed_)));
    tick_ = 0;
    selected_ = 0;
    result_ = {};
    return Status::Ok();
  }
  Status step(Context& ctx) override {
    if (!connect_.empty()) return Status::Ok();  // the server ticks; frame() takes what it sends
    aoi::CommandSpec spec;
    spec.attack_share = attack_share_;
    spec.seed = seed_;
    aoi::make_commands(spec, world_->config(), ctx.pool(), world_->players().size(), tick_++, commands_);
    return world_->tick(commands_, result_);
  }
  bool panel() override {
#if WARPMIND_HAVE_OBSERVER
    if (!connect_.empty()) return observer_panel();
#endif
    bool dirty = ImGui::SliderInt("clients", &clients_, 100, 200000, "%d", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::SliderInt("map size", &map_, 100, 5000);
    dirty |= ImGui::SliderFloat("AOI size", &aoi_, 2.0f, 100.0f);
    dirty |= ImGui::SliderInt("hot spots", &hot_spots_, 0, 16);
    const aoi::AoiShape shapes[] = {aoi::AoiShape::Square, aoi::AoiShape::Circle};
    dirty |= combo("AOI shape", shape_, shapes, aoi::shape_name);
    const aoi::AoiVariant variants[] = {aoi::AoiVariant::Auto, aoi::AoiVariant::CpuGrid, aoi::AoiVariant::CpuFast,
                                        aoi::AoiVariant::GpuSorted, aoi::AoiVariant::GpuFast};
    dirty |= combo("AOI variant", variant_, variants, aoi::variant_name);
    ImGui::SliderFloat("attack share", &attack_share_, 0.0f, 1.0f);
    if (world_) {
      std::size_t rejected = 0;
      for (std::size_t k : result_.rejected) rejected += k;
      ImGui::TextWrapped("%s: %zu updates, %zu notifications, %zu entered, %zu left, %zu rejected",
                         aoi::variant_name(world_->variant()), result_.updates.size(), result_.notifications.size(),
                         result_.entered.size(), result_.left.size(), rejected);
      ImGui::TextWrapped("selected player %u (left click selects): %zu notifications this tick", selected_, mine_);
    }
    return dirty;
  }
  void click(Vec2 p, int button) override {
    // The player nearest to p (players.size() when there is none).
    const auto nearest = [p](std::span<const aoi::Player> players) {
      std::size_t at = players.size();
      float best = INFINITY;
      for (std::size_t i = 0; i < players.size(); ++i) {
        const float dx = players[i].x - p.x, dy = players[i].y - p.y;
        if (dx * dx + dy * dy < best) best = dx * dx + dy * dy, at = i;
      }
      return at;
    };
#if WARPMIND_HAVE_OBSERVER
    if (!connect_.empty()) {
      if (button != 0 || !observer_) return;
      if (const std::size_t i = nearest(observer_->players()); i < observer_->ids().size()) {
        selected_ = observer_->ids()[i];
        auto_select_ = false;
      }
      return;
    }
#endif
    if (button != 0 || !world_) return;
    if (const std::size_t i = nearest(world_->players()); i < world_->players().size())
      selected_ = static_cast<std::uint32_t>(i);
  }
  void frame(SceneFrame& f, bool grid) override {
#if WARPMIND_HAVE_OBSERVER
    if (!connect_.empty()) return observer_frame(f);
#endif
    if (!world_) return;
    const aoi::AoiConfig& c = world_->config();
    f.world = c.world;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    const auto players = world_->players();
    f.units.resize(players.size());
    const float r = std::max(0.3f, c.aoi * 0.12f);
    for (std::size_t i = 0; i < players.size(); ++i) {
      const float life = std::clamp(static_cast<float>(players[i].hp) / 100.0f, 0.0f, 1.0f);
      f.units[i] = {players[i].x, players[i].y, r,
                    rgba(static_cast<int>(255 * (1 - life)), static_cast<int>(80 + 175 * life), 90)};
    }
    if (selected_ >= players.size()) return;
    const aoi::Player& me = players[selected_];
    f.units.push_back({me.x, me.y, r * 2.5f, rgba(255, 240, 80)});  // drawn last: on top
    if (grid) grid_lines(f, c.aoi);
    // The selected player's AOI.
    const std::uint32_t yellow = rgba(255, 230, 90, 220);
    if (c.shape == aoi::AoiShape::Square) {
      const float bx = std::floor((me.x - c.world.x0) / c.aoi), by = std::floor((me.y - c.world.y0) / c.aoi);
      f.rect(c.world.x0 + (bx - 1) * c.aoi, c.world.y0 + (by - 1) * c.aoi, c.world.x0 + (bx + 2) * c.aoi,
             c.world.y0 + (by + 2) * c.aoi, yellow);
    } else {
      for (int k = 0; k < 48; ++k) {
        const float a0 = 6.2831853f * k / 48, a1 = 6.2831853f * (k + 1) / 48;
        f.line(me.x + c.aoi * std::cos(a0), me.y + c.aoi * std::sin(a0), me.x + c.aoi * std::cos(a1),
               me.y + c.aoi * std::sin(a1), yellow);
      }
    }
    // Notifications to the selected player this tick: a line to each subject (sorted by receiver, so
    // they are one run).
    const auto& n = result_.notifications;
    auto lo = std::lower_bound(n.begin(), n.end(), selected_,
                               [](const aoi::Notification& a, std::uint32_t r) { return a.receiver < r; });
    mine_ = 0;
    for (auto it = lo; it != n.end() && it->receiver == selected_; ++it, ++mine_)
      if (it->subject != selected_ && (it == lo || std::prev(it)->subject != it->subject))
        f.line(me.x, me.y, players[it->subject].x, players[it->subject].y, rgba(120, 180, 255, 200));
    for (const aoi::VisibilityEvent& e : result_.entered)
      if (e.receiver == selected_) f.line(me.x, me.y, players[e.other].x, players[e.other].y, rgba(80, 255, 80));
    for (const aoi::VisibilityEvent& e : result_.left)
      if (e.receiver == selected_) f.line(me.x, me.y, players[e.other].x, players[e.other].y, rgba(255, 60, 60));
  }
  void stages(std::vector<Stage>& out) const override {
    if (!connect_.empty()) {
      out = {{"network", network_ms_}};
      return;
    }
    out = {{"upload", result_.ms_upload},          {"logic", result_.ms_logic},
           {"bucket sort", result_.ms_sort},       {"range query", result_.ms_query - (is_gpu_ ? 0 : result_.ms_sort)},
           {"enter/leave", result_.ms_visibility}, {"download", result_.ms_download}};
  }
  std::string summary() const override {
#if WARPMIND_HAVE_OBSERVER
    if (!connect_.empty()) {
      if (!observer_) return "aoi: " + connect_ + " not connected";
      return "aoi: " + connect_ + " " + observer_state_name(observer_->state()) + ", tick " +
             std::to_string(observer_->tick()) + ", " + std::to_string(observer_->players().size()) + " players, " +
             std::to_string(observer_->snapshots()) + " snapshots";
    }
#endif
    return "aoi: " + std::to_string(world_ ? world_->players().size() : 0) + " players, tick " + std::to_string(tick_) +
           ", " + std::to_string(result_.notifications.size()) + " notifications";
  }

#if WARPMIND_HAVE_OBSERVER
  std::string stats() const override {
    if (connect_.empty() || !observer_) return {};
    return "\"connect\": " + observer_->stats_json() + ", \"selected\": " + std::to_string(selected_) +
           ", \"in_aoi\": " + std::to_string(observed_aoi(*observer_, selected_).size());
  }
#endif

 private:
#if WARPMIND_HAVE_OBSERVER
  // A new connection unless the current one is still up (a reset also comes from the panel, to fit the
  // view once the Welcome has said where the map is).
  Status reset_observer() {
    const bool live =
        observer_ && (observer_->state() == ObserverState::Connecting || observer_->state() == ObserverState::Waiting ||
                      observer_->state() == ObserverState::Watching);
    if (live && !reconnect_) return Status::Ok();
    reconnect_ = false;
    if (observer_) observer_->close(0);
    const std::string err = ServerObserver::open(connect_, observer_key_, server_key_, observer_);
    if (!err.empty()) return Status::Unavailable(err);
    fitted_ = false;
    auto_select_ = true;
    return Status::Ok();
  }
  bool observer_panel() {
    if (!observer_) {
      ImGui::TextWrapped("server %s: not connected", connect_.c_str());
      reconnect_ = ImGui::Button("reconnect");
      return reconnect_;
    }
    const ServerObserver& o = *observer_;
    ImGui::TextWrapped("server %s: %s%s%s", o.address().c_str(), observer_state_name(o.state()),
                       o.reason().empty() ? "" : " - ", o.reason().c_str());
    if (o.welcomed()) {
      const ObservedWorld& w = o.world();
      ImGui::TextWrapped("map %.0f x %.0f, AOI %.1f (%s), %u ticks/s", w.map, w.map, w.aoi.aoi,
                         aoi::shape_name(w.aoi.shape), w.tick_hz);
      ImGui::TextWrapped("tick %llu, %zu players, %.0f snapshots/s (%llu in all), last %.2f s ago",
                         static_cast<unsigned long long>(o.tick()), o.players().size(), o.snapshots_per_second(),
                         static_cast<unsigned long long>(o.snapshots()), std::max(0.0, o.last_snapshot_age_s()));
    }
    ImGui::TextWrapped("bad packets %llu", static_cast<unsigned long long>(o.bad_packets()));
    int id = static_cast<int>(selected_);
    if (ImGui::InputInt("player id", &id) && id >= 0) {
      selected_ = static_cast<std::uint32_t>(id);
      auto_select_ = false;
    }
    const auto ids = o.ids();
    if (std::binary_search(ids.begin(), ids.end(), selected_))
      ImGui::TextWrapped("player %u (left click selects): %zu players in its AOI, itself included", selected_, in_aoi_);
    else
      ImGui::TextWrapped("player %u is not in the game", selected_);
    reconnect_ = ImGui::Button("reconnect");
    // Once the Welcome says where the map is: a reset, which keeps the connection and fits the view.
    const bool refit = o.welcomed() && !fitted_;
    fitted_ |= refit;
    return reconnect_ || refit;
  }
  void observer_frame(SceneFrame& f) {
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units.clear();
    if (!observer_) return;
    const auto t0 = Clock::now();
    observer_->poll();
    network_ms_ = ms_since(t0);
    const auto ids = observer_->ids();
    if (auto_select_ && !ids.empty() && !std::binary_search(ids.begin(), ids.end(), selected_)) selected_ = ids[0];
    f.world = observed_view(*observer_);
    draw_observed(*observer_, selected_, f.units, f.lines);
    in_aoi_ = observed_aoi(*observer_, selected_).size();
  }

  std::unique_ptr<ServerObserver> observer_;
  bool reconnect_ = false, fitted_ = false, auto_select_ = true;
  std::size_t in_aoi_ = 0;
#endif
  std::string connect_;       // HOST:PORT of a server to watch; empty: the scene's own world
  std::string observer_key_;  // the key its Observe carries (--observer-key-file)
  std::string server_key_;    // the public key its Keys must carry (--server-key; empty: any)
  double network_ms_ = 0;
  bool is_gpu_ = false;  // GPU times per stage: the sort is not inside the query
  int clients_, map_ = 1000, hot_spots_ = 3;
  float aoi_ = 20.0f, attack_share_ = 0.2f;
  std::uint64_t seed_;
  aoi::AoiShape shape_ = aoi::AoiShape::Square;
  aoi::AoiVariant variant_ = aoi::AoiVariant::Auto;
  std::unique_ptr<aoi::AoiWorld> world_;
  std::vector<aoi::Command> commands_;
  aoi::TickResult result_;
  std::uint32_t selected_ = 0;
  std::size_t mine_ = 0;
  std::uint64_t tick_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_aoi_scene(const AppOptions& o) { return std::make_unique<AoiScene>(o); }

}  // namespace warpmind::demos
