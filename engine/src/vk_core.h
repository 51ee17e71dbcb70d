// Internal to the engine: the Vulkan objects both renderers share — instance, device, queue, command
// pool, memory helpers — and the scene: heat-map, fill (triangles), disc and line pipelines (dynamic viewport, so a
// resized target needs no new pipeline), the heat texture, the unit and line vertex buffers. A front
// end (offscreen image or window swapchain) owns the render pass and the frame loop and calls
// prepare() before recording and begin_scene() to record the frame into its render pass.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#include "warpmind/engine/renderer.h"

namespace warpmind::engine::detail {

std::string vk_error(VkResult r, const char* what);

#define WM_VK(call)                                                                     \
  do {                                                                                  \
    VkResult wm_r_ = (call);                                                            \
    if (wm_r_ != VK_SUCCESS) return ::warpmind::engine::detail::vk_error(wm_r_, #call); \
  } while (0)

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  int w = 0, h = 0;
};

struct CoreOptions {
  std::vector<const char*> instance_extensions;
  bool swapchain = false;  // enable VK_KHR_swapchain and pick a queue family that can present
  VkSurfaceKHR (*make_surface)(VkInstance, void* user) = nullptr;  // called once the instance exists
  void* user = nullptr;
};

class Core {
 public:
  Core() = default;
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;
  ~Core();

  std::string init(const CoreOptions& options);
  // A render pass with one colour attachment of `format`, cleared, left in `final_layout`: PRESENT_SRC
  // for a swapchain (waits for the image to be acquired), else TRANSFER_SRC for a read-back.
  std::string make_render_pass(VkFormat format, VkImageLayout final_layout, VkRenderPass& out);
  // Pipelines for `pass` (one colour attachment of any size).
  std::string init_scene(VkRenderPass pass);
  // Checks the frame and copies its data into host-visible staging (growing buffers as needed).
  // Waits for the device when a buffer must grow. Call with no frame of this core in flight.
  std::string prepare(const Frame& f);
  // Resets and begins `c`, records the uploads, begins `pass` on `framebuffer` (cleared) and draws the
  // scene; the caller may draw more, then ends the pass and the command buffer.
  std::string begin_scene(VkCommandBuffer c, VkRenderPass pass, VkFramebuffer framebuffer, int width, int height,
                          const Frame& f);

  // A device-local buffer of w * h floats whose memory is exported as an opaque fd (SharedHeat).
  std::string share_heat(int w, int h, SharedHeat& out);
  void wait_idle() const {
    if (device) vkDeviceWaitIdle(device);
  }

  std::string make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, Buffer& b);
  void free_buffer(Buffer& b);
  std::string make_image(int w, int h, VkFormat format, VkImageUsageFlags usage, Image& img);
  void free_image(Image& img);

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t queue_family = 0;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::string device_name;
  int validation_messages = 0;  // warnings and errors reported by the validation layer
  bool can_export = false;      // VK_KHR_external_memory_fd enabled

 private:
  std::string memory_type(std::uint32_t bits, VkMemoryPropertyFlags flags, std::uint32_t& out) const;
  std::string allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags flags, VkDeviceMemory& out);
  std::string ensure_heat(int w, int h);
  std::string ensure_vertices(Buffer& b, std::size_t bytes);
  void record_uploads(VkCommandBuffer c, const Frame& f);
  void record_draws(VkCommandBuffer c, const Frame& f, int width, int height);

  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties mem_props_{};
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline heat_pipeline_ = VK_NULL_HANDLE, disc_pipeline_ = VK_NULL_HANDLE, line_pipeline_ = VK_NULL_HANDLE,
             fill_pipeline_ = VK_NULL_HANDLE;
  VkSampler sampler_ = VK_NULL_HANDLE;
  Image heat_;                    // R32_SFLOAT
  Buffer heat_staging_;           // host-visible
  Buffer units_, lines_, fills_;  // host-visible vertex buffers
  Buffer shared_;                 // device-local, exported (share_heat)
  int shared_w_ = 0, shared_h_ = 0;
};

}  // namespace warpmind::engine::detail
