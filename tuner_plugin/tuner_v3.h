#pragma once
// Tuner API v3, from NVIDIA/nccl src/include/nccl_tuner.h at v2.22.3-1 (first release with
// "ncclTunerPlugin_v3") and src/include/plugin/tuner/tuner_v3.h at v2.30.7-1. getCollInfo
// sees NCCL's cost table: collCostTable points at float[numAlgo][numProto] (row-major, cast
// to float**), an entry of NCCL_ALGO_PROTO_IGNORE (-1.0) is not allowed; NCCL runs the
// cheapest entry. *nChannels comes in as 0, meaning NCCL's own count.

#include "tuner_plugin/nccl_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The struct NCCL looks up as "ncclTunerPlugin_v3".
typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v3_t;

#ifdef __cplusplus
}
#endif
