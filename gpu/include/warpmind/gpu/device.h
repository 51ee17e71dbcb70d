// Host-only view of the CUDA device layer. ai/ calls these through the Context; no CUDA headers here.
// Every function returns an empty string on success and a one-line reason otherwise.
#pragma once

#include <cstddef>
#include <string>

namespace warpmind::gpu {

struct DeviceProbe {
  bool usable = false;
  std::string reason;  // why not usable
  std::string name;
  int sm_count = 0, major = 0, minor = 0;
  std::size_t memory_bytes = 0;
};

// Never fails hard: a missing driver or device is reported through `usable`/`reason`.
DeviceProbe probe_device(int ordinal);
std::string create_stream(int ordinal, void** stream);
void destroy_stream(void* stream);
std::string synchronize(void* stream);

}  // namespace warpmind::gpu

namespace warpmind::gpu {

// Plain device memory and copies (synchronous on the given stream).
std::string device_alloc(std::size_t bytes, void** out);
void device_free(void* p);
std::string copy_to_device(void* dst, const void* src, std::size_t bytes, void* stream);
std::string copy_to_host(void* dst, const void* src, std::size_t bytes, void* stream);

// Event pairs for timing work queued on a stream.
std::string event_create(void** ev);
void event_destroy(void* ev);
std::string event_record(void* ev, void* stream);
std::string event_elapsed_ms(void* start, void* stop, float* ms);  // waits for `stop`

// Ceilings for benchmark floors, measured on the current device: device-to-device copy bandwidth
// (bytes read + written per second) and the rate of dependent-free 32-bit integer adds per second.
std::string measure_copy_bandwidth(void* stream, double* bytes_per_s);
std::string measure_int_add_rate(void* stream, double* adds_per_s);
// Device-to-host copy into page-locked memory, bytes per second (the host link).
std::string measure_download_bandwidth(void* stream, double* bytes_per_s);

}  // namespace warpmind::gpu
