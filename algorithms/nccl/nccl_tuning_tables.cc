#include "algorithms/nccl/nccl_tuning_tables.h"

#include <array>

#include "algorithms/nccl/nccl_version.h"

// Every value below is NVIDIA/nccl src/graph/tuning.cc of the release named in the comment; a
// value holds from that tag until the next one named (each tag in between was checked).
namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }
using Row = std::array<double, 3>;  // LL, LL128, Simple or scale N1, N2, N4

int pi(NcclProto p) { return static_cast<int>(p); }

Row base_row(int rel, NcclAlgo a) {
  // PAT's row is in the tables from v2.28.3-1; v2.23.4-1 .. v2.27.7-1 wrote the same 8 us into
  // PAT's latency formula itself (nccl_tuning_model.cc).
  if (a == NcclAlgo::Pat) return rel < R(2, 28, 0) ? Row{0, 0, 0} : Row{8.0, 8.0, 8.0};
  if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) {
    if (rel < R(2, 18, 0)) return {0, 0, 40.0};  // v2.17.1-1 NVLS
    if (rel < R(2, 19, 0)) return {0, 0, 23.0};  // v2.18.1-1
    return {0, 0, 0};                            // v2.19.1-1
  }
  const bool tree = a == NcclAlgo::Tree;
  if (rel < R(2, 7, 0)) return tree ? Row{4.4, 4.4, 0} : Row{3.6, 3.6, 8.4};     // v2.5.6-1
  if (rel < R(2, 18, 0)) return tree ? Row{4.4, 4.4, 0} : Row{3.6, 10.0, 8.4};   // v2.7.3-1
  if (rel < R(2, 23, 0)) return tree ? Row{6.8, 14.0, 0} : Row{6.6, 14.0, 8.4};  // v2.18.1-1
  return tree ? Row{6.8, 14.0, 8.4} : Row{6.6, 14.0, 8.4};                       // v2.23.4-1
}

Row nvlink_row(int rel, NcclAlgo a) {
  if (a == NcclAlgo::Tree) {
    if (rel < R(2, 8, 0)) return {.52, 1.2, 28};    // v2.7.3-1
    if (rel < R(2, 18, 0)) return {.52, 1.25, 28};  // v2.8.3-1
    if (rel < R(2, 18, 3)) return {.6, 1.25, 28};   // v2.18.1-1
    if (rel < R(2, 19, 0)) return {.6, 1.25, 4};    // v2.18.3-1
    if (rel < R(2, 23, 0)) return {.6, 1.25, 28};   // v2.19.1-1
    return {.6, 1.25, 4.0};                         // v2.23.4-1
  }
  if (a == NcclAlgo::Ring) return rel < R(2, 18, 0) ? Row{.47, 1.9, 3.4} : Row{.6, 1.9, 3.4};
  if (a == NcclAlgo::Pat) return rel < R(2, 28, 0) ? Row{0, 0, 0} : Row{0, 0, 4.0};  // v2.28.3-1
  if (rel < R(2, 19, 0)) return {0, 0, 0};   // NVLS, NVLSTree: v2.17.1-1, v2.18.1-1
  if (rel < R(2, 21, 0)) return {0, 0, 23};  // v2.19.1-1
  return {0, 0, 25};                         // v2.21.5-1
}

Row pci_row(int rel, NcclAlgo a) {
  if (a == NcclAlgo::Ring) return {1.0, 2.5, 5.7};  // every release
  if (a == NcclAlgo::Pat) return rel < R(2, 28, 0) ? Row{0, 0, 0} : Row{0, 0, 4.0};  // v2.28.3-1
  if (a != NcclAlgo::Tree) return {0, 0, 0};
  if (rel < R(2, 18, 3)) return {1.0, 1.9, 28};  // v2.5.6-1
  if (rel < R(2, 19, 0)) return {1.0, 1.9, 6};   // v2.18.3-1
  if (rel < R(2, 23, 0)) return {1.0, 1.9, 28};  // v2.19.1-1
  return {1.0, 1.9, 4.0};                        // v2.23.4-1
}

Row net_row(int rel, NcclAlgo a) {
  switch (a) {
    case NcclAlgo::Tree:
      if (rel < R(2, 8, 0)) return {5.0, 8.5, 50};   // v2.7.3-1
      if (rel < R(2, 18, 3)) return {5.0, 8.5, 28};  // v2.8.3-1
      if (rel < R(2, 19, 0)) return {5.0, 8.5, 14};  // v2.18.3-1
      if (rel < R(2, 23, 0)) return {5.0, 8.5, 28};  // v2.19.1-1
      return {5.0, 8.5, 14};                         // v2.23.4-1
    case NcclAlgo::Ring:
      if (rel < R(2, 12, 0)) return {2.7, 4.0, 9.6};  // v2.7.3-1
      if (rel < R(2, 14, 0)) return {2.7, 4.0, 28};   // v2.12.7-1
      if (rel < R(2, 18, 0)) return {2.7, 4.0, 9.6};  // v2.14.3-1
      return {2.7, 4.0, 14.0};                        // v2.18.1-1
    case NcclAlgo::Nvls:
      return rel < R(2, 18, 0) ? Row{0, 0, 0} : Row{0, 0, 18};  // v2.18.1-1
    case NcclAlgo::NvlsTree:
      if (rel < R(2, 19, 0)) return {0, 0, 19};  // v2.18.1-1
      if (rel < R(2, 28, 9)) return {0, 0, 14};  // v2.19.1-1
      return {0, 0, 20.9};                       // v2.28.9-1
    case NcclAlgo::Pat:
      return rel < R(2, 28, 0) ? Row{0, 0, 0} : Row{0, 0, 14};  // v2.28.3-1
  }
  return {0, 0, 0};
}

}  // namespace

double nccl_base_latency_us(int release, NcclAlgo a, NcclProto p) {
  return base_row(release, a)[pi(p)];
}

double nccl_hw_latency_us(int release, NcclHw hw, NcclAlgo a, NcclProto p) {
  switch (hw) {
    case NcclHw::NvLink:
      return nvlink_row(release, a)[pi(p)];
    case NcclHw::Pci:
      return pci_row(release, a)[pi(p)];
    case NcclHw::Net:
      return net_row(release, a)[pi(p)];
  }
  return 0;
}

double nccl_ll_max_bw(int release, int row, int scale) {
  // v2.8.3-1 llMaxBws; the Hopper row from v2.15.1-1 (copy of Ampere's), its own values
  // from v2.21.5-1; Blackwell (2x Hopper) from v2.25.1-1.
  std::array<Row, 4> t{Row{39.0, 39.0, 20.4}, Row{87.7, 22.5, 19.0}, Row{87.7, 22.5, 19.0},
                       Row{87.7, 22.5, 19.0}};
  if (release >= R(2, 21, 0)) t[2] = {141.0, 45.0, 35.0};
  t[3] = release >= R(2, 25, 0) ? Row{2 * 141.0, 2 * 45.0, 2 * 35.0} : t[2];
  return t[static_cast<std::size_t>(row)][static_cast<std::size_t>(scale)];
}

double nccl_per_channel_max_tree_bw(int release, int arch, int scale) {
  const Row volta{26.5, 18.5, 10.0};
  const Row ampere = release < R(2, 10, 0) ? Row{24.0, 22.5, 16.0} : Row{24.0, 23.6, 17.8};
  Row hopper{24.0, 23.6, 17.8};                             // v2.15.1-1
  if (release >= R(2, 17, 0)) hopper = {38.7, 41.4, 33.0};  // v2.17.1-1
  if (release >= R(2, 18, 3)) hopper = {38.7, 41.4, 36.0};  // v2.18.3-1
  Row blackwell = hopper;
  if (release >= R(2, 25, 0)) blackwell = {2 * 38.7, 2 * 41.4, 2 * 36.0};  // v2.25.1-1
  if (release >= R(2, 28, 0)) blackwell = {70.0, 42.8, 24.0};              // v2.28.3-1
  const std::array<Row, 4> t{volta, ampere, hopper, blackwell};
  return t[static_cast<std::size_t>(arch)][static_cast<std::size_t>(scale)];
}

double nccl_per_channel_max_ll128_bw(int release, int arch, int scale, bool tree) {
  if (release < R(2, 8, 0)) return 16.7;                      // v2.7.3-1 ll128MaxBwPerCh[AllReduce]
  if (release < R(2, 10, 0)) return 16.9;                     // v2.8.3-1
  if (release < R(2, 17, 0)) return 20.0;                     // v2.10.3-1 ll128MaxBwPerCh
  if (release < R(2, 18, 3)) return arch >= 2 ? 36.7 : 20.0;  // v2.17.1-1 [compCapIndex]
  std::array<Row, 4> ring{Row{20, 20, 20}, Row{20, 20, 20}, Row{36.7, 36.7, 36.7},
                          Row{36.7, 36.7, 36.7}};  // v2.18.3-1 perChMaxRingLL128Bws
  std::array<Row, 4> tr{Row{20, 20, 20}, Row{20, 20, 20}, Row{36.7, 36.7, 29.0},
                        Row{36.7, 36.7, 29.0}};  // perChMaxTreeLL128Bws
  if (release >= R(2, 25, 0)) {
    ring[3] = {2 * 36.7, 2 * 36.7, 2 * 36.7};
    tr[3] = {2 * 36.7, 2 * 36.7, 2 * 29.0};
  }
  if (release >= R(2, 28, 0)) tr[3] = {55.6, 31.67, 20.0};  // v2.28.3-1
  if (release >= R(2, 28, 7)) ring[3] = {2 * 36.7, 34.6, 2 * 36.7};
  if (release >= R(2, 29, 2)) ring[3] = {34.5, 34.6, 34.5};
  if (release >= R(2, 29, 7)) ring[3] = {40.0, 40.0, 40.0};
  return (tree ? tr : ring)[static_cast<std::size_t>(arch)][static_cast<std::size_t>(scale)];
}

double nccl_per_channel_max_nvlstree_bw(int release, int arch, int scale) {
  Row blackwell{0.0, 96.0, 43.1};                             // v2.28.3-1
  if (release >= R(2, 28, 9)) blackwell = {0.0, 96.0, 43.8};  // v2.28.9-1
  if (release >= R(2, 30, 0)) blackwell = {0.0, 96.0, 80.0};  // v2.30.3-1
  const std::array<Row, 4> t{Row{26.5, 18.5, 10.0}, Row{24.0, 23.6, 17.8}, Row{0.0, 57.7, 45.5},
                             blackwell};
  return t[static_cast<std::size_t>(arch)][static_cast<std::size_t>(scale)];
}

double nccl_nvls_efficiency(int arch) {
  static constexpr std::array<double, 4> kEff{0.0, 0.0, 0.85, 0.74};
  return kEff[static_cast<std::size_t>(arch)];
}

double nccl_tree_correction(int release, NcclProto p, int log_size) {
  // treeCorrectionFactor (v2.8.3-1; the LL128 row before v2.10.3-1 differed; 24 columns from
  // v2.29.2-1, the last equal to its neighbour).
  static constexpr std::array<std::array<double, 24>, 3> kNew{{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
       .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
       .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
       .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
  }};
  static constexpr std::array<double, 23> kOldLL128{1.0, 1.0, 1.0, 1.0, 1.0, .9,  .8, .8,
                                                    .8,  .7,  .6,  .6,  .6,  .5,  .6, .6,
                                                    .7,  .7,  .8,  .9,  .9,  .92, .92};
  const int columns = release >= R(2, 29, 0) ? 24 : 23;
  if (log_size < 0 || log_size >= columns) return 1.0;
  const auto i = static_cast<std::size_t>(log_size);
  if (release < R(2, 10, 0) && p == NcclProto::LL128) return kOldLL128[i];
  return kNew[static_cast<std::size_t>(pi(p))][i];
}

}  // namespace topotune::algo
