// warpmind::engine::Window — a GLFW window that draws a Frame (renderer.h: heat map, units, debug
// lines) and Dear ImGui on a Vulkan swapchain. Resizing recreates the swapchain; a minimised window
// skips drawing. The engine knows nothing of ai/: demos hand it plain arrays.
//
// Frame loop: begin_frame() (polls input, starts an ImGui frame) -> ImGui calls -> end_frame(frame)
// (draws and presents). Input is read through ImGui (ImGui::GetIO(), ImGui::IsKeyPressed with GLFW key
// codes). Not thread-safe. Errors are returned as text, never thrown.
//
// One frame in flight: end_frame() submits the frame and queues it for presenting without waiting for
// the GPU (except with `capture`); the next end_frame() or wait_frame() waits for it. So what the caller
// does between two end_frame() calls (a simulation's ticks) overlaps the GPU drawing the last frame.
#pragma once

#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "warpmind/engine/renderer.h"

namespace warpmind::engine {

class Window {
 public:
  // Fails (with the reason) when there is no display or no Vulkan device that can present to it.
  static std::string create(const std::string& title, int width, int height, std::unique_ptr<Window>& out);
  ~Window();

  bool should_close() const;
  void request_close();
  void begin_frame();
  // With `capture`: the frame as presented — the scene and the ImGui panels — is also copied back as
  // RGBA8, width() x height(), rows from the top (the call waits for the GPU then). Fails with the
  // reason where the swapchain's images cannot be copied from.
  std::string end_frame(const Frame& frame, std::vector<std::uint8_t>* capture = nullptr);

  int width() const;  // framebuffer size in pixels
  int height() const;
  const std::string& device_name() const;
  int validation_messages() const;  // validation-layer warnings and errors so far (0 when it is off)
  std::string share_heat(int w, int h, SharedHeat& out);  // as OffscreenRenderer::share_heat
  // Waits until the last end_frame()'s GPU work is done, e.g. before the shared heat buffer is written
  // for the next frame (that work reads it).
  void wait_frame();
  void wait_idle();

  struct Impl;

 private:
  Window() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::engine
