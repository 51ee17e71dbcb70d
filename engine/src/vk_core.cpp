// The shared Vulkan core of the renderers (vk_core.h).
//
// [SECTION] helpers   [SECTION] device   [SECTION] scene pipelines   [SECTION] per-frame data
#include "vk_core.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace warpmind::engine {

namespace {
bool has_heat(const Frame& f) { return (f.heat || f.heat_shared) && f.heat_w > 0 && f.heat_h > 0; }
}  // namespace

std::string check_frame(const Frame& f) {
  if (!(f.camera.x1 > f.camera.x0) || !(f.camera.y1 > f.camera.y0)) return "render: empty camera rectangle";
  const bool has_heat = engine::has_heat(f);
  if (has_heat &&
      (!(f.heat_area.x1 > f.heat_area.x0) || !(f.heat_area.y1 > f.heat_area.y0) || !(f.heat_hi > f.heat_lo)))
    return "render: heat area must be non-empty and heat_lo < heat_hi";
  if (f.line_vertex_count % 2) return "render: lines need an even vertex count";
  if (f.fill_vertex_count % 3) return "render: fills need a vertex count divisible by 3";
  if ((f.unit_count && !f.units) || (f.line_vertex_count && !f.lines) || (f.fill_vertex_count && !f.fills))
    return "render: counts without data";
  return {};
}

namespace detail {

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
const std::uint32_t kLineVert[] = {
#include "line.vert.inc"
};
const std::uint32_t kLineFrag[] = {
#include "line.frag.inc"
};

struct PushConstants {
  float camera[4];
  float field[4];
  float range[4];
};

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// Validation: on in debug builds, or with WARPMIND_VK_VALIDATION=1; off with WARPMIND_VK_VALIDATION=0.
bool want_validation() {
  const char* env = std::getenv("WARPMIND_VK_VALIDATION");
  if (env && *env) return env[0] == '1';
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

bool have_layer(const char* name) {
  std::uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(n);
  if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
  for (const VkLayerProperties& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++*static_cast<int*>(user);
    std::fprintf(stderr, "vulkan validation: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

}  // namespace

// ---- [SECTION] helpers ---------------------------------------------------------------------------

std::string vk_error(VkResult r, const char* what) {
  return std::string(what) + " failed (VkResult " + std::to_string(r) + ")";
}

std::string Core::memory_type(std::uint32_t bits, VkMemoryPropertyFlags flags, std::uint32_t& out) const {
  for (std::uint32_t i = 0; i < mem_props_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (mem_props_.memoryTypes[i].propertyFlags & flags) == flags) {
      out = i;
      return {};
    }
  return "no suitable Vulkan memory type";
}

std::string Core::allocate(const VkMemoryRequirements& req, VkMemoryPropertyFlags flags, VkDeviceMemory& out) {
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  std::string err = memory_type(req.memoryTypeBits, flags, ai.memoryTypeIndex);
  if (!err.empty()) err = memory_type(req.memoryTypeBits, 0, ai.memoryTypeIndex);  // any type will do
  if (!err.empty()) return err;
  WM_VK(vkAllocateMemory(device, &ai, nullptr, &out));
  return {};
}

std::string Core::make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, Buffer& b) {
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  WM_VK(vkCreateBuffer(device, &bi, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  std::string err = memory_type(req.memoryTypeBits, host, ai.memoryTypeIndex);
  if (!err.empty()) return err;
  WM_VK(vkAllocateMemory(device, &ai, nullptr, &b.memory));
  WM_VK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
  WM_VK(vkMapMemory(device, b.memory, 0, size, 0, &b.mapped));
  b.size = size;
  return {};
}

void Core::free_buffer(Buffer& b) {
  if (b.memory) vkFreeMemory(device, b.memory, nullptr);
  if (b.buffer) vkDestroyBuffer(device, b.buffer, nullptr);
  b = Buffer{};
}

std::string Core::make_image(int w, int h, VkFormat format, VkImageUsageFlags usage, Image& img) {
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = format;
  ii.extent = {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), 1};
  ii.mipLevels = 1;
  ii.arrayLayers = 1;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = usage;
  ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  WM_VK(vkCreateImage(device, &ii, nullptr, &img.image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device, img.image, &req);
  std::string err = allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, img.memory);
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

void Core::free_image(Image& img) {
  if (img.view) vkDestroyImageView(device, img.view, nullptr);
  if (img.image) vkDestroyImage(device, img.image, nullptr);
  if (img.memory) vkFreeMemory(device, img.memory, nullptr);
  img = Image{};
}

// ---- [SECTION] device ----------------------------------------------------------------------------

std::string Core::init(const CoreOptions& o) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "warpmind";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> extensions = o.instance_extensions;
  std::vector<const char*> layers;
  const bool validate = want_validation() && have_layer(kValidationLayer);
  if (validate) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkDebugUtilsMessengerCreateInfoEXT dmi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  dmi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  dmi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  dmi.pfnUserCallback = on_validation;
  dmi.pUserData = &validation_messages;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  ici.ppEnabledExtensionNames = extensions.data();
  ici.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  ici.ppEnabledLayerNames = layers.data();
  WM_VK(vkCreateInstance(&ici, nullptr, &instance));
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create) WM_VK(create(instance, &dmi, nullptr, &messenger_));
  }
  if (o.make_surface) {
    surface = o.make_surface(instance, o.user);
    if (!surface) return "could not create a window surface";
  }

  std::uint32_t count = 0;
  WM_VK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  if (count == 0) return "no Vulkan device";
  std::vector<VkPhysicalDevice> devices(count);
  WM_VK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  int best = -1;
  for (VkPhysicalDevice d : devices) {
    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, qs.data());
    for (std::uint32_t q = 0; q < qn; ++q) {
      if (!(qs[q].queueFlags & VK_QUEUE_GRAPHICS_BIT)) continue;
      if (surface) {
        VkBool32 present = VK_FALSE;
        if (vkGetPhysicalDeviceSurfaceSupportKHR(d, q, surface, &present) != VK_SUCCESS || !present) continue;
      }
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(d, &props);
      const int score = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 2 : 1;
      if (score > best) {
        best = score;
        physical = d;
        queue_family = q;
        device_name = props.deviceName;
      }
      break;
    }
  }
  if (!physical)
    return surface ? "no Vulkan device can present to the window" : "no Vulkan device with a graphics queue";
  vkGetPhysicalDeviceMemoryProperties(physical, &mem_props_);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  std::vector<const char*> device_ext;
  if (o.swapchain) device_ext.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  {
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> props(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, props.data());
    for (const VkExtensionProperties& e : props)
      if (std::strcmp(e.extensionName, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) == 0) can_export = true;
    if (can_export) device_ext.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  }
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<std::uint32_t>(device_ext.size());
  dci.ppEnabledExtensionNames = device_ext.data();
  WM_VK(vkCreateDevice(physical, &dci, nullptr, &device));
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family;
  WM_VK(vkCreateCommandPool(device, &pci, nullptr, &pool));
  return {};
}

Core::~Core() {
  if (device) {
    vkDeviceWaitIdle(device);
    free_buffer(heat_staging_);
    free_buffer(units_);
    free_buffer(lines_);
    free_buffer(fills_);
    free_buffer(shared_);
    free_image(heat_);
    if (sampler_) vkDestroySampler(device, sampler_, nullptr);
    for (VkPipeline p : {heat_pipeline_, disc_pipeline_, line_pipeline_, fill_pipeline_})
      if (p) vkDestroyPipeline(device, p, nullptr);
    if (layout_) vkDestroyPipelineLayout(device, layout_, nullptr);
    if (descriptor_pool_) vkDestroyDescriptorPool(device, descriptor_pool_, nullptr);
    if (set_layout_) vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
    if (pool) vkDestroyCommandPool(device, pool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance) {
    if (surface) vkDestroySurfaceKHR(instance, surface, nullptr);
    if (messenger_) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy) destroy(instance, messenger_, nullptr);
    }
    vkDestroyInstance(instance, nullptr);
  }
}

// ---- [SECTION] scene pipelines -------------------------------------------------------------------

std::string Core::make_render_pass(VkFormat format, VkImageLayout final_layout, VkRenderPass& out) {
  VkAttachmentDescription color{};
  color.format = format;
  color.samples = VK_SAMPLE_COUNT_1_BIT;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  color.finalLayout = final_layout;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  VkSubpassDependency dep{};
  if (final_layout == VK_IMAGE_LAYOUT_PRESENT_SRC_KHR) {  // wait for the acquired image
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.dstSubpass = 0;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  } else {  // the frame is copied out after the pass
    dep.srcSubpass = 0;
    dep.dstSubpass = VK_SUBPASS_EXTERNAL;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  }
  VkRenderPassCreateInfo rpi{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpi.attachmentCount = 1;
  rpi.pAttachments = &color;
  rpi.subpassCount = 1;
  rpi.pSubpasses = &sub;
  rpi.dependencyCount = 1;
  rpi.pDependencies = &dep;
  WM_VK(vkCreateRenderPass(device, &rpi, nullptr, &out));
  return {};
}

std::string Core::init_scene(VkRenderPass pass) {
  VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = VK_FILTER_NEAREST;
  si.minFilter = VK_FILTER_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  WM_VK(vkCreateSampler(device, &si, nullptr, &sampler_));
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT,
                                       nullptr};
  VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = 1;
  dli.pBindings = &binding;
  WM_VK(vkCreateDescriptorSetLayout(device, &dli, nullptr, &set_layout_));
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  WM_VK(vkCreateDescriptorPool(device, &dpi, nullptr, &descriptor_pool_));
  VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsa.descriptorPool = descriptor_pool_;
  dsa.descriptorSetCount = 1;
  dsa.pSetLayouts = &set_layout_;
  WM_VK(vkAllocateDescriptorSets(device, &dsa, &set_));
  VkPushConstantRange pcr{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &set_layout_;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &pcr;
  WM_VK(vkCreatePipelineLayout(device, &pli, nullptr, &layout_));

  const auto module = [&](const std::uint32_t* code, std::size_t bytes, VkShaderModule& m) -> std::string {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = bytes;
    mi.pCode = code;
    WM_VK(vkCreateShaderModule(device, &mi, nullptr, &m));
    return {};
  };
  VkShaderModule mods[6]{};
  std::string err = module(kHeatVert, sizeof kHeatVert, mods[0]);
  if (err.empty()) err = module(kHeatFrag, sizeof kHeatFrag, mods[1]);
  if (err.empty()) err = module(kDiscVert, sizeof kDiscVert, mods[2]);
  if (err.empty()) err = module(kDiscFrag, sizeof kDiscFrag, mods[3]);
  if (err.empty()) err = module(kLineVert, sizeof kLineVert, mods[4]);
  if (err.empty()) err = module(kLineFrag, sizeof kLineFrag, mods[5]);

  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.scissorCount = 1;
  const VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  ds.dynamicStateCount = 2;
  ds.pDynamicStates = dyn;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendAttachmentState alpha = blend;  // lines blend over the scene
  alpha.blendEnable = VK_TRUE;
  alpha.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
  alpha.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  alpha.colorBlendOp = VK_BLEND_OP_ADD;
  alpha.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
  alpha.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  alpha.alphaBlendOp = VK_BLEND_OP_ADD;

  const auto build = [&](VkShaderModule vs, VkShaderModule fs, const VkPipelineVertexInputStateCreateInfo* vi,
                         VkPrimitiveTopology topology, const VkPipelineColorBlendAttachmentState* attachment,
                         VkPipeline& out) -> std::string {
    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                 nullptr,
                 0,
                 VK_SHADER_STAGE_VERTEX_BIT,
                 vs,
                 "main",
                 nullptr};
    stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                 nullptr,
                 0,
                 VK_SHADER_STAGE_FRAGMENT_BIT,
                 fs,
                 "main",
                 nullptr};
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = topology;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = attachment;
    VkGraphicsPipelineCreateInfo gi{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gi.stageCount = 2;
    gi.pStages = stages;
    gi.pVertexInputState = vi;
    gi.pInputAssemblyState = &ia;
    gi.pViewportState = &vp;
    gi.pRasterizationState = &rs;
    gi.pMultisampleState = &ms;
    gi.pColorBlendState = &cb;
    gi.pDynamicState = &ds;
    gi.layout = layout_;
    gi.renderPass = pass;
    WM_VK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &gi, nullptr, &out));
    return {};
  };
  VkPipelineVertexInputStateCreateInfo none{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  const VkVertexInputBindingDescription unit_binding{0, sizeof(UnitInstance), VK_VERTEX_INPUT_RATE_INSTANCE};
  const VkVertexInputAttributeDescription unit_attrs[4] = {
      {0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
      {1, 0, VK_FORMAT_R32_SFLOAT, 8},
      {2, 0, VK_FORMAT_R8G8B8A8_UNORM, 12},
      {3, 0, VK_FORMAT_R32_SFLOAT, 16},
  };
  VkPipelineVertexInputStateCreateInfo discs{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  discs.vertexBindingDescriptionCount = 1;
  discs.pVertexBindingDescriptions = &unit_binding;
  discs.vertexAttributeDescriptionCount = 4;
  discs.pVertexAttributeDescriptions = unit_attrs;
  const VkVertexInputBindingDescription line_binding{0, sizeof(LineVertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription line_attrs[2] = {
      {0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
      {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8},
  };
  VkPipelineVertexInputStateCreateInfo lines{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  lines.vertexBindingDescriptionCount = 1;
  lines.pVertexBindingDescriptions = &line_binding;
  lines.vertexAttributeDescriptionCount = 2;
  lines.pVertexAttributeDescriptions = line_attrs;
  if (err.empty()) err = build(mods[0], mods[1], &none, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, &blend, heat_pipeline_);
  if (err.empty()) err = build(mods[2], mods[3], &discs, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, &blend, disc_pipeline_);
  if (err.empty()) err = build(mods[4], mods[5], &lines, VK_PRIMITIVE_TOPOLOGY_LINE_LIST, &alpha, line_pipeline_);
  if (err.empty()) err = build(mods[4], mods[5], &lines, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, &alpha, fill_pipeline_);
  for (VkShaderModule m : mods)
    if (m) vkDestroyShaderModule(device, m, nullptr);
  if (err.empty()) err = ensure_heat(1, 1);  // the descriptor always points at a valid image
  if (err.empty()) err = ensure_vertices(units_, 256 * sizeof(UnitInstance));
  if (err.empty()) err = ensure_vertices(lines_, 256 * sizeof(LineVertex));
  if (err.empty()) err = ensure_vertices(fills_, 255 * sizeof(LineVertex));
  return err;
}

// ---- [SECTION] per-frame data --------------------------------------------------------------------

// A heat texture of w x h (recreated when the size changes) with a staging buffer, and the descriptor
// pointing at it.
std::string Core::ensure_heat(int w, int h) {
  if (heat_.image && heat_.w == w && heat_.h == h) return {};
  vkDeviceWaitIdle(device);
  free_image(heat_);
  free_buffer(heat_staging_);
  std::string err =
      make_image(w, h, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, heat_);
  if (err.empty())
    err =
        make_buffer(static_cast<VkDeviceSize>(w) * h * sizeof(float), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, heat_staging_);
  if (!err.empty()) return err;
  std::memset(heat_staging_.mapped, 0, heat_staging_.size);
  VkDescriptorImageInfo ii{sampler_, heat_.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet wr{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  wr.dstSet = set_;
  wr.dstBinding = 0;
  wr.descriptorCount = 1;
  wr.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  wr.pImageInfo = &ii;
  vkUpdateDescriptorSets(device, 1, &wr, 0, nullptr);
  return {};
}

std::string Core::ensure_vertices(Buffer& b, std::size_t bytes) {
  if (b.buffer && b.size >= bytes) return {};
  vkDeviceWaitIdle(device);
  free_buffer(b);
  return make_buffer(bytes + bytes / 2, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, b);
}

std::string Core::share_heat(int w, int h, SharedHeat& out) {
  if (w < 1 || h < 1 || w > 16384 || h > 16384) return "share_heat: size must be 1..16384";
  if (!can_export) return "share_heat: the Vulkan device cannot export memory (VK_KHR_external_memory_fd)";
  auto get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"));
  if (!get_fd) return "share_heat: vkGetMemoryFdKHR is missing";
  vkDeviceWaitIdle(device);
  free_buffer(shared_);
  shared_w_ = shared_h_ = 0;
  VkExternalMemoryBufferCreateInfo ebi{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  ebi.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.pNext = &ebi;
  bi.size = static_cast<VkDeviceSize>(w) * h * sizeof(float);
  bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  WM_VK(vkCreateBuffer(device, &bi, nullptr, &shared_.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, shared_.buffer, &req);
  VkExportMemoryAllocateInfo ei{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  ei.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.pNext = &ei;
  ai.allocationSize = req.size;
  std::string err = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, ai.memoryTypeIndex);
  if (!err.empty()) return "share_heat: " + err;
  WM_VK(vkAllocateMemory(device, &ai, nullptr, &shared_.memory));
  WM_VK(vkBindBufferMemory(device, shared_.buffer, shared_.memory, 0));
  shared_.size = req.size;
  VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  gi.memory = shared_.memory;
  gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  WM_VK(get_fd(device, &gi, &fd));
  err = ensure_heat(w, h);
  if (!err.empty()) return "share_heat: " + err;
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &id;
  vkGetPhysicalDeviceProperties2(physical, &p2);
  out.fd = fd;
  out.bytes = static_cast<std::size_t>(req.size);
  out.w = shared_w_ = w;
  out.h = shared_h_ = h;
  std::memcpy(out.device_uuid, id.deviceUUID, sizeof out.device_uuid);
  return {};
}

std::string Core::prepare(const Frame& f) {
  std::string err = check_frame(f);
  if (!err.empty()) return err;
  const bool has_heat = engine::has_heat(f);
  if (f.heat_shared && (!shared_.buffer || f.heat_w != shared_w_ || f.heat_h != shared_h_))
    return "render: heat_shared needs share_heat() of the frame's heat size first";
  if (has_heat) err = ensure_heat(f.heat_w, f.heat_h);
  if (err.empty()) err = ensure_vertices(units_, std::max<std::size_t>(f.unit_count, 1) * sizeof(UnitInstance));
  if (err.empty()) err = ensure_vertices(lines_, std::max<std::size_t>(f.line_vertex_count, 2) * sizeof(LineVertex));
  if (err.empty()) err = ensure_vertices(fills_, std::max<std::size_t>(f.fill_vertex_count, 3) * sizeof(LineVertex));
  if (!err.empty()) return "render: " + err;
  if (has_heat && !f.heat_shared)
    std::memcpy(heat_staging_.mapped, f.heat, static_cast<std::size_t>(f.heat_w) * f.heat_h * sizeof(float));
  if (f.unit_count) std::memcpy(units_.mapped, f.units, f.unit_count * sizeof(UnitInstance));
  if (f.line_vertex_count) std::memcpy(lines_.mapped, f.lines, f.line_vertex_count * sizeof(LineVertex));
  if (f.fill_vertex_count) std::memcpy(fills_.mapped, f.fills, f.fill_vertex_count * sizeof(LineVertex));
  return {};
}

void Core::record_uploads(VkCommandBuffer c, const Frame& f) {
  if (!engine::has_heat(f)) return;
  // Heat values: staging buffer -> texture (row 0 = lowest y = texture row 0, sampled with v up).
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = heat_.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &b);
  VkBufferImageCopy copy{};
  copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  copy.imageExtent = {static_cast<std::uint32_t>(f.heat_w), static_cast<std::uint32_t>(f.heat_h), 1};
  vkCmdCopyBufferToImage(c, f.heat_shared ? shared_.buffer : heat_staging_.buffer, heat_.image,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &b);
}

std::string Core::begin_scene(VkCommandBuffer c, VkRenderPass pass, VkFramebuffer framebuffer, int width, int height,
                              const Frame& f) {
  WM_VK(vkResetCommandBuffer(c, 0));
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  WM_VK(vkBeginCommandBuffer(c, &bi));
  record_uploads(c, f);
  VkClearValue clear{};
  clear.color = {{0.02f, 0.02f, 0.03f, 1.0f}};
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = pass;
  rp.framebuffer = framebuffer;
  rp.renderArea = {{0, 0}, {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)}};
  rp.clearValueCount = 1;
  rp.pClearValues = &clear;
  vkCmdBeginRenderPass(c, &rp, VK_SUBPASS_CONTENTS_INLINE);
  record_draws(c, f, width, height);
  return {};
}

void Core::record_draws(VkCommandBuffer c, const Frame& f, int width, int height) {
  const VkViewport viewport{0, 0, static_cast<float>(width), static_cast<float>(height), 0, 1};
  const VkRect2D scissor{{0, 0}, {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)}};
  vkCmdSetViewport(c, 0, 1, &viewport);
  vkCmdSetScissor(c, 0, 1, &scissor);
  const PushConstants pc{{f.camera.x0, f.camera.y0, f.camera.x1, f.camera.y1},
                         {f.heat_area.x0, f.heat_area.y0, f.heat_area.x1, f.heat_area.y1},
                         {f.heat_lo, f.heat_hi, 0.0f, 0.0f}};
  vkCmdPushConstants(c, layout_, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pc, &pc);
  const VkDeviceSize offset = 0;
  if (engine::has_heat(f)) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, heat_pipeline_);
    vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &set_, 0, nullptr);
    vkCmdDraw(c, 3, 1, 0, 0);
  }
  if (f.fill_vertex_count) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, fill_pipeline_);
    vkCmdBindVertexBuffers(c, 0, 1, &fills_.buffer, &offset);
    vkCmdDraw(c, static_cast<std::uint32_t>(f.fill_vertex_count), 1, 0, 0);
  }
  if (f.unit_count) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, disc_pipeline_);
    vkCmdBindVertexBuffers(c, 0, 1, &units_.buffer, &offset);
    vkCmdDraw(c, 6, static_cast<std::uint32_t>(f.unit_count), 0, 0);
  }
  if (f.line_vertex_count) {
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, line_pipeline_);
    vkCmdBindVertexBuffers(c, 0, 1, &lines_.buffer, &offset);
    vkCmdDraw(c, static_cast<std::uint32_t>(f.line_vertex_count), 1, 0, 0);
  }
}

}  // namespace detail
}  // namespace warpmind::engine
