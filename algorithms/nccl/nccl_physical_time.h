#pragma once
// The time NCCL's chosen (algorithm, protocol) takes on the cluster's hardware.
//
// An alpha-beta model over physical resources, built on what NCCL actually launches (its
// channels for the size, its chunks):
//   time = base + the hops' latencies + bytes / bandwidth + pipeline fill,
// where the bandwidth is the lowest of the resources the algorithm's traffic crosses, each with
// the traffic it carries per byte of the buffer:
//   Ring (2(n-1)/n of the buffer through every GPU): the channels' engines (Simple: a
//     per-CTA copy rate; LL/LL128: NCCL's own per-channel tables), each GPU's NVLink, each
//     node's NICs;
//   Tree (the buffer up and down): engines, NVLink (twice), the NICs (once at two nodes, twice
//     beyond), and at most NCCL_STEPS chunks in flight per channel and network round trip;
//   NVLS / NVLSTree: the switch's in-place reduction (a share of NVLink, scaled between GPU
//     generations by NCCL's nvlsEfficiency), the NICs as a tree, the chunk window, and a
//     handshake per chunk.
// Latencies are NCCL's own table (latest release) scaled by fitted factors, plus a per-NIC-
// class network latency; the fill is the store-and-forward of one chunk through a tree.
// Every number that is not NCCL's or the catalog's is a parameter (nccl_params.h).

#include "algorithms/nccl/nccl_enqueue.h"
#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// One timed candidate: its time and what bounded it.
struct NcclPhysicalTime {
  double time_us = 0;
  double latency_us = 0;  ///< the size-independent part
  /// "NVLink", "NVLS", "network", "engine", "window", "proxy", "TCPX sleep", "latency"
  const char* bottleneck = "";
};

/// Time of collective `c` of `bytes` run as (a, p) on `channels` channels.
NcclPhysicalTime nccl_physical_time(const NcclSystem& sys, const NcclModelParams& prm,
                                    const NcclLaunchInputs& launch, sched::Collective c, NcclAlgo a,
                                    NcclProto p, int channels, double bytes);

}  // namespace topotune::algo
