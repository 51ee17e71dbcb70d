// Host-only interface to the CUDA region matching (gpu/src/ddm/ddm.cu). Plain types only. The contract
// (half-open boxes, pairs sorted by (publication id, subscription id)) is
// ai/include/warpmind/ddm/ddm.h; the grid is chosen on the host and used here as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

enum class DdmKernel {
  Region,  // every publication against every subscription, subscriptions tiled through shared memory
  Grid     // subscriptions listed in the grid cells they cover (count, scan, scatter, sort by cell);
           // each pair reported once, in the cell that holds the lower corner of the intersection
};

struct DdmGrid {
  float origin[3];
  float cell[3];       // cell side per axis
  int cells[3];        // cells per axis (1 on axes beyond the dimension)
  unsigned wide = 64;  // regions covering more cells than this are matched against everything
};

struct DdmTimes {
  double upload = 0, match = 0, download = 0;  // ms: boxes up, device time of the match, pairs down
};

// Not thread-safe.
class DdmDevice {
 public:
  static Status create(void* stream, DdmKernel kernel, int dims, std::unique_ptr<DdmDevice>& out);
  ~DdmDevice();
  // Boxes: 2 * dims floats each (lo[0..dims), hi[0..dims)); ids ascending within each kind. Leaves the
  // sorted pairs in device memory and their number in `pairs`.
  Status match(const float* pub_boxes, const std::uint32_t* pub_ids, std::size_t np, const float* sub_boxes,
               const std::uint32_t* sub_ids, std::size_t ns, const DdmGrid& grid, std::size_t& pairs, DdmTimes& times);
  // The pairs of the last match as (publication, subscription) id pairs: 2 * pairs values.
  Status download(std::uint32_t* out, DdmTimes& times);
  // The changes since the match before: keep() sets the last match's pairs aside (call it before the new
  // match); diff() then finds, on the device, the pairs of the new match missing from the kept ones
  // (appeared) and the kept ones missing from the new (disappeared), both lists sorted, and returns their
  // sizes; its device time is added to times.match. download_changes() copies them down (2 values a pair
  // each), adding the transfer time to times.download.
  void keep();
  void unkeep();  // after a failed match or diff: the kept pairs become the last match's again
  Status diff(std::size_t& appeared, std::size_t& disappeared, DdmTimes& times);
  Status download_changes(std::uint32_t* appeared, std::uint32_t* disappeared, DdmTimes& times);

  struct Impl;

 private:
  DdmDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
