#pragma once
// How NCCL launches one collective once it has chosen (algorithm, protocol)
// (src/enqueue.cc topoGetAlgoInfo / getAlgoInfo, calcCollChunking, scheduleCollTasksToPlan):
// how many channels carry it (fewer for small sizes: a channel needs threads x threshold
// bytes, and from 2.22 a minimum traffic per channel) and the pipeline unit (chunk) a tree or
// NVLS channel moves per step. Copied, never fitted.

#include "algorithms/nccl/nccl_graph_search.h"
#include "algorithms/nccl/nccl_params.h"

namespace topotune::algo {

/// The buffers and chunk settings a run used (NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE,
/// NCCL_NVLSTREE_MAX_CHUNKSIZE; 0 = NCCL's default).
struct NcclBuffers {
  double simple_buffer_bytes = 4194304;  ///< DEFAULT_BUFFSIZE (src/init.cc)
  double nvls_chunk_bytes = 131072;      ///< NCCL_NVLS_CHUNKSIZE default (src/transport/nvls.cc)
  double nvlstree_max_chunk_bytes = 0;   ///< 0: 64 KiB at >= 4 nodes, else the NVLS chunk
};

/// What enqueue.cc needs of the communicator.
struct NcclLaunchInputs {
  int release = kLatestModeledRelease;
  int ranks = 1;
  int nodes = 1;
  NcclGraphs graphs;
  NcclBuffers buffers;
};

/// Channels (CTAs) one allreduce of `bytes` runs on under (a, p).
int nccl_run_channels(const NcclLaunchInputs& in, NcclAlgo a, NcclProto p, double bytes);

/// Channels when a tuner plugin asked for `requested` (> 0): at most the communicator's, and
/// still at least one traffic cell each.
int nccl_tuner_channels(const NcclLaunchInputs& in, NcclProto p, double bytes, int requested);

/// Bytes of one of a connection's NCCL_STEPS buffer slots for protocol p, as sent on the wire
/// (comm->buffSizes[p] / NCCL_STEPS: LL 512 KiB, LL128 4,915,200 B, Simple NCCL_BUFFSIZE).
double nccl_step_bytes(const NcclLaunchInputs& in, NcclProto p);

/// Bytes per pipeline unit of one tree channel (calcCollChunking / computeColl).
double nccl_tree_chunk_bytes(const NcclLaunchInputs& in, NcclProto p, double bytes, int channels);

/// Bytes per pipeline unit of one NVLS or NVLSTree channel.
double nccl_nvls_chunk_bytes(const NcclLaunchInputs& in, NcclAlgo a, double bytes, int channels);

}  // namespace topotune::algo
