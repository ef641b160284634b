#pragma once
// Tuner API v6, from NVIDIA/nccl src/include/plugin/tuner/tuner_v6.h at v2.30.3-1 (first
// release with "ncclTunerPlugin_v6") and v2.30.7-1, the newest tag: v5 plus an optional
// getChunkSize after finalize. NCCL calls it only when it is not NULL (src/enqueue.cc), so a
// plugin without chunk rules leaves it NULL and NCCL keeps its own chunk size.

#include "tuner_plugin/tuner_v5.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef ncclTunerConstants_v5_t ncclTunerConstants_v6_t;
typedef ncclNvlDomainInfo_v5_t ncclNvlDomainInfo_v6_t;

/// The struct NCCL looks up as "ncclTunerPlugin_v6".
typedef struct {
  const char* name;
  ncclResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, ncclNvlDomainInfo_v6_t* nvlDomainInfo,
                       ncclTunerConstants_v6_t* constants);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int regBuff,
                              int* nChannels);
  ncclResult_t (*finalize)(void* context);
  ncclResult_t (*getChunkSize)(void* context, ncclFunc_t collType, size_t nBytes, int algo,
                               int proto, int nChannels, size_t* chunkSize);
} ncclTuner_v6_t;

#ifdef __cplusplus
}
#endif
