#pragma once
// Typed integer ids, so that a rank can never be passed where a link is expected.

#include <compare>
#include <cstdint>
#include <functional>

namespace topotune {

/// An index into some table owned by another object. Default-constructed ids are invalid (-1).
template <class Tag>
struct StrongId {
  std::int32_t value = -1;
  constexpr StrongId() = default;
  constexpr explicit StrongId(std::int32_t v) : value(v) {}
  constexpr bool valid() const { return value >= 0; }
  constexpr auto operator<=>(const StrongId&) const = default;
  /// The id as a container index; callers check valid() first where it matters.
  constexpr std::size_t index() const { return static_cast<std::size_t>(value); }
};

struct RankTag {};
struct NodeTag {};
struct LinkTag {};
struct TransferTag {};
struct EndpointTag {};

/// A process of the collective (one GPU, usually), 0..ranks-1.
using RankId = StrongId<RankTag>;
/// A vertex of the topology graph (a GPU, a switch, a NIC, a CPU...). Not a machine: machines
/// are called hosts inside topotune, although the CLI says `--nodes` as users do.
using NodeId = StrongId<NodeTag>;
/// A directed edge of the topology graph.
using LinkId = StrongId<LinkTag>;
/// A transfer of a Schedule; TransferId{i} is transfers()[i].
using TransferId = StrongId<TransferTag>;
/// A party of a Schedule: ranks first (id == rank), then extra endpoints such as CPU servers.
using EndpointId = StrongId<EndpointTag>;

}  // namespace topotune

template <class Tag>
struct std::hash<topotune::StrongId<Tag>> {
  std::size_t operator()(const topotune::StrongId<Tag>& id) const noexcept {
    return std::hash<std::int32_t>{}(id.value);
  }
};
