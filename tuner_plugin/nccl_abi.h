#pragma once
// The C types every NCCL tuner API version shares, written from NVIDIA/nccl's own headers at
// tag v2.30.7-1: src/nccl.h.in (ncclResult_t), src/include/nccl_common.h (ncclFunc_t, the
// logger and its levels and subsystems) and src/include/plugin/nccl_tuner.h (algorithm and
// protocol indices, NCCL_ALGO_PROTO_IGNORE). The values have not changed since v2.19.3-1
// except that PAT (index 6) was added in v2.23.4-1; NCCL passes the table's dimensions to
// getCollInfo, so the plugin checks an index against them, not against these constants.
// Nothing here includes NCCL: the plugin builds and loads without it.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// NCCL's result codes (src/nccl.h.in); the plugin only ever returns ncclSuccess.
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclTimeout = 8,
  ncclNumResults = 9
} ncclResult_t;

/// The collective a getCollInfo call is for (nccl_common.h; stable 0..4 since v2.19).
typedef enum {
  ncclFuncBroadcast = 0,
  ncclFuncReduce = 1,
  ncclFuncAllGather = 2,
  ncclFuncReduceScatter = 3,
  ncclFuncAllReduce = 4,
  ncclFuncSendRecv = 5,
  ncclFuncSend = 6,
  ncclFuncRecv = 7
} ncclFunc_t;

/// Log levels of NCCL's logger (nccl_common.h).
typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

/// NCCL's subsystem flags the plugin logs under (nccl_common.h).
#define NCCL_INIT 0x1
#define NCCL_TUNING 0x40

/// NCCL's logger: printf-style, handed to init (NULL allowed).
typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char* file,
                                  int line, const char* fmt, ...);

// Rows of the cost table (nccl_tuner.h).
#define NCCL_ALGO_UNDEF -1
#define NCCL_ALGO_TREE 0
#define NCCL_ALGO_RING 1
#define NCCL_ALGO_COLLNET_DIRECT 2
#define NCCL_ALGO_COLLNET_CHAIN 3
#define NCCL_ALGO_NVLS 4
#define NCCL_ALGO_NVLS_TREE 5
#define NCCL_ALGO_PAT 6

// Columns of the cost table (nccl_tuner.h).
#define NCCL_PROTO_UNDEF -1
#define NCCL_PROTO_LL 0
#define NCCL_PROTO_LL128 1
#define NCCL_PROTO_SIMPLE 2

/// A cost-table entry NCCL will not run (this algorithm or protocol is not allowed here).
#define NCCL_ALGO_PROTO_IGNORE -1.0

#ifdef __cplusplus
}
#endif
