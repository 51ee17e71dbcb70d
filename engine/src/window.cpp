// The windowed renderer: GLFW window, Vulkan swapchain, the shared scene (vk_core.h) and Dear ImGui
// (Debian's libimgui-dev with its GLFW and Vulkan backends) in one render pass. One frame in flight.
#include "warpmind/engine/window.h"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "vk_core.h"

namespace warpmind::engine {

namespace {

VkSurfaceKHR make_surface(VkInstance instance, void* user) {
  VkSurfaceKHR s = VK_NULL_HANDLE;
  if (glfwCreateWindowSurface(instance, static_cast<GLFWwindow*>(user), nullptr, &s) != VK_SUCCESS)
    return VK_NULL_HANDLE;
  return s;
}

void check_imgui(VkResult r) {
  if (r != VK_SUCCESS) std::fprintf(stderr, "warpmind: ImGui Vulkan backend: VkResult %d\n", static_cast<int>(r));
}

}  // namespace

// GLFW and the window, torn down last (after the Vulkan surface made from the window).
struct Glfw {
  bool up = false;
  GLFWwindow* window = nullptr;
  ~Glfw() {
    if (window) glfwDestroyWindow(window);
    if (up) glfwTerminate();
  }
};

struct Window::Impl {
  Glfw glfw;
  GLFWwindow* window = nullptr;
  bool imgui_up = false;
  detail::Core core;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  std::uint32_t min_images = 2;
  std::vector<VkImage> images;
  std::vector<VkImageView> views;
  std::vector<VkFramebuffer> framebuffers;
  std::vector<VkSemaphore> rendered;  // per swapchain image
  VkSemaphore acquired = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkDescriptorPool imgui_pool = VK_NULL_HANDLE;
  bool rebuild = false;
  bool can_capture = false;  // the swapchain's images can be copied from
  detail::Buffer readback;   // host-visible, for end_frame's capture

  ~Impl();
  std::string init(const std::string& title, int w, int h);
  std::string make_swapchain();
  void free_swapchain();
  std::string one_time(void (*fn)(VkCommandBuffer));
};

std::string Window::Impl::init(const std::string& title, int w, int h) {
  if (!glfwInit()) return "window: GLFW could not start (no display?)";
  glfw.up = true;
  if (!glfwVulkanSupported()) return "window: GLFW found no Vulkan loader";
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  window = glfw.window = glfwCreateWindow(w, h, title.c_str(), nullptr, nullptr);
  if (!window) return "window: could not open a window";
  std::uint32_t n = 0;
  const char** ext = glfwGetRequiredInstanceExtensions(&n);
  detail::CoreOptions o;
  o.instance_extensions.assign(ext, ext + n);
  o.swapchain = true;
  o.make_surface = make_surface;
  o.user = window;
  std::string err = core.init(o);
  if (!err.empty()) return "window: " + err;
  VkDevice device = core.device;

  // The surface format decides the render pass, so pick it once.
  std::uint32_t fn = 0;
  WM_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(core.physical, core.surface, &fn, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(fn);
  WM_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(core.physical, core.surface, &fn, formats.data()));
  if (formats.empty()) return "window: the surface offers no format";
  format = formats[0].format;
  for (const VkSurfaceFormatKHR& f : formats)
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) format = f.format;

  err = core.make_render_pass(format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, render_pass);
  if (!err.empty()) return "window: " + err;
  err = core.init_scene(render_pass);
  if (!err.empty()) return "window: " + err;

  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = core.pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  WM_VK(vkAllocateCommandBuffers(device, &cai, &cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  WM_VK(vkCreateFence(device, &fci, nullptr, &fence));
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  WM_VK(vkCreateSemaphore(device, &sci, nullptr, &acquired));
  err = make_swapchain();
  if (!err.empty()) return "window: " + err;

  // Dear ImGui.
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16}};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  dpi.maxSets = 16;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = sizes;
  WM_VK(vkCreateDescriptorPool(device, &dpi, nullptr, &imgui_pool));
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini next to the binary
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForVulkan(window, true);
  ImGui_ImplVulkan_InitInfo ii{};
  ii.Instance = core.instance;
  ii.PhysicalDevice = core.physical;
  ii.Device = device;
  ii.QueueFamily = core.queue_family;
  ii.Queue = core.queue;
  ii.DescriptorPool = imgui_pool;
  ii.MinImageCount = min_images;
  ii.ImageCount = static_cast<std::uint32_t>(images.size());
  ii.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  ii.CheckVkResultFn = check_imgui;
  if (!ImGui_ImplVulkan_Init(&ii, render_pass)) return "window: ImGui's Vulkan backend did not start";
  imgui_up = true;
  err = one_time([](VkCommandBuffer c) { ImGui_ImplVulkan_CreateFontsTexture(c); });
  ImGui_ImplVulkan_DestroyFontUploadObjects();
  return err.empty() ? err : "window: " + err;
}

std::string Window::Impl::one_time(void (*fn)(VkCommandBuffer)) {
  WM_VK(vkWaitForFences(core.device, 1, &fence, VK_TRUE, UINT64_MAX));
  WM_VK(vkResetCommandBuffer(cmd, 0));
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  WM_VK(vkBeginCommandBuffer(cmd, &bi));
  fn(cmd);
  WM_VK(vkEndCommandBuffer(cmd));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  WM_VK(vkQueueSubmit(core.queue, 1, &si, VK_NULL_HANDLE));
  WM_VK(vkQueueWaitIdle(core.queue));
  return {};
}

std::string Window::Impl::make_swapchain() {
  VkDevice device = core.device;
  VkSurfaceCapabilitiesKHR caps;
  WM_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(core.physical, core.surface, &caps));
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  extent = caps.currentExtent;
  if (extent.width == UINT32_MAX) {
    extent.width = std::clamp(static_cast<std::uint32_t>(fw), caps.minImageExtent.width, caps.maxImageExtent.width);
    extent.height = std::clamp(static_cast<std::uint32_t>(fh), caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  if (extent.width == 0 || extent.height == 0) return {};  // minimised: try again later
  min_images = std::max(2u, caps.minImageCount);
  std::uint32_t count = caps.minImageCount + 1;
  if (caps.maxImageCount) count = std::min(count, caps.maxImageCount);
  VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  ci.surface = core.surface;
  ci.minImageCount = count;
  ci.imageFormat = format;
  ci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  ci.imageExtent = extent;
  ci.imageArrayLayers = 1;
  ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  can_capture = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
  if (can_capture) ci.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci.preTransform = caps.currentTransform;
  ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
    ci.compositeAlpha =
        static_cast<VkCompositeAlphaFlagBitsKHR>(caps.supportedCompositeAlpha & -caps.supportedCompositeAlpha);
  ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;  // always available; paced by the display
  ci.clipped = VK_TRUE;
  ci.oldSwapchain = swapchain;
  VkSwapchainKHR fresh = VK_NULL_HANDLE;
  WM_VK(vkCreateSwapchainKHR(device, &ci, nullptr, &fresh));
  free_swapchain();
  swapchain = fresh;
  std::uint32_t n = 0;
  WM_VK(vkGetSwapchainImagesKHR(device, swapchain, &n, nullptr));
  images.resize(n);
  WM_VK(vkGetSwapchainImagesKHR(device, swapchain, &n, images.data()));
  views.assign(n, VK_NULL_HANDLE);
  framebuffers.assign(n, VK_NULL_HANDLE);
  rendered.assign(n, VK_NULL_HANDLE);
  for (std::uint32_t i = 0; i < n; ++i) {
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = images[i];
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    WM_VK(vkCreateImageView(device, &vi, nullptr, &views[i]));
    VkFramebufferCreateInfo fbi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fbi.renderPass = render_pass;
    fbi.attachmentCount = 1;
    fbi.pAttachments = &views[i];
    fbi.width = extent.width;
    fbi.height = extent.height;
    fbi.layers = 1;
    WM_VK(vkCreateFramebuffer(device, &fbi, nullptr, &framebuffers[i]));
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    WM_VK(vkCreateSemaphore(device, &sci, nullptr, &rendered[i]));
  }
  if (imgui_up) ImGui_ImplVulkan_SetMinImageCount(min_images);
  rebuild = false;
  return {};
}

// Frees the swapchain's views, framebuffers and semaphores; the swapchain itself only when it is not
// being replaced (make_swapchain passes it as the old one first).
void Window::Impl::free_swapchain() {
  VkDevice device = core.device;
  vkDeviceWaitIdle(device);
  for (VkFramebuffer f : framebuffers) vkDestroyFramebuffer(device, f, nullptr);
  for (VkImageView v : views) vkDestroyImageView(device, v, nullptr);
  for (VkSemaphore s : rendered) vkDestroySemaphore(device, s, nullptr);
  framebuffers.clear();
  views.clear();
  rendered.clear();
  images.clear();
  if (swapchain) vkDestroySwapchainKHR(device, swapchain, nullptr);
  swapchain = VK_NULL_HANDLE;
}

Window::Impl::~Impl() {
  if (core.device) {
    vkDeviceWaitIdle(core.device);
    if (imgui_up) {
      ImGui_ImplVulkan_Shutdown();
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
    }
    free_swapchain();
    if (imgui_pool) vkDestroyDescriptorPool(core.device, imgui_pool, nullptr);
    if (acquired) vkDestroySemaphore(core.device, acquired, nullptr);
    if (fence) vkDestroyFence(core.device, fence, nullptr);
    core.free_buffer(readback);
    if (render_pass) vkDestroyRenderPass(core.device, render_pass, nullptr);
  }
}

std::string Window::create(const std::string& title, int width, int height, std::unique_ptr<Window>& out) {
  std::unique_ptr<Window> w(new Window());
  w->impl_ = std::make_unique<Impl>();
  std::string err = w->impl_->init(title, width, height);
  if (!err.empty()) return err;
  out = std::move(w);
  return {};
}

Window::~Window() = default;
bool Window::should_close() const { return glfwWindowShouldClose(impl_->window); }
void Window::request_close() { glfwSetWindowShouldClose(impl_->window, GLFW_TRUE); }
int Window::width() const { return static_cast<int>(impl_->extent.width); }
int Window::height() const { return static_cast<int>(impl_->extent.height); }
const std::string& Window::device_name() const { return impl_->core.device_name; }
int Window::validation_messages() const { return impl_->core.validation_messages; }
std::string Window::share_heat(int w, int h, SharedHeat& out) { return impl_->core.share_heat(w, h, out); }
void Window::wait_idle() { impl_->core.wait_idle(); }
void Window::wait_frame() { vkWaitForFences(impl_->core.device, 1, &impl_->fence, VK_TRUE, UINT64_MAX); }

void Window::begin_frame() {
  glfwPollEvents();
  ImGui_ImplVulkan_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

std::string Window::end_frame(const Frame& f, std::vector<std::uint8_t>* capture) {
  Impl& im = *impl_;
  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(im.window, &fw, &fh);
  if (fw == 0 || fh == 0) return {};  // minimised
  if (im.rebuild || !im.swapchain || static_cast<std::uint32_t>(fw) != im.extent.width ||
      static_cast<std::uint32_t>(fh) != im.extent.height) {
    std::string err = im.make_swapchain();
    if (!err.empty() || !im.swapchain) return err;
  }
  VkDevice device = im.core.device;
  WM_VK(vkWaitForFences(device, 1, &im.fence, VK_TRUE, UINT64_MAX));
  std::string err = im.core.prepare(f);
  if (!err.empty()) return err;
  std::uint32_t index = 0;
  VkResult r = vkAcquireNextImageKHR(device, im.swapchain, UINT64_MAX, im.acquired, VK_NULL_HANDLE, &index);
  if (r == VK_ERROR_OUT_OF_DATE_KHR) {
    im.rebuild = true;
    return {};
  }
  if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) return detail::vk_error(r, "vkAcquireNextImageKHR");
  WM_VK(vkResetFences(device, 1, &im.fence));
  VkCommandBuffer c = im.cmd;
  err = im.core.begin_scene(c, im.render_pass, im.framebuffers[index], static_cast<int>(im.extent.width),
                            static_cast<int>(im.extent.height), f);
  if (!err.empty()) return err;
  ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), c);
  vkCmdEndRenderPass(c);
  const std::uint32_t cw = im.extent.width, ch = im.extent.height;
  const bool capturing = capture && im.can_capture;
  if (capture && !im.can_capture) return "window capture: the swapchain's images cannot be copied on this device";
  if (capturing) {
    // The presented image, panels included: to a host buffer and back to the layout for presenting.
    const VkDeviceSize bytes = static_cast<VkDeviceSize>(cw) * ch * 4;
    if (im.readback.size < bytes) {
      im.core.free_buffer(im.readback);
      err = im.core.make_buffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, im.readback);
      if (!err.empty()) return err;
    }
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = im.images[index];
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &b);
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {cw, ch, 1};
    vkCmdCopyImageToBuffer(c, im.images[index], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, im.readback.buffer, 1, &copy);
    b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    b.dstAccessMask = 0;
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    VkBufferMemoryBarrier hb{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    hb.srcQueueFamilyIndex = hb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    hb.buffer = im.readback.buffer;
    hb.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &hb, 1,
                         &b);
  }
  WM_VK(vkEndCommandBuffer(c));
  const VkPipelineStageFlags wait = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.waitSemaphoreCount = 1;
  si.pWaitSemaphores = &im.acquired;
  si.pWaitDstStageMask = &wait;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &c;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &im.rendered[index];
  WM_VK(vkQueueSubmit(im.core.queue, 1, &si, im.fence));
  if (capturing) {
    WM_VK(vkWaitForFences(device, 1, &im.fence, VK_TRUE, UINT64_MAX));
    const auto* px = static_cast<const std::uint8_t*>(im.readback.mapped);
    capture->resize(static_cast<std::size_t>(cw) * ch * 4);
    const bool bgra = im.format == VK_FORMAT_B8G8R8A8_UNORM || im.format == VK_FORMAT_B8G8R8A8_SRGB;
    for (std::size_t i = 0; i < capture->size(); i += 4) {
      (*capture)[i + 0] = px[i + (bgra ? 2 : 0)];
      (*capture)[i + 1] = px[i + 1];
      (*capture)[i + 2] = px[i + (bgra ? 0 : 2)];
      (*capture)[i + 3] = 255;  // the window is opaque
    }
  }
  VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  pi.waitSemaphoreCount = 1;
  pi.pWaitSemaphores = &im.rendered[index];
  pi.swapchainCount = 1;
  pi.pSwapchains = &im.swapchain;
  pi.pImageIndices = &index;
  r = vkQueuePresentKHR(im.core.queue, &pi);
  if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
    im.rebuild = true;
  else if (r != VK_SUCCESS)
    return detail::vk_error(r, "vkQueuePresentKHR");
  return {};
}

}  // namespace warpmind::engine
