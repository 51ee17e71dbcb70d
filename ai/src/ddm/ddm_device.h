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

// Page-locked host memory for the regions the matcher keeps packed between matches: match() copies from
// it to the device by DMA, with no staging copy on the host. Blocking; any thread. *out is null on an
// error. ddm_host_free(nullptr) does nothing.
Status ddm_host_alloc(std::size_t bytes, void** out);
void ddm_host_free(void* p);

// The regions one match reads, packed by kind: boxes of 2 * dims floats each (lo[0..dims),
// hi[0..dims)), ids ascending within each kind. Read by asynchronous copies, so the memory must stay
// unchanged until match() returns; page-locked memory (ddm_host_alloc) makes them full-speed DMA,
// any other host memory works, slower.
struct DdmRegions {
  const float* pub_boxes = nullptr;
  const std::uint32_t* pub_ids = nullptr;
  std::size_t np = 0;
  const float* sub_boxes = nullptr;
  const std::uint32_t* sub_ids = nullptr;
  std::size_t ns = 0;
  // The caller changes it whenever either id list may have changed (regions added, slots moved): the ids
  // are uploaded only when it differs from the last successful match's (boxes are uploaded every time).
  std::uint64_t ids_version = 0;
};

// Not thread-safe. Every call but diff() blocks until its work on the stream is done.
class DdmDevice {
 public:
  static Status create(void* stream, DdmKernel kernel, int dims, std::unique_ptr<DdmDevice>& out);
  ~DdmDevice();
  // Uploads the regions and matches them; leaves the sorted pairs in device memory and their number in
  // `pairs`.
  Status match(const DdmRegions& regions, const DdmGrid& grid, std::size_t& pairs, DdmTimes& times);
  // The pairs of the last match as (publication, subscription) id pairs, 2 * pairs values, copied into
  // page-locked staging owned by this object: *out points there until the next call on this object.
  Status download(const std::uint32_t** out, DdmTimes& times);
  // The changes since the match before: keep() sets the last match's pairs aside (call it before the new
  // match); diff() then finds, on the device, the pairs of the new match missing from the kept ones
  // (appeared) and the kept ones missing from the new (disappeared), both lists sorted, and returns their
  // sizes, leaving the lists being written on the stream. download_changes() (call it next) copies them
  // into the staging (2 values a pair; *appeared and *disappeared point there until the next call on this
  // object), adding diff()'s device time to times.match and the transfer time to times.download.
  void keep();
  void unkeep();  // after a failed match or diff: the kept pairs become the last match's again
  Status diff(std::size_t& appeared, std::size_t& disappeared);
  Status download_changes(const std::uint32_t** appeared, const std::uint32_t** disappeared, DdmTimes& times);

  struct Impl;

 private:
  DdmDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
