/* The Vulkan instance and device: loading through volk, the validation layer
 * (with synchronization checks) routed to oak's log, device choice by name or
 * index with discrete GPUs first, and the probe report `oak info` prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/craster.h"
#include "backend/gpu/meshcull.h"
#include "vk_internal.h"

const char *_oak_vk_result_name(VkResult r) {
    switch (r) {
    case VK_SUCCESS:
        return "VK_SUCCESS";
    case VK_NOT_READY:
        return "VK_NOT_READY";
    case VK_TIMEOUT:
        return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
        return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
        return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
        return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
        return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
        return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
        return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
        return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
        return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
        return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL:
        return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY:
        return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default:
        return "VkResult error";
    }
}

/* Device loss sticks: every later call reports it instead of touching the
 * device again. Memory errors map to OAK_ERROR_OUT_OF_MEMORY. */
oak_result _oak_vk_fail(_oak_vk *vk, VkResult r, const char *call, const char *file, int line) {
    /* a wait past the device's timeout (vk_frame.c) counts as a lost device */
    if ((r == VK_ERROR_DEVICE_LOST || r == VK_TIMEOUT) && vk) vk->lost = true;
    oak_result code = (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
                          ? OAK_ERROR_OUT_OF_MEMORY
                          : OAK_ERROR_DEVICE;
    const char *base = strrchr(file, '/');
    if (r == VK_TIMEOUT && vk)
        return oak_error(
            code, "vulkan: %s:%d: %.60s timed out after %u s (the device counts as lost)",
            base ? base + 1 : file, line, call, (unsigned)(vk->fence_timeout / 1000000000u));
    return oak_error(code, "vulkan: %s:%d: %.60s failed: %s", base ? base + 1 : file, line, call,
                     _oak_vk_result_name(r));
}

static VKAPI_ATTR VkBool32 VKAPI_CALL _oak_vk_debug(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)user;
    /* The loader speaks through the same messenger (GENERAL messages): keep
       validation findings, which tests count as failures, apart. */
    const char *who = types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)
                          ? "validation"
                          : "loader";
    const char *msg = data && data->pMessage ? data->pMessage : "(no message)";
    /* The log takes one line per message; validation messages can be long. */
    char line[1024];
    snprintf(line, sizeof line, "%s", msg);
    for (char *c = line; *c; c++)
        if (*c == '\n') *c = ' ';
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
        oak_log(OAK_LOG_ERROR, "vulkan %s: %s", who, line);
    else
        oak_log(OAK_LOG_WARN, "vulkan %s: %s", who, line);
    return VK_FALSE;
}

static bool _oak_vk_env_on(const char *name) {
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

static bool _oak_vk_has_layer(const char *name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || !n) return false;
    VkLayerProperties *props = oak_calloc(n, sizeof *props);
    if (!props) return false;
    bool found = false;
    if (vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].layerName, name);
    oak_free(props);
    return found;
}

static bool _oak_vk_has_instance_ext(const char *layer, const char *name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *props = oak_calloc(n, sizeof *props);
    if (!props) return false;
    bool found = false;
    if (vkEnumerateInstanceExtensionProperties(layer, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].extensionName, name);
    oak_free(props);
    return found;
}

static bool _oak_vk_has_device_ext(VkPhysicalDevice pd, const char *name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *props = oak_calloc(n, sizeof *props);
    if (!props) return false;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].extensionName, name);
    oak_free(props);
    return found;
}

static oak_result _oak_vk_loader(void) {
    static int state; /* 0 untried, 1 loaded, 2 failed */
    if (state == 0) state = volkInitialize() == VK_SUCCESS ? 1 : 2;
    if (state == 2)
        return oak_error(OAK_ERROR_DEVICE, "vulkan: no Vulkan loader (libvulkan.so.1) found");
    return OAK_OK;
}

static oak_result _oak_vk_instance(VkInstance *out, VkDebugUtilsMessengerEXT *messenger,
                                   bool validation, const oak_window_hooks *window) {
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "oak",
        .pEngineName = "oak",
        .engineVersion = VK_MAKE_VERSION(OAK_VERSION_MAJOR, OAK_VERSION_MINOR, OAK_VERSION_PATCH),
        .apiVersion = VK_API_VERSION_1_3};
    if (volkGetInstanceVersion() < VK_API_VERSION_1_3) app.apiVersion = VK_API_VERSION_1_2;
    const char *layers[1];
    const char *exts[2 + OAK_VK_WINDOW_EXTS];
    uint32_t layer_count = 0, ext_count = 0;
    /* a window's surface extensions, only when a window asks (headless runs
       enable none) */
    if (window && window->vk_extension_count > OAK_VK_WINDOW_EXTS)
        return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: the window asks for %u extensions",
                         window->vk_extension_count);
    for (uint32_t i = 0; window && i < window->vk_extension_count; i++) {
        if (!_oak_vk_has_instance_ext(NULL, window->vk_extensions[i]))
            return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: no %s for the window's surface",
                             window->vk_extensions[i]);
        exts[ext_count++] = window->vk_extensions[i];
    }
    bool debug = false;
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                        .enabledValidationFeatureCount = 1,
                                        .pEnabledValidationFeatures = enables};
    const void *next = NULL;
    if (validation) {
        if (!_oak_vk_has_layer("VK_LAYER_KHRONOS_validation"))
            oak_log_warn("vulkan: OAK_VK_VALIDATION set but VK_LAYER_KHRONOS_validation is "
                         "not installed; running without it");
        else {
            layers[layer_count++] = "VK_LAYER_KHRONOS_validation";
            if (_oak_vk_has_instance_ext("VK_LAYER_KHRONOS_validation",
                                         VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
                exts[ext_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
                next = &features;
            }
        }
    }
    if (_oak_vk_has_instance_ext(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) && layer_count) {
        exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        debug = true;
    }
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = _oak_vk_debug};
    if (debug) {
        dbg.pNext = next;
        next = &dbg; /* also catches messages from vkCreateInstance itself */
    }
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = next,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = layer_count,
                               .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = ext_count,
                               .ppEnabledExtensionNames = exts};
    VkResult r = vkCreateInstance(&ci, NULL, out);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return oak_error(OAK_ERROR_DEVICE, "vulkan: no Vulkan driver found (vkCreateInstance: %s)",
                         _oak_vk_result_name(r));
    if (r != VK_SUCCESS)
        return oak_error(r == VK_ERROR_OUT_OF_HOST_MEMORY ? OAK_ERROR_OUT_OF_MEMORY
                                                          : OAK_ERROR_DEVICE,
                         "vulkan: vkCreateInstance failed: %s", _oak_vk_result_name(r));
    volkLoadInstance(*out);
    _oak_vk_pin_drivers();
    *messenger = VK_NULL_HANDLE;
    if (debug) {
        dbg.pNext = NULL;
        r = vkCreateDebugUtilsMessengerEXT(*out, &dbg, NULL, messenger);
        if (r != VK_SUCCESS)
            oak_log_warn("vulkan: no debug messenger (%s)", _oak_vk_result_name(r));
    }
    return OAK_OK;
}

/* What oak needs and what it uses when present, for one device. */
typedef struct _oak_vk_caps {
    VkPhysicalDeviceProperties props;
    VkDriverId driver_id;
    char driver[300];      /* its name (info) */
    uint32_t queue_family; /* UINT32_MAX: no graphics+compute queue */
    bool dynamic_rendering, dynamic_rendering_ext, sync2, sync2_ext, maintenance4;
    bool geometry_shader, multi_draw, first_instance, int64, int64_atomics, mesh_shader,
        descriptor_indexing, ray_tracing, timestamps, clip_distance, draw_count, fragment_stores;
    /* what bindless textures need beyond descriptor_indexing */
    bool partially_bound, variable_count;
    bool task_mesh; /* VK_EXT_mesh_shader with its taskShader and meshShader features */
} _oak_vk_caps;

static void _oak_vk_caps_get(VkPhysicalDevice pd, _oak_vk_caps *c) {
    memset(c, 0, sizeof *c);
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &drv};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    c->props = p2.properties;
    c->driver_id = drv.driverID;
    snprintf(c->driver, sizeof c->driver, "%.100s (%.150s)", drv.driverName, drv.driverInfo);
    c->queue_family = UINT32_MAX;
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties qf[16];
    if (n > 16) n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, qf);
    for (uint32_t i = 0; i < n; i++) {
        VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((qf[i].queueFlags & need) == need) {
            c->queue_family = i;
            c->timestamps =
                qf[i].timestampValidBits > 0 && c->props.limits.timestampComputeAndGraphics;
            break;
        }
    }
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &f12};
    bool v13 = c->props.apiVersion >= VK_API_VERSION_1_3;
    if (v13) f12.pNext = &f13;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    c->geometry_shader = f2.features.geometryShader;
    c->multi_draw = f2.features.multiDrawIndirect;
    c->first_instance = f2.features.drawIndirectFirstInstance;
    c->clip_distance = f2.features.shaderClipDistance;
    c->int64 = f2.features.shaderInt64;
    c->fragment_stores = f2.features.fragmentStoresAndAtomics;
    c->int64_atomics = f12.shaderBufferInt64Atomics;
    c->draw_count = f12.drawIndirectCount;
    c->descriptor_indexing = f12.descriptorIndexing && f12.runtimeDescriptorArray &&
                             f12.shaderSampledImageArrayNonUniformIndexing;
    c->partially_bound = f12.descriptorBindingPartiallyBound;
    c->variable_count = f12.descriptorBindingVariableDescriptorCount;
    c->dynamic_rendering = v13 && f13.dynamicRendering;
    c->sync2 = v13 && f13.synchronization2;
    c->maintenance4 = v13 && f13.maintenance4;
    c->dynamic_rendering_ext = !c->dynamic_rendering &&
                               _oak_vk_has_device_ext(pd, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME);
    c->sync2_ext = !c->sync2 && _oak_vk_has_device_ext(pd, "VK_KHR_synchronization2");
    c->mesh_shader = _oak_vk_has_device_ext(pd, "VK_EXT_mesh_shader");
    if (c->mesh_shader) {
        VkPhysicalDeviceMeshShaderFeaturesEXT ms = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
        VkPhysicalDeviceFeatures2 mf = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &ms};
        vkGetPhysicalDeviceFeatures2(pd, &mf);
        c->task_mesh = ms.taskShader && ms.meshShader;
    }
    c->ray_tracing = _oak_vk_has_device_ext(pd, "VK_KHR_ray_tracing_pipeline") ||
                     _oak_vk_has_device_ext(pd, "VK_KHR_ray_query");
}

/* Bindless textures (vk_resources.c): the runtime array's length, or 0 with
 * *why saying why the size classes serve instead. The array shares the
 * stage's and the set's sampled-image and resource limits with every other
 * binding (OAK_B_COUNT of them, counted whole to stay clear); without
 * update-after-bind those are the limits that apply (each slot's set is
 * rewritten before its frame is recorded, never while one is in flight). */
static uint32_t _oak_vk_bindless_length(const _oak_vk_caps *c, const char **why) {
    const char *env = getenv("OAK_BINDLESS");
    if (env && (!strcmp(env, "off") || !strcmp(env, "0"))) {
        *why = "OAK_BINDLESS=off";
        return 0;
    }
    if (!c->descriptor_indexing) {
        *why = "needs runtimeDescriptorArray and shaderSampledImageArrayNonUniformIndexing";
        return 0;
    }
    if (!c->partially_bound || !c->variable_count) {
        *why = "needs descriptorBindingPartiallyBound and descriptorBindingVariableDescriptorCount";
        return 0;
    }
    const VkPhysicalDeviceLimits *l = &c->props.limits;
    uint32_t n = l->maxPerStageDescriptorSampledImages;
    if (l->maxDescriptorSetSampledImages < n) n = l->maxDescriptorSetSampledImages;
    if (l->maxPerStageResources < n) n = l->maxPerStageResources;
    n = n > OAK_B_COUNT ? n - OAK_B_COUNT : 0;
    if (n > OAK_VK_BINDLESS_MAX) n = OAK_VK_BINDLESS_MAX;
    if (n < OAK_GPU_TEXTURE_CLASSES) {
        *why = "too few sampled images a stage";
        return 0;
    }
    *why = NULL;
    return n;
}

/* Why a device cannot run oak, or NULL when it can. */
static const char *_oak_vk_caps_missing(const _oak_vk_caps *c) {
    if (c->props.apiVersion < VK_API_VERSION_1_2) return "Vulkan 1.2 is required";
    if (c->queue_family == UINT32_MAX) return "no queue with graphics and compute";
    if (!c->dynamic_rendering && !c->dynamic_rendering_ext) return "no dynamic rendering";
    if (!c->sync2 && !c->sync2_ext) return "no synchronization2";
    if (!c->geometry_shader) return "no geometryShader (needed for gl_PrimitiveID)";
    if (!c->first_instance) return "no drawIndirectFirstInstance";
    if (!c->clip_distance) return "no shaderClipDistance (the shadow atlas needs it)";
    return NULL;
}

static const char *_oak_vk_type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "cpu";
    default:
        return "other";
    }
}

static int _oak_vk_type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 3;
    default:
        return 4;
    }
}

#define OAK_VK_MAX_DEVICES 16

static uint32_t _oak_vk_devices(VkInstance inst, VkPhysicalDevice *out) {
    uint32_t n = OAK_VK_MAX_DEVICES;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, out);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return 0;
    return n;
}

oak_result _oak_vk_probe(char *report, size_t size) {
    if (report && size) report[0] = 0;
    oak_result res = _oak_vk_loader();
    if (res) {
        if (report) snprintf(report, size, "%s", oak_last_error());
        return res;
    }
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    res = _oak_vk_instance(&inst, &messenger, false, NULL);
    if (res) {
        if (report) snprintf(report, size, "%s", oak_last_error());
        return res;
    }
    VkPhysicalDevice pds[OAK_VK_MAX_DEVICES];
    uint32_t n = _oak_vk_devices(inst, pds);
    size_t used = 0;
#define OAK_VK_REPORT(...)                                                                         \
    do {                                                                                           \
        if (report && used < size) {                                                               \
            int w_ = snprintf(report + used, size - used, __VA_ARGS__);                            \
            if (w_ > 0) used += (size_t)w_;                                                        \
        }                                                                                          \
    } while (0)
    bool usable = false;
    if (!n) OAK_VK_REPORT("no Vulkan devices\n");
    for (uint32_t i = 0; i < n; i++) {
        _oak_vk_caps c;
        _oak_vk_caps_get(pds[i], &c);
        const char *missing = _oak_vk_caps_missing(&c);
        usable |= missing == NULL;
        OAK_VK_REPORT("device %u: %s (%s)\n", i, c.props.deviceName,
                      _oak_vk_type_name(c.props.deviceType));
        OAK_VK_REPORT("  driver: %s\n", c.driver);
        OAK_VK_REPORT("  api: %u.%u.%u\n", VK_API_VERSION_MAJOR(c.props.apiVersion),
                      VK_API_VERSION_MINOR(c.props.apiVersion),
                      VK_API_VERSION_PATCH(c.props.apiVersion));
        OAK_VK_REPORT("  multiDrawIndirect: %s -> %s\n", c.multi_draw ? "yes" : "no",
                      c.multi_draw ? "one indirect multi-draw per pipeline"
                                   : "a loop of indirect draws");
        OAK_VK_REPORT("  drawIndirectCount: %s -> %s\n", c.draw_count ? "yes" : "no",
                      c.draw_count ? "Hi-Z occlusion compacts its draws on the GPU"
                                   : "Hi-Z occlusion draws in place (instance count 0 or 1)");
        bool craster = c.int64 && c.int64_atomics;
        _oak_craster_mode mode = _oak_craster_mode_get();
        bool craster_on = craster && mode != OAK_CRASTER_MODE_OFF;
        OAK_VK_REPORT("  64-bit atomics: %s -> %s%s%s\n", c.int64_atomics ? "yes" : "no",
                      !craster ? "hardware raster (the compute raster needs shaderInt64 and "
                                 "64-bit buffer atomics)"
                      : mode == OAK_CRASTER_MODE_OFF ? "hardware raster (OAK_CRASTER=off)"
                      : mode == OAK_CRASTER_MODE_ALL
                          ? "compute raster of every stream band it can take (OAK_CRASTER=all; "
                            "under Hi-Z once a pass)"
                          : "compute raster of small stream triangles (OAK_CRASTER=on; under "
                            "Hi-Z once a pass)",
                      craster_on ? ": " : "", craster_on ? _oak_craster_kinds() : "");
        OAK_VK_REPORT("  compute raster per instance: %s\n", _oak_craster_instance_words(craster));
        OAK_VK_REPORT("  shadow compute raster: %s\n",
                      _oak_craster_shadow_words(craster, "shaderInt64 and 64-bit buffer atomics"));
        OAK_VK_REPORT("  fragmentStoresAndAtomics: %s -> %s\n", c.fragment_stores ? "yes" : "no",
                      !c.fragment_stores ? "water shaded in the blend pass's fragment shader"
                      : _oak_vk_env_on("OAK_VK_WATER_FORWARD")
                          ? "water shaded in the blend pass's fragment shader "
                            "(OAK_VK_WATER_FORWARD=1)"
                          : "water's pixels found by its fragments, shaded in compute");
        /* the camera's meshlet jobs (vk_mesh_shader.c) */
        OAK_VK_REPORT("  mesh shaders: %s -> %s\n",
                      c.task_mesh     ? "yes (task and mesh)"
                      : c.mesh_shader ? "VK_EXT_mesh_shader without task shaders"
                                      : "no",
                      !c.task_mesh ? "meshlets culled into an expanded index buffer (the meshcull "
                                     "pass), vertex pulling in a vertex shader"
                      : !_oak_vk_mesh_wanted()
                          ? "not used unless OAK_MESH_SHADERS=on (slower on the H200's dense "
                            "world): meshlets culled into an expanded index buffer"
                          : "the camera's meshlets culled in a task shader and drawn by a mesh "
                            "shader; shadows and --occlusion on (two-pass Hi-Z) keep the "
                            "expanded index buffer");
        const char *bl_why = NULL;
        uint32_t bl = _oak_vk_bindless_length(&c, &bl_why);
        if (bl)
            OAK_VK_REPORT("  descriptor indexing: yes -> bindless textures, each its own image "
                          "in one runtime array of %u\n",
                          bl);
        else
            OAK_VK_REPORT("  descriptor indexing: %s -> texture arrays by size class (%s)\n",
                          c.descriptor_indexing ? "yes" : "no", bl_why);
        OAK_VK_REPORT("  ray tracing: %s -> shadow maps\n", c.ray_tracing ? "yes" : "no");
        OAK_VK_REPORT("  dynamic rendering: %s\n", c.dynamic_rendering       ? "core"
                                                   : c.dynamic_rendering_ext ? "extension"
                                                                             : "no");
        OAK_VK_REPORT("  timestamps: %s\n", c.timestamps ? "yes" : "no");
        OAK_VK_REPORT("  usable: %s\n", missing ? missing : "yes");
    }
#undef OAK_VK_REPORT
    if (messenger) vkDestroyDebugUtilsMessengerEXT(inst, messenger, NULL);
    vkDestroyInstance(inst, NULL);
    if (!usable) return oak_error(OAK_ERROR_DEVICE, "vulkan: no usable Vulkan device");
    return OAK_OK;
}

/* want: NULL/"" for the best (discrete first), a decimal index, or a
 * case-sensitive substring of the device name. */
static oak_result _oak_vk_pick(_oak_vk *vk, const char *want, bool hardware_only,
                               _oak_vk_caps *caps) {
    VkPhysicalDevice pds[OAK_VK_MAX_DEVICES];
    uint32_t n = _oak_vk_devices(vk->instance, pds);
    if (!n) return oak_error(OAK_ERROR_DEVICE, "vulkan: no Vulkan devices");
    int best = -1, best_rank = 1 << 30;
    const char *why = "no device matches";
    char *end = NULL;
    long index = (want && *want) ? strtol(want, &end, 10) : -1;
    bool by_index = want && *want && end && *end == 0;
    for (uint32_t i = 0; i < n; i++) {
        _oak_vk_caps c;
        _oak_vk_caps_get(pds[i], &c);
        if (by_index && (long)i != index) continue;
        if (want && *want && !by_index && !strstr(c.props.deviceName, want)) continue;
        const char *missing = _oak_vk_caps_missing(&c);
        if (!missing && hardware_only && c.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
            missing = "only a software device (the cpu backend is faster there)";
        if (missing) {
            why = missing;
            continue;
        }
        int rank = _oak_vk_type_rank(c.props.deviceType);
        if (rank < best_rank) {
            best_rank = rank;
            best = (int)i;
            *caps = c;
        }
    }
    if (best < 0)
        return oak_error(OAK_ERROR_DEVICE, "vulkan: device '%s': %s", want && *want ? want : "any",
                         why);
    vk->phys = pds[best];
    return OAK_OK;
}

oak_result _oak_vk_device_create(_oak_vk *vk, const char *want, bool hardware_only,
                                 const oak_window_hooks *window) {
    oak_result res = _oak_vk_loader();
    if (res) return res;
    vk->validation = _oak_vk_env_on("OAK_VK_VALIDATION");
    res = _oak_vk_instance(&vk->instance, &vk->messenger, vk->validation, window);
    if (res) return res;
    _oak_vk_caps caps = {0};
    res = _oak_vk_pick(vk, want, hardware_only, &caps);
    if (res) return res;
    if (window && (res = _oak_vk_surface_create(vk, window, caps.queue_family))) return res;
    vk->props = caps.props;
    vk->fence_timeout = caps.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                            ? OAK_VK_FENCE_TIMEOUT_CPU
                            : OAK_VK_FENCE_TIMEOUT;
    vk->queue_family = caps.queue_family;
    vk->multi_draw = caps.multi_draw && !_oak_vk_env_on("OAK_VK_NO_MULTIDRAW");
    vk->meshcull = _oak_meshcull_enabled(); /* OAK_MESHCULL=off: every triangle sent */
    /* the mesh path for the camera's meshlet jobs (vk_mesh_shader.c) */
    vk->mesh_shaders = caps.task_mesh && vk->meshcull && _oak_vk_mesh_wanted();
    /* the Hi-Z pass draws its compacted commands by count (vk_hiz.c); a
       test turns it off to check the in-place fallback */
    vk->indirect_count = caps.draw_count && !_oak_vk_env_on("OAK_VK_NO_DRAW_COUNT");
    vk->count_sticks = caps.driver_id == VK_DRIVER_ID_MESA_LLVMPIPE;
    /* the compute raster (vk_craster.c) */
    vk->craster_ok = caps.int64 && caps.int64_atomics;
    /* water shaded in compute (vk_pass_blend.c): its pixels found by a
       fragment shader's atomics; OAK_VK_WATER_FORWARD=1 keeps blend.frag */
    vk->water_compute = caps.fragment_stores && !_oak_vk_env_on("OAK_VK_WATER_FORWARD");
    vk->timestamps = caps.timestamps;
    /* bindless textures, or the size classes and why (vk_resources.c) */
    const char *bl_why = NULL;
    vk->bindless = _oak_vk_bindless_length(&caps, &bl_why);
    if (vk->bindless)
        oak_log_info("vulkan: bindless textures (a runtime array of %u)", vk->bindless);
    else
        oak_log_info("vulkan: textures in size-class arrays (%s)", bl_why);
    vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->mem_props);

    const char *exts[5];
    uint32_t ext_count = 0;
    if (vk->mesh_shaders) exts[ext_count++] = "VK_EXT_mesh_shader";
    if (caps.dynamic_rendering_ext) exts[ext_count++] = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
    if (caps.sync2_ext) exts[ext_count++] = "VK_KHR_synchronization2";
    if (vk->surface) exts[ext_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkPhysicalDeviceMeshShaderFeaturesEXT msf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT,
        .taskShader = VK_TRUE,
        .meshShader = VK_TRUE};
    VkPhysicalDeviceDynamicRenderingFeatures dr = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,
        .pNext = vk->mesh_shaders ? &msf : NULL,
        .dynamicRendering = VK_TRUE};
    /* maintenance4 lets a pass's fragment shader ignore vertex outputs it
       does not read (the blend pass shares the visibility vertex shader) */
    VkPhysicalDeviceMaintenance4Features m4 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES,
        .pNext = &dr,
        .maintenance4 = VK_TRUE};
    VkPhysicalDeviceSynchronization2Features s2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
        .pNext = caps.maintenance4 ? (void *)&m4 : (void *)&dr,
        .synchronization2 = VK_TRUE};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &s2,
        .drawIndirectCount = vk->indirect_count,
        .shaderBufferInt64Atomics = vk->craster_ok,
        .runtimeDescriptorArray = vk->bindless != 0,
        .shaderSampledImageArrayNonUniformIndexing = vk->bindless != 0,
        .descriptorBindingPartiallyBound = vk->bindless != 0,
        .descriptorBindingVariableDescriptorCount = vk->bindless != 0};
    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
        .pNext = &f12,
        .shaderDrawParameters = VK_FALSE};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &f11};
    f2.features.geometryShader = VK_TRUE;
    f2.features.shaderInt64 = vk->craster_ok;
    f2.features.fragmentStoresAndAtomics = vk->water_compute;
    f2.features.multiDrawIndirect = vk->multi_draw;
    f2.features.drawIndirectFirstInstance = VK_TRUE;
    f2.features.shaderStorageImageWriteWithoutFormat = VK_FALSE;
    f2.features.shaderClipDistance = VK_TRUE; /* the shadow pass clips cascades to their tiles */
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = vk->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &f2,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = ext_count,
                              .ppEnabledExtensionNames = exts};
    OAK_VK_TRY(vk, vkCreateDevice(vk->phys, &dci, NULL, &vk->device));
    /* Global entry points through the loader's trampolines, so several
       devices (tests create and destroy many) never share stale pointers. */
    if (caps.dynamic_rendering_ext && !vkCmdBeginRendering) {
        vkCmdBeginRendering =
            (PFN_vkCmdBeginRendering)vkGetDeviceProcAddr(vk->device, "vkCmdBeginRenderingKHR");
        vkCmdEndRendering =
            (PFN_vkCmdEndRendering)vkGetDeviceProcAddr(vk->device, "vkCmdEndRenderingKHR");
    }
    if (caps.sync2_ext && !vkCmdPipelineBarrier2) {
        vkCmdPipelineBarrier2 =
            (PFN_vkCmdPipelineBarrier2)vkGetDeviceProcAddr(vk->device, "vkCmdPipelineBarrier2KHR");
        vkQueueSubmit2 = (PFN_vkQueueSubmit2)vkGetDeviceProcAddr(vk->device, "vkQueueSubmit2KHR");
    }
    vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    if (vk->mesh_shaders) _oak_vk_mesh_start(vk);
    snprintf(vk->device_name, sizeof vk->device_name, "%.200s, %.90s", vk->props.deviceName,
             caps.driver);
    oak_log_info("vulkan: %s, api %u.%u, %s%s", vk->device_name,
                 VK_API_VERSION_MAJOR(vk->props.apiVersion),
                 VK_API_VERSION_MINOR(vk->props.apiVersion),
                 vk->multi_draw ? "multi-draw indirect" : "indirect draw loop",
                 vk->validation ? ", validation on" : "");
    return OAK_OK;
}

void _oak_vk_device_destroy(_oak_vk *vk) {
    if (vk->device) vkDestroyDevice(vk->device, NULL);
    if (vk->surface) vkDestroySurfaceKHR(vk->instance, vk->surface, NULL);
    vk->surface = VK_NULL_HANDLE;
    if (vk->messenger) vkDestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
    if (vk->instance) vkDestroyInstance(vk->instance, NULL);
    vk->device = VK_NULL_HANDLE;
    vk->messenger = VK_NULL_HANDLE;
    vk->instance = VK_NULL_HANDLE;
}
