// Measured device ceilings (device_ceilings.h).
#include "warpmind/core/device_ceilings.h"

#if WARPMIND_HAVE_CUDA
#include "core/device.h"
#endif

namespace warpmind {

Status measure_ceilings(Context& ctx, DeviceCeilings& out) {
  if (!ctx.cuda()) return Status::Unavailable("device ceilings need the CUDA backend");
#if WARPMIND_HAVE_CUDA
  DeviceCeilings c;  // out changes only when every measure succeeded
  WM_RETURN_IF_ERROR(gpu::measure_copy_bandwidth(ctx.stream(), &c.copy_bytes_per_s));
  WM_RETURN_IF_ERROR(gpu::measure_int_add_rate(ctx.stream(), &c.int_adds_per_s));
  WM_RETURN_IF_ERROR(gpu::measure_download_bandwidth(ctx.stream(), &c.download_bytes_per_s));
  out = c;
#else
  (void)out;
#endif
  return Status::Ok();
}

}  // namespace warpmind
