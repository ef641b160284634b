#pragma once
// Host-side conversion between float values and the bytes of fp32 / fp16 / bf16 elements, with
// CUDA's own conversions (round to nearest even), so that host reference results for the GPU
// reductions and the NCCL checks are computed exactly as the device rounds.

#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/schedule/collective_spec.h"

namespace topotune::rt {

/// The elements of `values` converted to `dtype` (rounded to nearest even), as bytes.
std::vector<std::byte> encode_elements(std::span<const float> values, sched::DataType dtype);
/// The elements stored in `bytes` (a whole number of `dtype` elements) as floats (exact).
std::vector<float> decode_elements(std::span<const std::byte> bytes, sched::DataType dtype);
/// `a + b` rounded to `dtype` as the device's IEEE addition (__hadd, __hadd2) rounds it. Adding
/// in float and then rounding to fp16/bf16 gives the same correctly rounded result, since a
/// float carries at least 2p + 2 bits for those p-bit formats (double rounding is then
/// innocuous, Figueroa 1995).
float add_rounded(float a, float b, sched::DataType dtype);

}  // namespace topotune::rt
