// The C entry points of libnccl-tuner-topotune.so: one exported struct per tuner API version,
// named as NCCL looks them up (src/plugin/tuner.cc at v2.30.7-1 tries ncclTunerPlugin_v6,
// then _v5, _v4, _v3, _v2 and uses the first it finds). Every entry point catches everything
// and returns ncclSuccess: NCCL fails the communicator when init fails (src/init.cc) and the
// collective when getCollInfo does (NCCLCHECK in src/enqueue.cc), and the worst a tuner may
// do is leave NCCL's own choice.

#include <new>

#include "tuner_plugin/tuner_context.h"
#include "tuner_plugin/tuner_v2.h"
#include "tuner_plugin/tuner_v3.h"
#include "tuner_plugin/tuner_v4.h"
#include "tuner_plugin/tuner_v5.h"
#include "tuner_plugin/tuner_v6.h"

#define TOPOTUNE_EXPORT __attribute__((visibility("default")))

namespace {

using topotune::tuner_plugin::TunerContext;

constexpr const char* kName = "topotune";

ncclResult_t init_context(void** ctx, size_t nranks, size_t nnodes, ncclDebugLogger_t log) {
  if (ctx == nullptr) return ncclSuccess;
  *ctx = nullptr;  // a null context is a tuner with no rules
  try {
    *ctx = new TunerContext(nranks, nnodes, log);
  } catch (...) {
    if (log != nullptr) {
      log(NCCL_LOG_WARN, NCCL_TUNING, __FILE__, __LINE__,
          "TUNER/topotune: cannot set up (out of memory): NCCL's own choices");
    }
  }
  return ncclSuccess;
}

ncclResult_t destroy_context(void* ctx) {
  delete static_cast<TunerContext*>(ctx);  // the destructor does not throw
  return ncclSuccess;
}

ncclResult_t cost_table_call(void* ctx, ncclFunc_t coll, size_t nbytes, float** table, int num_algo,
                             int num_proto, int* n_channels) {
  if (ctx == nullptr) return ncclSuccess;
  try {
    // NCCL passes float[numAlgo][numProto] cast to float** (src/enqueue.cc).
    static_cast<TunerContext*>(ctx)->apply_to_cost_table(
        coll, nbytes, reinterpret_cast<float*>(table), num_algo, num_proto, n_channels);
  } catch (...) {
  }
  return ncclSuccess;
}

ncclResult_t init_v2(size_t nranks, size_t nnodes, ncclDebugLogger_t log, void** ctx) {
  return init_context(ctx, nranks, nnodes, log);
}

ncclResult_t get_v2(void* ctx, ncclFunc_t coll, size_t nbytes, int collnet, int nvls,
                    int /*num_pipe_ops*/, int* algorithm, int* protocol, int* n_channels) {
  if (ctx == nullptr) return ncclSuccess;
  try {
    static_cast<TunerContext*>(ctx)->apply_pick(coll, nbytes, collnet, nvls, algorithm, protocol,
                                                n_channels);
  } catch (...) {
  }
  return ncclSuccess;
}

ncclResult_t get_v3(void* ctx, ncclFunc_t coll, size_t nbytes, int /*num_pipe_ops*/, float** table,
                    int num_algo, int num_proto, int* n_channels) {
  return cost_table_call(ctx, coll, nbytes, table, num_algo, num_proto, n_channels);
}

ncclResult_t get_v4(void* ctx, ncclFunc_t coll, size_t nbytes, int /*num_pipe_ops*/, float** table,
                    int num_algo, int num_proto, int /*reg_buff*/, int* n_channels) {
  return cost_table_call(ctx, coll, nbytes, table, num_algo, num_proto, n_channels);
}

ncclResult_t init_v5(void** ctx, uint64_t /*comm_id*/, size_t nranks, size_t nnodes,
                     ncclDebugLogger_t log, ncclNvlDomainInfo_v5_t* /*nvl*/,
                     ncclTunerConstants_v5_t* /*constants: NCCL's are kept*/) {
  return init_context(ctx, nranks, nnodes, log);
}

}  // namespace

extern "C" {
TOPOTUNE_EXPORT ncclTuner_v2_t ncclTunerPlugin_v2 = {kName, init_v2, get_v2, destroy_context};
TOPOTUNE_EXPORT ncclTuner_v3_t ncclTunerPlugin_v3 = {kName, init_v2, get_v3, destroy_context};
TOPOTUNE_EXPORT ncclTuner_v4_t ncclTunerPlugin_v4 = {kName, init_v2, get_v4, destroy_context};
TOPOTUNE_EXPORT ncclTuner_v5_t ncclTunerPlugin_v5 = {kName, init_v5, get_v4, destroy_context};
// getChunkSize NULL: the rules carry no chunk size, and NCCL then keeps its own.
TOPOTUNE_EXPORT ncclTuner_v6_t ncclTunerPlugin_v6 = {kName, init_v5, get_v4, destroy_context,
                                                     nullptr};
}  // extern "C"
