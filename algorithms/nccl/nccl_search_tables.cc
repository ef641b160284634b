#include "algorithms/nccl/nccl_search_tables.h"

#include "algorithms/nccl/nccl_version.h"

// NVIDIA/nccl src/graph/topo.h, src/graph/xml.cc, src/graph/search.cc and
// src/include/device.h of the release named in each comment; a value holds from that tag
// until the next one named.
namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }

std::vector<double> sm90_speeds(int rel, bool inter) {
  if (inter) {
    if (rel < R(2, 18, 0)) return {48, 45, 30, 24, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};  // 2.16.2
    if (rel < R(2, 18, 3)) return {48, 45, 42, 40, 30, 24, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
    if (rel < R(2, 19, 3)) {
      return {48, 45, 42, 40, 30, 24, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};  // 2.18.3
    }
    return {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};  // 2.19.3
  }
  if (rel < R(2, 18, 0)) return {66, 33, 24, 20, 15, 12, 6, 3};          // v2.16.2-1
  if (rel < R(2, 19, 0)) return {60, 40, 30, 24, 20, 15, 12, 6, 3};      // v2.18.1-1
  if (rel < R(2, 21, 0)) return {60, 50, 40, 30, 24, 20, 15, 12, 6, 3};  // v2.19.1-1
  return {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};                     // v2.21.5-1
}

std::vector<double> sm100_speeds(int rel, bool inter) {
  if (inter) {
    const std::vector<double> tail{48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3};
    std::vector<double> s;
    if (rel >= R(2, 30, 3)) {
      s = {96, 86, 80};
    } else if (rel >= R(2, 29, 7)) {
      s = {96, 80};
    } else if (rel >= R(2, 27, 6)) {
      s = {96};
    } else {
      return {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3};  // v2.25.1-1
    }
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  }
  if (rel >= R(2, 29, 2)) return {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 15, 12, 6, 3};
  return {90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 15, 12, 6, 3};  // v2.25.1-1
}

}  // namespace

double nccl_nvlink_bw_per_link(int release, int cc) {
  if (release < R(2, 10, 0)) return 21.0;                // v2.7.8-1 VOLTA/SM80_NVLINK_WIDTH
  if (release < R(2, 18, 0)) return 22.0;                // v2.10.3-1
  if (cc >= 100 && release >= R(2, 27, 5)) return 40.1;  // SM100_NVLINK_BW
  if (cc >= 100 && release >= R(2, 25, 0)) return 40.0;
  if (cc >= 90 && release >= R(2, 20, 0)) return 20.6;  // SM90_NVLINK_BW (v2.20.3-1)
  return 20.0;                                          // v2.18.1-1 SM80/SM90_NVLINK_BW
}

int nccl_max_nvlinks(int release, int cc) {
  if (cc < 80) return 6;
  if (cc < 90) return 12;
  return release >= R(2, 15, 0) ? 18 : 12;  // the sm90 count arrived in v2.15.1-1
}

std::vector<double> nccl_search_speeds(int release, int cc, bool inter) {
  if (cc >= 100 && release >= R(2, 25, 0)) return sm100_speeds(release, inter);
  if (cc >= 90 && release >= R(2, 16, 0)) return sm90_speeds(release, inter);
  if (release < R(2, 8, 0)) {
    return {42, 24, 21, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};  // v2.7.8-1
  }
  if (release < R(2, 10, 0)) {
    return {42, 30, 24, 21, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};  // v2.8.3-1
  }
  if (!inter) {
    if (release < R(2, 18, 0)) return {44, 30, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};  // 2.10.3
    return {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};                             // 2.18.1
  }
  if (release < R(2, 15, 0)) {
    return {48, 30, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};  // 2.10.3
  }
  if (release < R(2, 18, 0)) {
    return {48, 30, 28, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};  // 2.15
  }
  return {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};  // 2.18.1
}

int nccl_max_channels(int release) { return release >= R(2, 25, 0) ? 64 : 32; }

double nccl_pci_bw(double nominal_GBps, int cc) {
  if (nominal_GBps <= 0) return cc >= 90 ? 48.0 : 24.0;
  if (nominal_GBps >= 60) return 48.0;
  if (nominal_GBps >= 30) return 24.0;
  return 12.0;
}

}  // namespace topotune::algo
