// What the benchmark programs and tests need from inside the library, kept out of its public API (target
// warpmind_bench_support: built with the tree, never installed): the floors a benchmark prints beside its
// figures.
#pragma once

#include <cstdint>
#include <span>

#include "warpmind/core/context.h"
#include "warpmind/field/field.h"

namespace warpmind {

// Measured device ceilings (CUDA contexts; Unavailable on a CPU one).
struct DeviceCeilings {
  double copy_bytes_per_s = 0;      // device-to-device copy, bytes read + written
  double int_adds_per_s = 0;        // independent 32-bit integer adds
  double download_bytes_per_s = 0;  // device to page-locked host memory (the host link)
};
Status measure_ceilings(Context& ctx, DeviceCeilings& out);

namespace field {
// Counts the (cell, charge) pairs inside the cut-offs for these entities (the work any exact method
// must do).
std::uint64_t count_evaluations(const FieldConfig& config, std::span<const Entity> entities);
}  // namespace field

}  // namespace warpmind
