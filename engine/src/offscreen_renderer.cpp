// Offscreen Vulkan renderer: the shared scene (vk_core.h) drawn in one render pass into an RGBA8 image,
// then copied into a host-visible buffer.
#include "warpmind/engine/renderer.h"

#include <cstring>

#include "vk_core.h"

namespace warpmind::engine {

using detail::Buffer;
using detail::Image;

namespace {
constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
}  // namespace

struct OffscreenRenderer::Impl {
  detail::Core core;
  int width = 0, height = 0;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  Image target;
  Buffer readback;  // host-visible
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;

  ~Impl();
  std::string init(int w, int h);
};

std::string OffscreenRenderer::Impl::init(int w, int h) {
  width = w;
  height = h;
  std::string err = core.init({});
  if (!err.empty()) return err;
  VkDevice device = core.device;
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = core.pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  WM_VK(vkAllocateCommandBuffers(device, &cai, &cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  WM_VK(vkCreateFence(device, &fci, nullptr, &fence));
  err = core.make_image(w, h, kColorFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        target);
  if (err.empty())
    err = core.make_buffer(static_cast<VkDeviceSize>(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, readback);
  if (!err.empty()) return err;

  err = core.make_render_pass(kColorFormat, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, render_pass);
  if (!err.empty()) return err;
  VkFramebufferCreateInfo fbi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fbi.renderPass = render_pass;
  fbi.attachmentCount = 1;
  fbi.pAttachments = &target.view;
  fbi.width = static_cast<std::uint32_t>(w);
  fbi.height = static_cast<std::uint32_t>(h);
  fbi.layers = 1;
  WM_VK(vkCreateFramebuffer(device, &fbi, nullptr, &framebuffer));
  return core.init_scene(render_pass);
}

OffscreenRenderer::Impl::~Impl() {
  VkDevice device = core.device;
  if (!device) return;
  vkDeviceWaitIdle(device);
  core.free_buffer(readback);
  core.free_image(target);
  if (framebuffer) vkDestroyFramebuffer(device, framebuffer, nullptr);
  if (render_pass) vkDestroyRenderPass(device, render_pass, nullptr);
  if (fence) vkDestroyFence(device, fence, nullptr);
}

std::string OffscreenRenderer::create(int width, int height, std::unique_ptr<OffscreenRenderer>& out) {
  if (width < 1 || height < 1 || width > 16384 || height > 16384) return "renderer: size must be 1..16384";
  std::unique_ptr<OffscreenRenderer> r(new OffscreenRenderer());
  r->impl_ = std::make_unique<Impl>();
  std::string err = r->impl_->init(width, height);
  if (!err.empty()) return "renderer: " + err;
  out = std::move(r);
  return {};
}

OffscreenRenderer::~OffscreenRenderer() = default;
int OffscreenRenderer::width() const { return impl_->width; }
int OffscreenRenderer::height() const { return impl_->height; }
const std::string& OffscreenRenderer::device_name() const { return impl_->core.device_name; }
int OffscreenRenderer::validation_messages() const { return impl_->core.validation_messages; }
std::string OffscreenRenderer::share_heat(int w, int h, SharedHeat& out) { return impl_->core.share_heat(w, h, out); }
void OffscreenRenderer::wait_idle() { impl_->core.wait_idle(); }

std::string OffscreenRenderer::render(const Frame& f, std::vector<std::uint8_t>& rgba) {
  Impl& im = *impl_;
  std::string err = im.core.prepare(f);
  if (!err.empty()) return err;
  VkCommandBuffer c = im.cmd;
  err = im.core.begin_scene(c, im.render_pass, im.framebuffer, im.width, im.height, f);
  if (!err.empty()) return err;
  vkCmdEndRenderPass(c);
  VkBufferImageCopy back{};
  back.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  back.imageExtent = {static_cast<std::uint32_t>(im.width), static_cast<std::uint32_t>(im.height), 1};
  vkCmdCopyImageToBuffer(c, im.target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, im.readback.buffer, 1, &back);
  VkBufferMemoryBarrier hb{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  hb.srcQueueFamilyIndex = hb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  hb.buffer = im.readback.buffer;
  hb.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &hb, 0,
                       nullptr);
  WM_VK(vkEndCommandBuffer(c));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &c;
  WM_VK(vkResetFences(im.core.device, 1, &im.fence));
  WM_VK(vkQueueSubmit(im.core.queue, 1, &si, im.fence));
  WM_VK(vkWaitForFences(im.core.device, 1, &im.fence, VK_TRUE, UINT64_MAX));
  rgba.resize(static_cast<std::size_t>(im.width) * im.height * 4);
  std::memcpy(rgba.data(), im.readback.mapped, rgba.size());
  return {};
}

}  // namespace warpmind::engine
