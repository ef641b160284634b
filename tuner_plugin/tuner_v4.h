#pragma once
// Tuner API v4, from NVIDIA/nccl src/include/nccl_tuner.h at v2.24.3-1 (first release with
// "ncclTunerPlugin_v4") and src/include/plugin/tuner/tuner_v4.h at v2.30.7-1: v3 plus
// regBuff (whether the user buffers are registered) before nChannels.

#include "tuner_plugin/nccl_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The struct NCCL looks up as "ncclTunerPlugin_v4".
typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int regBuff,
                              int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v4_t;

#ifdef __cplusplus
}
#endif
