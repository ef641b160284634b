#pragma once
// The NCCL model's one-number held-out error, shared by the error bands and the channel-override
// margin so that a refit changes it in one place.

namespace topotune::tune {

/// Leave-one-out median |busbw error| of the NCCL model over the 273 all_reduce rows >= 1 MiB
/// of data/validation (python3 scripts/accuracy.py: "leave-one-out: median |busbw error| over
/// all 273 rows >= 1 MiB 7.3%"): the overall all_reduce group of data/error_bands.json, which
/// accuracy.py checks this constant against. Planners look bands up by cluster kind instead.
inline constexpr double kHeldOutCollectiveError = 0.073;

}  // namespace topotune::tune
