#include "algorithms/nccl/nccl_enqueue.h"

#include <algorithm>
#include <cmath>

// NVIDIA/nccl src/enqueue.cc, src/init.cc and src/include/comm.h of the tags named; the
// thresholds (NCCL_LL_THREAD_THRESHOLD 8, LL128 8, SIMPLE 64) and thread counts are the same
// in every release from v2.7.8-1 to v2.30.7-1.
namespace topotune::algo {
namespace {

constexpr int R(int ma, int mi, int pa) { return nccl_release_code(ma, mi, pa); }
constexpr double kSteps = 8;  // NCCL_STEPS

int log2i(double n) { return n >= 1 ? static_cast<int>(std::floor(std::log2(n))) : 0; }

// scheduleCollTasksToPlan: at least one cell of MinTrafficPerChannel / 2 bytes per channel
// (512 B in 2.22.3, 16 KiB in 2.23.4 .. 2.28.9, 32 KiB from 2.29.2; LL traffic counts 4x from
// 2.26.2).
int within_traffic_cells(const NcclLaunchInputs& in, NcclProto p, double bytes, int nc) {
  const int rel = in.release;
  if (rel < R(2, 22, 0)) return nc;
  double cell = rel >= R(2, 29, 0) ? 16384 : rel >= R(2, 23, 0) ? 8192 : 256;
  if (p == NcclProto::LL && rel >= R(2, 26, 0)) cell /= 4;
  // Compared as doubles: ceil(bytes / cell) passes INT_MAX at 512 GiB with 256-byte cells,
  // and a cast of it to int would wrap (undefined) and halve the channel count.
  const double cells = std::ceil(bytes / cell);
  if (cells < nc) nc = std::max(1, static_cast<int>(cells));
  return nc;
}

}  // namespace

int nccl_run_channels(const NcclLaunchInputs& in, NcclAlgo a, NcclProto p, double bytes) {
  const int rel = in.release;
  const NcclGraphs& g = in.graphs;
  if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) {
    int nc = g.nvls_channels;  // NVLS should not need more than 16 channels (2.17.1+)
    if (a == NcclAlgo::Nvls && in.nodes > 1 && rel >= R(2, 28, 3)) {
      nc = std::min(nc, g.comm_channels);
    }
    return std::max(1, nc);
  }
  // maxThreads (tuning.cc): LL 512, LL128 640, Simple 512 (256 on a PCIe-class ring).
  int nt = p == NcclProto::LL128 ? 640 : 512;
  if (p == NcclProto::Simple && a == NcclAlgo::Ring && g.ring.bw_intra * g.ring.channels <= 12.0) {
    nt = 256;
  }
  double threshold = p == NcclProto::Simple ? 64 : 8;
  if (a == NcclAlgo::Ring && p == NcclProto::LL) threshold *= in.ranks;
  // 2.20.3 .. 2.21.5 start from collChannels; the others from comm->nChannels.
  int nc = rel >= R(2, 20, 3) && rel < R(2, 22, 0) ? g.coll_channels : g.comm_channels;
  nc = std::max(1, nc);
  // tuning.cc sets no maxThreads for PAT (0 in the calloc'd communicator), so the size loop
  // never trims its channels (v2.23.4-1 .. v2.30.7-1); only the traffic cells below do.
  if (a == NcclAlgo::Pat) nt = 0;
  while (bytes < nc * nt * threshold && nc >= 2) --nc;
  return within_traffic_cells(in, p, bytes, nc);
}

int nccl_tuner_channels(const NcclLaunchInputs& in, NcclProto p, double bytes, int requested) {
  // ncclGetAlgoInfo: a tuner's nChannels replaces the count topoGetAlgoInfo chose
  // (info->nMaxChannels); scheduleCollTasksToPlan caps it at comm->nChannels and splits the
  // traffic as for any other task.
  const int nc = std::clamp(requested, 1, std::max(1, in.graphs.comm_channels));
  return within_traffic_cells(in, p, bytes, nc);
}

double nccl_step_bytes(const NcclLaunchInputs& in, NcclProto p) {
  return (p == NcclProto::LL      ? 524288.0
          : p == NcclProto::LL128 ? 4915200.0
                                  : in.buffers.simple_buffer_bytes) /
         kSteps;
}

double nccl_tree_chunk_bytes(const NcclLaunchInputs& in, NcclProto p, double bytes, int channels) {
  const double step = nccl_step_bytes(in, p);
  const double nc = std::max(1, channels);
  if (p == NcclProto::LL) return step / 2;  // 8-byte lines carry 4 bytes
  if (p == NcclProto::LL128) {
    double c = step * 120 / 128;
    const double ppn = static_cast<double>(in.ranks) / in.nodes;
    const double nsteps = 1 + log2i(in.nodes) + 0.1 * ppn;
    while (bytes / (nc * c) < nsteps * 64 / ppn && c > 131072) c /= 2;
    while (bytes / (nc * c) < nsteps * 16 / ppn && c > 32768) c /= 2;
    return c;
  }
  double c = step;
  if (in.release < R(2, 20, 0)) {  // the depth-based shrink removed in v2.20.3-1
    const double depth = in.ranks / in.nodes + log2i(in.nodes);
    while (bytes / (nc * c) < depth * 8 && c > 131072) c /= 2;
    while (bytes / (nc * c) < depth * 4 && c > 65536) c /= 2;
    while (bytes / (nc * c) < depth && c > 32768) c /= 2;
  }
  return c;
}

double nccl_nvls_chunk_bytes(const NcclLaunchInputs& in, NcclAlgo a, double bytes, int channels) {
  // NCCL_NVLS_CHUNKSIZE exists from v2.21.5-1 (src/transport/nvls.cc); before, both algorithms
  // started from a Simple step, NCCL_BUFFSIZE / NCCL_STEPS, and NVLS capped it at 128 KiB
  // (src/enqueue.cc computeColl at v2.18.5-1 .. v2.20.5-1; NVLSTree capped at 64 KiB on 4+ nodes
  // from v2.19.3-1).
  const bool chunk_param = in.release >= R(2, 21, 0);
  double c = chunk_param ? in.buffers.nvls_chunk_bytes : nccl_step_bytes(in, NcclProto::Simple);
  const double ops = std::max(1, channels) * std::max(1, in.graphs.nvls.channels);
  if (a == NcclAlgo::NvlsTree) {
    if (in.release >= R(2, 20, 0)) {  // NCCL_NVLSTREE_MAX_CHUNKSIZE, default 64 KiB at 4+ nodes
      const double max = in.buffers.nvlstree_max_chunk_bytes > 0
                             ? in.buffers.nvlstree_max_chunk_bytes
                             : (in.nodes >= 4 ? 65536 : c);
      c = std::min(c, max);
    } else if (in.release >= R(2, 19, 3) && in.nodes >= 4) {  // v2.19.3-1, v2.19.4-1
      c = 65536;
    }
    if (bytes < 32 * ops * c && c > 262144) c = 262144;
    if (bytes < 16 * ops * c && c > 131072) c = 131072;
    if (bytes < 4 * ops * c && c > 65536) c = 65536;
    if (bytes < 1 * ops * c && c > 32768) c = 32768;
    return c;
  }
  if (!chunk_param) c = std::min(c, 131072.0);
  if (bytes < 64 * ops * c && c > 65536) c = 65536;
  if (bytes < 8 * ops * c && c > 32768) c = 32768;
  if (bytes < 2 * ops * c && c > 16384) c = 16384;
  return c;
}

}  // namespace topotune::algo
