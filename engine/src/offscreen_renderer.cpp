// Offscreen Vulkan renderer: one render pass into an RGBA8 image, a full-screen heat-map pipeline and an
// instanced disc pipeline, then a copy into a host-visible buffer.
//
// [SECTION] helpers   [SECTION] creation   [SECTION] per-frame resources   [SECTION] render
#include "warpmind/engine/renderer.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstring>

namespace warpmind::engine {

namespace {

const std::uint32_t kHeatVert[] = {
#include "heat.vert.inc"
};
const std::uint32_t kHeatFrag[] = {
#include "heat.frag.inc"
};
const std::uint32_t kDiscVert[] = {
#include "disc.vert.inc"
};
const std::uint32_t kDiscFrag[] = {
#include "disc.frag.inc"
};

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;

struct PushConstants {
  float camera[4];
  float field[4];
  float range[4];
};

// ---- [SECTION] helpers ---------------------------------------------------------------------------

std::string vk_error(VkResult r, const char* what) { return std::string(what) + " failed (VkResult " + std::to_string(r) + ")"; }

#define WM_VK(call)                                     \
  do {                                                  \
    VkResult wm_r_ = (call);                            \
    if (wm_r_ != VK_SUCCESS) return vk_error(wm_r_, #call); \
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

}  // namespace

struct OffscreenRenderer::Impl {
  int width = 0, height = 0;
  std::string device_name;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t queue_family = 0;
  VkPhysicalDeviceMemoryProperties mem_props{};
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  Image target;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline heat_pipeline = VK_NULL_HANDLE, disc_pipeline = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  Image heat;            // R32_SFLOAT
  Buffer heat_staging;   // host-visible
  Buffer instances;      // host-visible vertex buffer
  Buffer readback;       // host-visible

  ~Impl();
  std::string init(int w, int h);
  std::string memory_type(std::uint32_t bits, VkMemoryPropertyFlags flags, std::uint32_t& out) const;
  // Allocates memory for `req` with `flags` (with `fallback` flags when none has them).
  std::string allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags flags, VkMemoryPropertyFlags fallback,
                       VkDeviceMemory& out);
  std::string make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, Buffer& b);
  void free_buffer(Buffer& b);
  std::string make_image(int w, int h, VkFormat format, VkImageUsageFlags usage, Image& img);
  void free_image(Image& img);
  std::string make_pipelines();
  std::string ensure_heat(int w, int h);
  std::string ensure_instances(std::size_t count);
};

// ---- [SECTION] creation --------------------------------------------------------------------------

std::string OffscreenRenderer::Impl::memory_type(std::uint32_t bits, VkMemoryPropertyFlags flags,
                                                 std::uint32_t& out) const {
  for (std::uint32_t i = 0; i < mem_props.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (mem_props.memoryTypes[i].propertyFlags & flags) == flags) {
      out = i;
      return {};
    }
  return "no suitable Vulkan memory type";
}

std::string OffscreenRenderer::Impl::allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags flags,
                                              VkMemoryPropertyFlags fallback, VkDeviceMemory& out) {
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  std::string err = memory_type(req.memoryTypeBits, flags, ai.memoryTypeIndex);
  if (!err.empty()) err = memory_type(req.memoryTypeBits, fallback, ai.memoryTypeIndex);
  if (!err.empty()) return err;
  WM_VK(vkAllocateMemory(device, &ai, nullptr, &out));
  return {};
}

std::string OffscreenRenderer::Impl::make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, Buffer& b) {
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  WM_VK(vkCreateBuffer(device, &bi, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::string err = allocate(req, host, host, b.memory);
  if (!err.empty()) return err;
  WM_VK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
  WM_VK(vkMapMemory(device, b.memory, 0, size, 0, &b.mapped));
  b.size = size;
  return {};
}

void OffscreenRenderer::Impl::free_buffer(Buffer& b) {
  if (b.memory) vkFreeMemory(device, b.memory, nullptr);
  if (b.buffer) vkDestroyBuffer(device, b.buffer, nullptr);
  b = Buffer{};
}

std::string OffscreenRenderer::Impl::make_image(int w, int h, VkFormat format, VkImageUsageFlags usage, Image& img) {
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = format;
  ii.extent = {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), 1};
  ii.mipLevels = 1;
  ii.arrayLayers = 1;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = usage;
  ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  WM_VK(vkCreateImage(device, &ii, nullptr, &img.image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device, img.image, &req);
  std::string err = allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, img.memory);
  if (!err.empty()) return err;
  WM_VK(vkBindImageMemory(device, img.image, img.memory, 0));
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = img.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = format;
  vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  WM_VK(vkCreateImageView(device, &vi, nullptr, &img.view));
  img.w = w;
  img.h = h;
  return {};
}

void OffscreenRenderer::Impl::free_image(Image& img) {
  if (img.view) vkDestroyImageView(device, img.view, nullptr);
  if (img.image) vkDestroyImage(device, img.image, nullptr);
  if (img.memory) vkFreeMemory(device, img.memory, nullptr);
  img = Image{};
}

std::string OffscreenRenderer::Impl::init(int w, int h) {
  width = w;
  height = h;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "warpmind";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  WM_VK(vkCreateInstance(&ici, nullptr, &instance));
  std::uint32_t count = 0;
  WM_VK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  if (count == 0) return "no Vulkan device";
  std::vector<VkPhysicalDevice> devices(count);
  WM_VK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  int best = -1;
  for (std::uint32_t d = 0; d < count; ++d) {
    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &qn, qs.data());
    for (std::uint32_t q = 0; q < qn; ++q) {
      if (!(qs[q].queueFlags & VK_QUEUE_GRAPHICS_BIT)) continue;
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(devices[d], &props);
      const int score = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 2 : 1;
      if (score > best) {
        best = score;
        physical = devices[d];
        queue_family = q;
        device_name = props.deviceName;
      }
      break;
    }
  }
  if (!physical) return "no Vulkan device with a graphics queue";
  vkGetPhysicalDeviceMemoryProperties(physical, &mem_props);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  WM_VK(vkCreateDevice(physical, &dci, nullptr, &device));
  vkGetDeviceQueue(device, queue_family, 0, &queue);

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family;
  WM_VK(vkCreateCommandPool(device, &pci, nullptr, &pool));
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  WM_VK(vkAllocateCommandBuffers(device, &cai, &cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  WM_VK(vkCreateFence(device, &fci, nullptr, &fence));

  std::string err = make_image(w, h, kColorFormat,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, target);
  if (err.empty()) err = make_buffer(static_cast<VkDeviceSize>(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, readback);
  if (!err.empty()) return err;

  VkAttachmentDescription color{};
  color.format = kColorFormat;
  color.samples = VK_SAMPLE_COUNT_1_BIT;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  color.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  VkSubpassDependency dep{};
  dep.srcSubpass = 0;
  dep.dstSubpass = VK_SUBPASS_EXTERNAL;
  dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo rpi{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpi.attachmentCount = 1;
  rpi.pAttachments = &color;
  rpi.subpassCount = 1;
  rpi.pSubpasses = &sub;
  rpi.dependencyCount = 1;
  rpi.pDependencies = &dep;
  WM_VK(vkCreateRenderPass(device, &rpi, nullptr, &render_pass));
  VkFramebufferCreateInfo fbi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fbi.renderPass = render_pass;
  fbi.attachmentCount = 1;
  fbi.pAttachments = &target.view;
  fbi.width = static_cast<std::uint32_t>(w);
  fbi.height = static_cast<std::uint32_t>(h);
  fbi.layers = 1;
  WM_VK(vkCreateFramebuffer(device, &fbi, nullptr, &framebuffer));

  VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = VK_FILTER_NEAREST;
  si.minFilter = VK_FILTER_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  WM_VK(vkCreateSampler(device, &si, nullptr, &sampler));
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT,
                                       nullptr};
  VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = 1;
  dli.pBindings = &binding;
  WM_VK(vkCreateDescriptorSetLayout(device, &dli, nullptr, &set_layout));
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  WM_VK(vkCreateDescriptorPool(device, &dpi, nullptr, &descriptor_pool));
  VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsa.descriptorPool = descriptor_pool;
  dsa.descriptorSetCount = 1;
  dsa.pSetLayouts = &set_layout;
  WM_VK(vkAllocateDescriptorSets(device, &dsa, &set));
  VkPushConstantRange pcr{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &set_layout;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &pcr;
  WM_VK(vkCreatePipelineLayout(device, &pli, nullptr, &layout));
  err = make_pipelines();
  if (err.empty()) err = ensure_heat(1, 1);  // the descriptor always points at a valid image
  if (err.empty()) err = ensure_instances(256);
  return err;
}

std::string OffscreenRenderer::Impl::make_pipelines() {
  const auto module = [&](const std::uint32_t* code, std::size_t bytes, VkShaderModule& m) -> std::string {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = bytes;
    mi.pCode = code;
    WM_VK(vkCreateShaderModule(device, &mi, nullptr, &m));
    return {};
  };
  VkShaderModule hv, hf, dv, df;
  std::string err = module(kHeatVert, sizeof kHeatVert, hv);
  if (err.empty()) err = module(kHeatFrag, sizeof kHeatFrag, hf);
  if (err.empty()) err = module(kDiscVert, sizeof kDiscVert, dv);
  if (err.empty()) err = module(kDiscFrag, sizeof kDiscFrag, df);
  if (!err.empty()) return err;

  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkViewport viewport{0, 0, static_cast<float>(width), static_cast<float>(height), 0, 1};
  VkRect2D scissor{{0, 0}, {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)}};
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &viewport;
  vp.scissorCount = 1;
  vp.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                         VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;

  const auto build = [&](VkShaderModule vs, VkShaderModule fs, const VkPipelineVertexInputStateCreateInfo* vi,
                         VkPipeline& out) -> std::string {
    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_VERTEX_BIT, vs, "main",
                 nullptr};
    stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fs,
                 "main", nullptr};
    VkGraphicsPipelineCreateInfo gi{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gi.stageCount = 2;
    gi.pStages = stages;
    gi.pVertexInputState = vi;
    gi.pInputAssemblyState = &ia;
    gi.pViewportState = &vp;
    gi.pRasterizationState = &rs;
    gi.pMultisampleState = &ms;
    gi.pColorBlendState = &cb;
    gi.layout = layout;
    gi.renderPass = render_pass;
    WM_VK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &gi, nullptr, &out));
    return {};
  };
  VkPipelineVertexInputStateCreateInfo none{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkVertexInputBindingDescription inst{0, sizeof(UnitInstance), VK_VERTEX_INPUT_RATE_INSTANCE};
  VkVertexInputAttributeDescription attrs[3] = {
      {0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
      {1, 0, VK_FORMAT_R32_SFLOAT, 8},
      {2, 0, VK_FORMAT_R8G8B8A8_UNORM, 12},
  };
  VkPipelineVertexInputStateCreateInfo discs{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  discs.vertexBindingDescriptionCount = 1;
  discs.pVertexBindingDescriptions = &inst;
  discs.vertexAttributeDescriptionCount = 3;
  discs.pVertexAttributeDescriptions = attrs;
  err = build(hv, hf, &none, heat_pipeline);
  if (err.empty()) err = build(dv, df, &discs, disc_pipeline);
  for (VkShaderModule m : {hv, hf, dv, df}) vkDestroyShaderModule(device, m, nullptr);
  return err;
}

OffscreenRenderer::Impl::~Impl() {
  if (device) {
    vkDeviceWaitIdle(device);
    free_buffer(heat_staging);
    free_buffer(instances);
    free_buffer(readback);
    free_image(heat);
    free_image(target);
    if (sampler) vkDestroySampler(device, sampler, nullptr);
    if (heat_pipeline) vkDestroyPipeline(device, heat_pipeline, nullptr);
    if (disc_pipeline) vkDestroyPipeline(device, disc_pipeline, nullptr);
    if (layout) vkDestroyPipelineLayout(device, layout, nullptr);
    if (descriptor_pool) vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
    if (set_layout) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    if (framebuffer) vkDestroyFramebuffer(device, framebuffer, nullptr);
    if (render_pass) vkDestroyRenderPass(device, render_pass, nullptr);
    if (fence) vkDestroyFence(device, fence, nullptr);
    if (pool) vkDestroyCommandPool(device, pool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance) vkDestroyInstance(instance, nullptr);
}

// ---- [SECTION] per-frame resources ---------------------------------------------------------------

// A heat texture of w x h (recreated when the size changes) with a staging buffer, and the descriptor
// pointing at it.
std::string OffscreenRenderer::Impl::ensure_heat(int w, int h) {
  if (heat.image && heat.w == w && heat.h == h) return {};
  vkDeviceWaitIdle(device);
  free_image(heat);
  free_buffer(heat_staging);
  std::string err = make_image(w, h, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               heat);
  if (err.empty())
    err = make_buffer(static_cast<VkDeviceSize>(w) * h * sizeof(float), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, heat_staging);
  if (!err.empty()) return err;
  std::memset(heat_staging.mapped, 0, heat_staging.size);
  VkDescriptorImageInfo ii{sampler, heat.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet wr{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  wr.dstSet = set;
  wr.dstBinding = 0;
  wr.descriptorCount = 1;
  wr.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  wr.pImageInfo = &ii;
  vkUpdateDescriptorSets(device, 1, &wr, 0, nullptr);
  return {};
}

std::string OffscreenRenderer::Impl::ensure_instances(std::size_t count) {
  const VkDeviceSize need = std::max<VkDeviceSize>(count, 1) * sizeof(UnitInstance);
  if (instances.buffer && instances.size >= need) return {};
  vkDeviceWaitIdle(device);
  free_buffer(instances);
  return make_buffer(need + need / 2, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, instances);
}

// ---- [SECTION] render ----------------------------------------------------------------------------

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
const std::string& OffscreenRenderer::device_name() const { return impl_->device_name; }

std::string OffscreenRenderer::render(const Frame& f, std::vector<std::uint8_t>& rgba) {
  Impl& im = *impl_;
  if (!(f.camera.x1 > f.camera.x0) || !(f.camera.y1 > f.camera.y0)) return "render: empty camera rectangle";
  const bool has_heat = f.heat && f.heat_w > 0 && f.heat_h > 0;
  if (has_heat && (!(f.heat_area.x1 > f.heat_area.x0) || !(f.heat_area.y1 > f.heat_area.y0) || !(f.heat_hi > f.heat_lo)))
    return "render: heat area must be non-empty and heat_lo < heat_hi";
  std::string err = has_heat ? im.ensure_heat(f.heat_w, f.heat_h) : std::string();
  if (err.empty()) err = im.ensure_instances(f.unit_count);
  if (!err.empty()) return "render: " + err;
  if (has_heat) std::memcpy(im.heat_staging.mapped, f.heat, static_cast<std::size_t>(f.heat_w) * f.heat_h * sizeof(float));
  if (f.unit_count) std::memcpy(im.instances.mapped, f.units, f.unit_count * sizeof(UnitInstance));

  VkCommandBuffer c = im.cmd;
  WM_VK(vkResetCommandBuffer(c, 0));
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  WM_VK(vkBeginCommandBuffer(c, &bi));
  if (has_heat) {
    // Heat values: staging buffer -> texture (row 0 = lowest y = texture row 0, sampled with v up).
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = 0;
    b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = im.heat.image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                         1, &b);
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {static_cast<std::uint32_t>(f.heat_w), static_cast<std::uint32_t>(f.heat_h), 1};
    vkCmdCopyBufferToImage(c, im.heat_staging.buffer, im.heat.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
  }
  VkClearValue clear{};
  clear.color = {{0.02f, 0.02f, 0.03f, 1.0f}};
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = im.render_pass;
  rp.framebuffer = im.framebuffer;
  rp.renderArea = {{0, 0}, {static_cast<std::uint32_t>(im.width), static_cast<std::uint32_t>(im.height)}};
  rp.clearValueCount = 1;
  rp.pClearValues = &clear;
  vkCmdBeginRenderPass(c, &rp, VK_SUBPASS_CONTENTS_INLINE);
  const PushConstants pc{{f.camera.x0, f.camera.y0, f.camera.x1, f.camera.y1},
                         {f.heat_area.x0, f.heat_area.y0, f.heat_area.x1, f.heat_area.y1},
                         {f.heat_lo, f.heat_hi, 0.0f, 0.0f}};
  vkCmdPushConstants(c, im.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pc, &pc);
  if (has_heat) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, im.heat_pipeline);
    vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_GRAPHICS, im.layout, 0, 1, &im.set, 0, nullptr);
    vkCmdDraw(c, 3, 1, 0, 0);
  }
  if (f.unit_count) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, im.disc_pipeline);
    const VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(c, 0, 1, &im.instances.buffer, &offset);
    vkCmdDraw(c, 6, static_cast<std::uint32_t>(f.unit_count), 0, 0);
  }
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
  vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &hb, 0, nullptr);
  WM_VK(vkEndCommandBuffer(c));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &c;
  WM_VK(vkResetFences(im.device, 1, &im.fence));
  WM_VK(vkQueueSubmit(im.queue, 1, &si, im.fence));
  WM_VK(vkWaitForFences(im.device, 1, &im.fence, VK_TRUE, UINT64_MAX));
  rgba.resize(static_cast<std::size_t>(im.width) * im.height * 4);
  std::memcpy(rgba.data(), im.readback.mapped, rgba.size());
  return {};
}

}  // namespace warpmind::engine
