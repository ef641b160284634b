#pragma once
// Tuner API v2, from NVIDIA/nccl src/include/nccl_tuner.h at v2.21.5-1 (the first release
// whose NCCL_TUNER_PLUGIN_SYMBOL is "ncclTunerPlugin_v2") and
// src/include/plugin/tuner/tuner_v2.h at v2.30.7-1 (identical layout). The plugin picks an
// algorithm and a protocol itself; NCCL >= 2.26 turns the pick into a 0 cost when that entry
// is not NCCL_ALGO_PROTO_IGNORE (src/plugin/tuner/tuner_v2.cc). NCCL passes *algorithm,
// *protocol as -1 (undefined) and *nChannels as 0 (NCCL's own count).

#include "tuner_plugin/nccl_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The struct NCCL looks up as "ncclTunerPlugin_v2".
typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int collNetSupport,
                              int nvlsSupport, int numPipeOps, int* algorithm, int* protocol,
                              int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v2_t;

#ifdef __cplusplus
}
#endif
