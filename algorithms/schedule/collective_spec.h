#pragma once
// What a collective must achieve, independent of how: the operation, the ranks, the buffer.
//
// Sizes follow nccl-tests: `bytes` is the whole logical buffer S. For reduce-scatter and
// allgather, rank i owns block(i) of S (block() below: element-aligned, the first S/elem % n
// blocks one element larger), so S = n * per-rank count * element size when it divides.

#include <string>
#include <string_view>

#include "core/expected.h"
#include "core/strong_id.h"
#include "core/units.h"

namespace topotune::sched {

enum class Collective { Allreduce, ReduceScatter, Allgather, Broadcast };
enum class DataType { F32, F16, BF16 };

/// Bytes per element.
int dtype_size(DataType t);
const char* collective_name(Collective c);  ///< "allreduce", "reduce_scatter", ...
const char* dtype_name(DataType t);         ///< "fp32", "fp16", "bf16"
Expected<Collective> parse_collective(std::string_view name);
Expected<DataType> parse_dtype(std::string_view name);  ///< accepts fp32/float32/f32, ...

/// nccl-tests' bus bandwidth factor (busbw = algbw x factor), the one definition every
/// module uses: allreduce 2(n-1)/n, reduce-scatter and allgather (n-1)/n, broadcast 1 (also
/// at n = 1). NVIDIA/nccl-tests src/all_reduce.cu AllReduceGetBw, src/reduce_scatter.cu,
/// src/all_gather.cu, src/broadcast.cu BroadcastGetBw (commit ec1b5e22). 0 for n < 1.
double busbw_factor(Collective c, int ranks);

/// The most ranks a collective may have (2^20): every index of a schedule fits in 32 bits
/// and byte totals in 64 (core/units.h kMaxBufferBytes). See docs/limits.md.
inline constexpr int kMaxRanks = 1 << 20;

/// The contract of one collective call.
struct CollectiveSpec {
  Collective collective = Collective::Allreduce;
  int ranks = 1;
  Bytes bytes{0};  ///< the logical buffer S (see the file comment)
  DataType dtype = DataType::F32;
  bool in_place = true;  ///< informational: the runtime may use separate buffers
  RankId root{0};        ///< broadcast only

  std::int64_t elements() const { return bytes.value / dtype_size(dtype); }
  /// Checks 1 <= ranks <= kMaxRanks, 0 <= bytes <= kMaxBufferBytes and a multiple of the
  /// element size, root in range.
  Expected<void> check() const;
};

/// [offset, offset + size) of the logical buffer, in bytes.
struct Slice {
  Bytes offset{0};
  Bytes size{0};
  Bytes end() const { return offset + size; }
  bool empty() const { return size.value == 0; }
  bool operator==(const Slice&) const = default;
};

/// Block i of n of `whole`, split on element boundaries: the first (elements % n) blocks get one
/// extra element. Every algorithm, the interpreter and the executor agree on this partition.
Slice block(Slice whole, int elem_size, int i, int n);

/// Block i of n of the spec's whole buffer.
inline Slice block(const CollectiveSpec& spec, int i, int n) {
  return block(Slice{Bytes(0), spec.bytes}, dtype_size(spec.dtype), i, n);
}

}  // namespace topotune::sched
