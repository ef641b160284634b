#include "algorithms/schedule/collective_spec.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

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

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::Allreduce:
      return "allreduce";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::Allgather:
      return "allgather";
    case Collective::Broadcast:
      return "broadcast";
  }
  return "?";
}

const char* dtype_name(DataType t) {
  switch (t) {
    case DataType::F32:
      return "fp32";
    case DataType::F16:
      return "fp16";
    case DataType::BF16:
      return "bf16";
  }
  return "?";
}

namespace {
std::string normalise(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-' || c == ' ') c = '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}
}  // namespace

// Each parser accepts the enum's own names (collective_name, dtype_name: one table for both
// directions) and, in its alias table, the other spellings nccl-tests and the frameworks use.
Expected<Collective> parse_collective(std::string_view name) {
  const std::string n = normalise(name);
  using C = Collective;
  for (C c : {C::Allreduce, C::ReduceScatter, C::Allgather, C::Broadcast}) {
    if (n == collective_name(c)) return c;
  }
  static constexpr std::pair<const char*, C> kAliases[] = {{"all_reduce", C::Allreduce},
                                                           {"reducescatter", C::ReduceScatter},
                                                           {"all_gather", C::Allgather},
                                                           {"bcast", C::Broadcast}};
  for (const auto& [alias, c] : kAliases) {
    if (n == alias) return c;
  }
  return fail(Errc::InvalidArgument,
              "unknown collective '" + std::string(name) +
                  "' (known: allreduce, reduce_scatter, allgather, broadcast)");
}

Expected<DataType> parse_dtype(std::string_view name) {
  const std::string n = normalise(name);
  using D = DataType;
  for (D d : {D::F32, D::F16, D::BF16}) {
    if (n == dtype_name(d)) return d;
  }
  static constexpr std::pair<const char*, D> kAliases[] = {
      {"float32", D::F32}, {"f32", D::F32},  {"float", D::F32},    {"float16", D::F16},
      {"f16", D::F16},     {"half", D::F16}, {"bfloat16", D::BF16}};
  for (const auto& [alias, d] : kAliases) {
    if (n == alias) return d;
  }
  return fail(Errc::InvalidArgument,
              "unknown dtype '" + std::string(name) + "' (known: fp32, fp16, bf16)");
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
