// The windowed demo (app.h): the camera, the panels and the frame loop; the scenes it runs are in
// scene_<name>.cpp, listed once in the registry of scenes.cpp (scene.h).
#include "app.h"

#include <GLFW/glfw3.h>  // key codes for ImGui::IsKeyPressed (Dear ImGui 1.86 uses the GLFW backend's codes)
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "output.h"
#include "scene.h"
#include "warpmind/engine/image.h"
#include "warpmind/engine/renderer.h"
#include "warpmind/engine/window.h"

#if WARPMIND_HEAT_INTEROP
#include "heat_interop.h"
#endif

namespace warpmind::demos {

namespace {

// ---- [SECTION] the app: camera, panels, frame loop -----------------------------------------------

struct Camera {
  float cx = 64, cy = 64, span = 128;  // centre and visible height in world units
  // The whole world in view, in the part of a width x height window right of the panel (`panel`
  // pixels; ignored when that would leave less than 40% of the width).
  void fit(const WorldRect& w, int width, int height, float panel = 400.0f) {
    const float fw = static_cast<float>(std::max(width, 1)), fh = static_cast<float>(std::max(height, 1));
    if (fw - panel < 0.4f * fw) panel = 0;
    const float scale = std::max(w.width / (fw - panel), w.height / fh) * 1.05f;  // world units per pixel
    span = scale * fh;
    cx = w.x0 + w.width / 2 - panel / 2 * scale;
    cy = w.y0 + w.height / 2;
  }
  engine::Rect rect(int width, int height) const {
    const float aspect = static_cast<float>(width) / static_cast<float>(std::max(height, 1));
    return {cx - span * aspect / 2, cy - span / 2, cx + span * aspect / 2, cy + span / 2};
  }
  Vec2 world(float px, float py, int width, int height) const {
    const engine::Rect r = rect(width, height);
    return {r.x0 + px / static_cast<float>(width) * (r.x1 - r.x0),
            r.y1 - py / static_cast<float>(height) * (r.y1 - r.y0)};
  }
};

// The last `kHistory` values of a stage, for ImGui::PlotLines.
constexpr int kHistory = 240;
struct History {
  std::vector<float> v = std::vector<float>(kHistory, 0.0f);
  int at = 0;
  void add(double x) {
    v[static_cast<std::size_t>(at)] = static_cast<float>(x);
    at = (at + 1) % kHistory;
  }
};

}  // namespace

int run_window(const AppOptions& o, engine::Window& window) {
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  Backend backend = o.backend;
  std::unique_ptr<Context> ctx;
  const auto open_context = [&]() -> Status {
    ContextOptions co;
    co.backend = backend;
    ctx.reset();
    return Context::create(co, ctx);
  };
  Status st = open_context();
  if (!st.ok()) {
    std::fprintf(stderr, "warpmind-demo: %s\n", st.message().c_str());
    return 1;
  }
  const std::span<const SceneInfo> scenes = scene_registry();
  std::vector<const char*> scene_labels;  // the selector's items
  for (const SceneInfo& s : scenes) scene_labels.push_back(s.label);
  const int scene_count = static_cast<int>(scenes.size());
  int scene_index = 0;
  for (int k = 0; k < scene_count; ++k)
    if (o.scene == scenes[k].name) scene_index = k;
  std::unique_ptr<Scene> scene = make_scene(scenes[scene_index].name, o);
  st = scene->reset(*ctx);
  if (!st.ok()) {
    std::fprintf(stderr, "warpmind-demo: %s\n", st.message().c_str());
    return 1;
  }
  SceneFrame sf;
  Camera cam;
  scene->frame(sf, false);
  cam.fit(sf.world, window.width(), window.height());
  bool paused = false, single = false, grid = false, shot = false, scene_shot = false;
  std::vector<std::uint8_t> pixels;
  AppOptions opts = o;      // the seed can change from the panel
  float heat_range = 0.0f;  // colour range of the heat map; 0: the largest |value| of the frame
  int speed = 1, frames = 0, shots = 0;
  std::string message;
  std::vector<Stage> stages;
  std::vector<History> history;
  History render_history;
  double render_ms = 0;
  std::unique_ptr<engine::OffscreenRenderer> offscreen;  // "scene only" screenshots: without the UI
  // The heat map: from the scene's device memory into the window's shared Vulkan buffer when the CUDA
  // GPU renders too (interop), else read to the host and uploaded. A failure turns interop off for the
  // run (the panel says why).
  bool shared_heat = false;
#if WARPMIND_HEAT_INTEROP
  std::unique_ptr<HeatInterop> interop;
  int interop_w = 0, interop_h = 0;
  bool interop_off = !o.interop;
  // Copies the frame's device heat map into the shared buffer (made or remade at its size); empty or why not.
  const auto share = [&](const SceneFrame& f) -> std::string {
    if (!interop || interop_w != f.heat_w || interop_h != f.heat_h) {
      interop.reset();  // its import of the old buffer goes before the buffer does
      engine::SharedHeat shared;
      std::string err = window.share_heat(f.heat_w, f.heat_h, shared);
      if (err.empty()) err = HeatInterop::open(shared, o.cuda_device, interop);
      if (!err.empty()) return err;
      interop_w = f.heat_w;
      interop_h = f.heat_h;
    }
    window.wait_frame();  // the last frame's copy out of the buffer is done
    return interop->copy(f.heat_device, f.heat_stream);
  };
#endif
  // The scene's frame; with `device_heat`, its heat map from device memory where it has one there.
  const auto scene_frame = [&](bool device_heat) {
    sf.lines.clear();
    sf.fills.clear();
    sf.device_heat_ok = device_heat;
    sf.heat_device = nullptr;
    sf.heat_stream = nullptr;
    scene->frame(sf, grid);
  };

  while (!window.should_close() && (o.frames == 0 || frames < o.frames)) {
    window.begin_frame();
    ImGuiIO& io = ImGui::GetIO();
    const int w = std::max(window.width(), 1), h = std::max(window.height(), 1);
    // Camera and clicks (when ImGui does not want the mouse).
    if (!io.WantCaptureMouse) {
      const float sx = io.DisplaySize.x > 0 ? static_cast<float>(w) / io.DisplaySize.x : 1.0f;
      const float sy = io.DisplaySize.y > 0 ? static_cast<float>(h) / io.DisplaySize.y : 1.0f;
      const Vec2 at = cam.world(io.MousePos.x * sx, io.MousePos.y * sy, w, h);
      if (io.MouseWheel != 0.0f) {
        const float k = std::pow(0.85f, io.MouseWheel);
        cam.cx = at.x + (cam.cx - at.x) * k;
        cam.cy = at.y + (cam.cy - at.y) * k;
        cam.span *= k;
      }
      if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle) || ImGui::IsMouseDragging(ImGuiMouseButton_Right, 2.0f)) {
        cam.cx -= io.MouseDelta.x * sx / static_cast<float>(h) * cam.span;
        cam.cy += io.MouseDelta.y * sy / static_cast<float>(h) * cam.span;
      }
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) scene->click(at, 0);
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Right) && io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Right] < 4.0f)
        scene->click(at, 1);
    }
    if (!io.WantCaptureKeyboard) {
      if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) paused = !paused;
      if (ImGui::IsKeyPressed(GLFW_KEY_N)) single = true;
      if (ImGui::IsKeyPressed(GLFW_KEY_F12) || ImGui::IsKeyPressed(GLFW_KEY_P)) shot = true;
      if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) window.request_close();
    }

    // Panels.
    bool reset = false;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(390, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("warpmind");
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 12.5f);  // room on the right for the labels
    if (ImGui::Combo("scene", &scene_index, scene_labels.data(), scene_count)) {
      scene = make_scene(scenes[scene_index].name, opts);
      reset = true;
    }
    int seed = static_cast<int>(opts.battle.seed);
    if (ImGui::InputInt("seed", &seed) && seed >= 0) {
      opts.battle.seed = static_cast<std::uint64_t>(seed);
      scene = make_scene(scenes[scene_index].name, opts);
      reset = true;
    }
    int b = backend == Backend::Cpu ? 1 : (backend == Backend::Cuda ? 2 : 0);
    const char* backends[] = {"auto", "cpu", "cuda"};
    if (ImGui::Combo("backend", &b, backends, 3)) {
      backend = b == 1 ? Backend::Cpu : (b == 2 ? Backend::Cuda : Backend::Auto);
      st = open_context();
      if (!st.ok()) {
        message = st.message();
        backend = Backend::Auto;
        st = open_context();
      }
      reset = true;
    }
    ImGui::TextWrapped("backend in use: %s%s", backend_name(ctx->backend()),
                       ctx->cuda() ? (" (" + ctx->device().name + ")").c_str() : "");
    ImGui::TextWrapped("renderer: %s; heat map by %s", window.device_name().c_str(),
                       shared_heat ? "CUDA-Vulkan interop (no host copy)" : "host upload");
    ImGui::Checkbox("pause (space)", &paused);
    ImGui::SameLine();
    if (ImGui::Button("step (n)")) single = true;
    ImGui::SameLine();
    if (ImGui::Button("reset")) reset = true;
    ImGui::SliderInt("ticks per frame", &speed, 1, 20);
    ImGui::SliderFloat("colour range (0: auto)", &heat_range, 0.0f, 2000.0f, "%.0f", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("grid lines", &grid);
    ImGui::SameLine();
    if (ImGui::Button("screenshot (F12)")) shot = true;
    ImGui::SameLine();
    if (ImGui::Button("scene only")) scene_shot = true;
    if (ImGui::Button("fit view")) cam.fit(sf.world, w, h);
    if (ImGui::CollapsingHeader(scene->name(), ImGuiTreeNodeFlags_DefaultOpen)) reset |= scene->panel();
    if (ImGui::CollapsingHeader("timings (ms)", ImGuiTreeNodeFlags_DefaultOpen)) {
      double total = 0;
      for (std::size_t i = 0; i < stages.size() && i < history.size(); ++i) {
        total += stages[i].ms;
        char label[64];
        std::snprintf(label, sizeof label, "%s %.3f", stages[i].name, stages[i].ms);
        ImGui::PlotLines(label, history[i].v.data(), kHistory, history[i].at, nullptr, 0.0f, FLT_MAX, ImVec2(0, 36));
      }
      char label[64];
      std::snprintf(label, sizeof label, "render %.3f", render_ms);
      ImGui::PlotLines(label, render_history.v.data(), kHistory, render_history.at, nullptr, 0.0f, FLT_MAX,
                       ImVec2(0, 36));
      ImGui::TextWrapped("tick total %.3f ms (%.0f ticks/s); %.0f fps", total, total > 0 ? 1e3 / total : 0.0,
                         io.Framerate);
    }
    if (!message.empty()) ImGui::TextWrapped("%s", message.c_str());
    ImGui::PopItemWidth();
    ImGui::End();

    if (reset) {
      st = scene->reset(*ctx);
      message = st.ok() ? std::string() : st.message();
      history.clear();
      stages.clear();
      if (st.ok()) {
        scene->frame(sf, grid);
        cam.fit(sf.world, window.width(), window.height());
      }
    }
    // Simulation. These ticks overlap the GPU drawing and presenting the last frame: end_frame() does not
    // wait for it; the next end_frame() does, or share()'s wait_frame() before the shared buffer is written.
    if (st.ok() && ((!paused && !scene->finished()) || single)) {
      for (int k = 0; k < (single ? 1 : speed) && st.ok(); ++k) st = scene->step(*ctx);
      single = false;
      if (!st.ok()) {
        message = st.message();
        paused = true;
      }
      scene->stages(stages);
      history.resize(stages.size());
      for (std::size_t i = 0; i < stages.size(); ++i) history[i].add(stages[i].ms);
    }
    // Render.
    const auto t0 = Clock::now();
    bool device_heat = false;
#if WARPMIND_HEAT_INTEROP
    device_heat = ctx->cuda() && !interop_off;
#endif
    if (st.ok()) scene_frame(device_heat);
    shared_heat = false;
#if WARPMIND_HEAT_INTEROP
    if (st.ok() && sf.heat_device) {
      const std::string ierr = share(sf);
      shared_heat = ierr.empty();
      if (!shared_heat) {
        interop.reset();
        interop_off = true;
        message = ierr + "; the heat map goes through the host";
        scene_frame(false);
      }
    }
#endif
    engine::Frame fr;
    fr.camera = cam.rect(w, h);
    fr.heat = sf.heat.empty() ? nullptr : sf.heat.data();
    fr.heat_shared = shared_heat;
    fr.heat_w = sf.heat_w;
    fr.heat_h = sf.heat_h;
    fr.heat_area = {sf.world.x0, sf.world.y0, sf.world.x0 + sf.world.width, sf.world.y0 + sf.world.height};
    fr.heat_lo = -(heat_range > 0 ? heat_range : sf.heat_range);
    fr.heat_hi = heat_range > 0 ? heat_range : sf.heat_range;
    fr.units = sf.units.data();
    fr.unit_count = sf.units.size();
    fr.fills = sf.fills.data();
    fr.fill_vertex_count = sf.fills.size();
    fr.lines = sf.lines.data();
    fr.line_vertex_count = sf.lines.size();
    // F12 and the last frame of --frames: this frame is copied back as presented.
    const bool last = o.frames > 0 && frames + 1 == o.frames;
    const bool capture = shot || last;
    pixels.clear();
    std::string err = window.end_frame(fr, capture ? &pixels : nullptr);
    if (!err.empty() && capture && err.rfind("window capture", 0) == 0) err.clear();  // the scene alone below
    const bool captured = capture && err.empty() && !pixels.empty();
    if (!err.empty()) {
      std::fprintf(stderr, "warpmind-demo: %s\n", err.c_str());
      return 1;
    }
    render_ms = ms_since(t0);
    render_history.add(render_ms);
    if (capture || scene_shot) {
      // screenshot-NNN.png: the window as presented, panels included (the scene alone where the
      // swapchain cannot be copied); scene-NNN.png ("scene only"): the scene offscreen, without the UI.
      if (!captured) {
        if (!offscreen || offscreen->width() != w || offscreen->height() != h) {
          offscreen.reset();
          err = engine::OffscreenRenderer::create(w, h, offscreen);
        }
        if (fr.heat_shared) {  // the offscreen renderer has no shared buffer: this shot's heat map from the host
          scene_frame(false);
          fr.heat = sf.heat.empty() ? nullptr : sf.heat.data();
          fr.heat_shared = false;
          fr.fills = sf.fills.data();
          fr.lines = sf.lines.data();
        }
        if (err.empty()) err = offscreen->render(fr, pixels);
      }
      char name[64];
      std::snprintf(name, sizeof name, "/%s-%03d.png", capture ? "screenshot" : "scene", shots++);
      if (err.empty())
        err = engine::write_png(o.out + name, captured ? window.width() : w, captured ? window.height() : h,
                                pixels.data());
      message = err.empty() ? "saved " + o.out + name : err;
      std::printf("warpmind-demo: %s\n", message.c_str());
      shot = scene_shot = false;
    }
    ++frames;
  }
  const int validation = window.validation_messages() + (offscreen ? offscreen->validation_messages() : 0);
  std::string stats = "{\"mode\": \"window\", \"scene\": \"" + std::string(scene->name()) +
                      "\", \"frames\": " + std::to_string(frames) + ", \"backend\": \"" + backend_name(ctx->backend()) +
                      "\", \"renderer\": \"" + json_escape(window.device_name()) + "\", \"summary\": \"" +
                      json_escape(scene->summary()) + "\", \"validation_messages\": " + std::to_string(validation) +
                      (scene->stats().empty() ? std::string() : ", " + scene->stats()) + "}\n";
  std::string err = write_file(o.out + "/stats.json", stats);
  if (!err.empty()) std::fprintf(stderr, "warpmind-demo: %s\n", err.c_str());
  std::printf("warpmind-demo: %d frames in a window (%s); %s\n", frames, window.device_name().c_str(),
              scene->summary().c_str());
  return st.ok() ? 0 : 1;
}

}  // namespace warpmind::demos
