// What the GPU of a CUDA context can do at most, measured: the floors a benchmark prints beside its times.
// measure_ceilings runs short timed kernels and copies on the context's stream (tens of milliseconds) and
// fills every field, in bytes or operations a second; on a CPU context, or when a measurement fails, it
// returns the error and leaves `out` as it was. Not for a game's tick.
#pragma once

#include "warpmind/core/context.h"

namespace warpmind {

struct DeviceCeilings {
  double copy_bytes_per_s = 0;      // device-to-device copy, bytes read + written
  double int_adds_per_s = 0;        // independent 32-bit integer adds
  double download_bytes_per_s = 0;  // device to page-locked host memory (the host link)
};

Status measure_ceilings(Context& ctx, DeviceCeilings& out);

}  // namespace warpmind
