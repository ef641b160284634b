#pragma once
// The GPU model a cluster names when its ranks are CPU processes (`topotune emulate`'s
// clusters): what a profile measured on the CPU times correctly, where on a real GPU it would
// not (planning/step_model.h refuses CPU-measured times for every other model).

namespace topotune::topo {

/// gpu.model of a cluster whose ranks compute on the CPU.
inline constexpr const char* kCpuRankGpuModel = "cpu-rank";

}  // namespace topotune::topo
