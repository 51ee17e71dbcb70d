// Host-only view of the CUDA device layer. ai/ calls these through the Context; no CUDA headers here.
// Every function returns an empty string on success and a one-line reason otherwise.
#pragma once

#include <cstddef>
#include <string>

#include "warpmind/core/status.h"

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
Status create_stream(int ordinal, void** stream);
void destroy_stream(void* stream);
Status synchronize(void* stream);

}  // namespace warpmind::gpu

namespace warpmind::gpu {

// Plain device memory and copies (synchronous on the given stream).
Status device_alloc(std::size_t bytes, void** out);
void device_free(void* p);
Status copy_to_device(void* dst, const void* src, std::size_t bytes, void* stream);
Status copy_to_host(void* dst, const void* src, std::size_t bytes, void* stream);

// Event pairs for timing work queued on a stream.
Status event_create(void** ev);
void event_destroy(void* ev);
Status event_record(void* ev, void* stream);
Status event_elapsed_ms(void* start, void* stop, float* ms);  // waits for `stop`

// Ceilings for benchmark floors, measured on the current device: device-to-device copy bandwidth
// (bytes read + written per second) and the rate of dependent-free 32-bit integer adds per second.
Status measure_copy_bandwidth(void* stream, double* bytes_per_s);
Status measure_int_add_rate(void* stream, double* adds_per_s);
// Device-to-host copy into page-locked memory, bytes per second (the host link).
Status measure_download_bandwidth(void* stream, double* bytes_per_s);

}  // namespace warpmind::gpu
