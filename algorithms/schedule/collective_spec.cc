#include "algorithms/schedule/collective_spec.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "core/enum_names.h"

namespace topotune::sched {

int dtype_size(DataType t) {
  switch (t) {
    case DataType::F32:
      return 4;
    case DataType::F16:
      return 2;
    case DataType::BF16:
      return 2;
  }
  return 4;
}

double busbw_factor(Collective c, int ranks) {
  if (ranks < 1) return 0.0;
  const double n = ranks;
  switch (c) {
    case Collective::Allreduce:
      return 2.0 * (n - 1) / n;
    case Collective::ReduceScatter:
    case Collective::Allgather:
      return (n - 1) / n;
    case Collective::Broadcast:
      return 1.0;
  }
  return 1.0;
}

namespace {

// One table per enum for both directions; the alias rows are the other spellings nccl-tests
// and the frameworks use (matched after normalise).
constexpr auto kCollectiveNames = enum_names<Collective>({
    {Collective::Allreduce, "allreduce"},
    {Collective::ReduceScatter, "reduce_scatter"},
    {Collective::Allgather, "allgather"},
    {Collective::Broadcast, "broadcast"},
    {Collective::Allreduce, "all_reduce", true},
    {Collective::ReduceScatter, "reducescatter", true},
    {Collective::Allgather, "all_gather", true},
    {Collective::Broadcast, "bcast", true},
});

constexpr auto kDataTypeNames = enum_names<DataType>({
    {DataType::F32, "fp32"},
    {DataType::F16, "fp16"},
    {DataType::BF16, "bf16"},
    {DataType::F32, "float32", true},
    {DataType::F32, "f32", true},
    {DataType::F32, "float", true},
    {DataType::F16, "float16", true},
    {DataType::F16, "f16", true},
    {DataType::F16, "half", true},
    {DataType::BF16, "bfloat16", true},
});

std::string normalise(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-' || c == ' ') c = '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const char* collective_name(Collective c) { return kCollectiveNames.name_of(c); }

const char* dtype_name(DataType t) { return kDataTypeNames.name_of(t); }

Expected<Collective> parse_collective(std::string_view name) {
  if (const std::optional<Collective> c = kCollectiveNames.find(normalise(name))) return *c;
  return kCollectiveNames.unknown(name, "collective");
}

Expected<DataType> parse_dtype(std::string_view name) {
  if (const std::optional<DataType> d = kDataTypeNames.find(normalise(name))) return *d;
  return kDataTypeNames.unknown(name, "dtype");
}

Expected<void> CollectiveSpec::check() const {
  if (ranks < 1)
    return fail(Errc::InvalidArgument, "ranks must be at least 1, got " + std::to_string(ranks));
  if (ranks > kMaxRanks) {
    return fail(Errc::InvalidArgument, "ranks must be at most " + std::to_string(kMaxRanks) +
                                           ", got " + std::to_string(ranks) + " (docs/limits.md)");
  }
  if (bytes.value < 0) return fail(Errc::InvalidArgument, "size must not be negative");
  if (bytes.value > kMaxBufferBytes) {
    return fail(Errc::InvalidArgument, "size " + std::to_string(bytes.value) +
                                           " is more than the 1 TiB limit (docs/limits.md)");
  }
  if (bytes.value % dtype_size(dtype) != 0) {
    return fail(Errc::InvalidArgument, "size " + std::to_string(bytes.value) +
                                           " is not a multiple of the " + dtype_name(dtype) +
                                           " element size (" + std::to_string(dtype_size(dtype)) +
                                           " bytes)");
  }
  if (collective == Collective::Broadcast && (root.value < 0 || root.value >= ranks)) {
    return fail(Errc::InvalidArgument,
                "broadcast root " + std::to_string(root.value) + " is not a rank");
  }
  return {};
}

Slice block(Slice whole, int elem_size, int i, int n) {
  const std::int64_t elems = whole.size.value / elem_size;
  const std::int64_t base = elems / n;
  const std::int64_t rem = elems % n;
  const std::int64_t first = i * base + std::min<std::int64_t>(i, rem);
  const std::int64_t count = base + (i < rem ? 1 : 0);
  return Slice{whole.offset + Bytes(first * elem_size), Bytes(count * elem_size)};
}

}  // namespace topotune::sched
