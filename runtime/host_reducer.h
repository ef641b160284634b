#pragma once
// HostReducer: element-wise sums in host memory for fp32, fp16 and bf16.
//
// fp16 and bf16 are summed through float: each element is widened, added in fp32 and rounded
// back to nearest-even once, which is what NCCL's and gloo's CPU paths do. The loops are plain
// element-wise loops over arrays (no aliasing between dst and src is assumed away: callers
// pass distinct buffers), written so that GCC/Clang auto-vectorise them at -O2/-O3.

#include <cstdint>

#include "runtime/transport.h"

namespace topotune::rt {

/// Converts between IEEE binary16 / bfloat16 bit patterns and float (round to nearest even,
/// NaN stays NaN, overflow to infinity). Exposed for tests and for the measurement harness.
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);
float bf16_to_float(std::uint16_t b);
std::uint16_t float_to_bf16(float f);

/// Reducer for MemoryKind::Host buffers.
class HostReducer final : public Reducer {
 public:
  /// dst[i] += src[i]; the views must have the same size, a multiple of the element size.
  [[nodiscard]] Expected<void> sum(BufferView dst, ConstBufferView src,
                                   sched::DataType dtype) override;
};

}  // namespace topotune::rt
