#pragma once
// The tuner plugin loaded the way NCCL loads it (NVIDIA/nccl src/plugin/tuner.cc and
// src/plugin/tuner/tuner_v*.cc at v2.30.7-1): dlopen(RTLD_NOW | RTLD_LOCAL), dlsym of
// ncclTunerPlugin_vN from the newest version the NCCL release knows down to v2, the first
// found wins; v2 goes through NCCL's adapter, which zeroes the picked cost-table entry only
// when it is not NCCL_ALGO_PROTO_IGNORE. Shared by the harness tests; the library's path is
// TOPOTUNE_TUNER_PLUGIN_SO, set by tests/tuner_plugin/CMakeLists.txt.

#include <dlfcn.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tuner_plugin/tuner_v2.h"
#include "tuner_plugin/tuner_v3.h"
#include "tuner_plugin/tuner_v4.h"
#include "tuner_plugin/tuner_v5.h"
#include "tuner_plugin/tuner_v6.h"

namespace topotune::tuner_test {

constexpr int kAlgos = 7;   // NCCL_NUM_ALGORITHMS since v2.23.4-1
constexpr int kProtos = 3;  // NCCL_NUM_PROTOCOLS
using Table = std::array<std::array<float, kProtos>, kAlgos>;

/// What NCCL's logger received: each call's level and formatted text.
inline std::vector<std::pair<int, std::string>> g_log;
inline void capture_log(ncclDebugLogLevel level, unsigned long /*flags*/, const char* /*file*/,
                        int /*line*/, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log.emplace_back(level, buf);
}

/// One loaded tuner, seen through the newest API as NCCL's adapters present it.
class NcclLikeTuner {
 public:
  // newest: the newest API version the emulated NCCL release looks up first.
  explicit NcclLikeTuner(int newest) {
    lib_ = dlopen(TOPOTUNE_TUNER_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) return;
    for (int v = newest; v >= 2 && sym_ == nullptr; --v) {
      sym_ = dlsym(lib_, ("ncclTunerPlugin_v" + std::to_string(v)).c_str());
      version_ = v;
    }
  }
  ~NcclLikeTuner() {
    if (lib_ != nullptr) dlclose(lib_);
  }
  NcclLikeTuner(const NcclLikeTuner&) = delete;
  NcclLikeTuner& operator=(const NcclLikeTuner&) = delete;

  [[nodiscard]] bool loaded() const { return sym_ != nullptr; }
  [[nodiscard]] int version() const { return version_; }
  [[nodiscard]] const char* name() const { return static_cast<const ncclTuner_v2_t*>(sym_)->name; }

  ncclResult_t init(size_t nranks, size_t nnodes) {
    if (version_ >= 5) {
      // v5's and v6's init have one signature (tuner_v6.h reuses v5's types).
      ncclNvlDomainInfo_v5_t nvl{static_cast<int>(nnodes), 8, 8};
      ncclTunerConstants_v5_t constants{};
      const auto* t = static_cast<const ncclTuner_v5_t*>(sym_);
      return t->init(&ctx_, 0x1234, nranks, nnodes, capture_log, &nvl, &constants);
    }
    // v2, v3, v4 share init(nRanks, nNodes, logFunction, context).
    return static_cast<const ncclTuner_v2_t*>(sym_)->init(nranks, nnodes, capture_log, &ctx_);
  }

  // NCCL's call (src/enqueue.cc): *nChannels starts at 0, which means "NCCL's own count".
  ncclResult_t get(ncclFunc_t coll, size_t nbytes, Table& table, int* nchannels,
                   int num_algo = kAlgos) {
    auto** raw = reinterpret_cast<float**>(table.data());
    switch (version_) {
      case 2:
        return get_v2(coll, nbytes, table, nchannels);
      case 3:
        return static_cast<const ncclTuner_v3_t*>(sym_)->getCollInfo(ctx_, coll, nbytes, 1, raw,
                                                                     num_algo, kProtos, nchannels);
      case 4:
        return static_cast<const ncclTuner_v4_t*>(sym_)->getCollInfo(
            ctx_, coll, nbytes, 1, raw, num_algo, kProtos, 0, nchannels);
      case 5:
        return static_cast<const ncclTuner_v5_t*>(sym_)->getCollInfo(
            ctx_, coll, nbytes, 1, raw, num_algo, kProtos, 0, nchannels);
      default:
        return static_cast<const ncclTuner_v6_t*>(sym_)->getCollInfo(
            ctx_, coll, nbytes, 1, raw, num_algo, kProtos, 0, nchannels);
    }
  }

  ncclResult_t finalize() {
    if (version_ >= 5) return static_cast<const ncclTuner_v5_t*>(sym_)->finalize(ctx_);
    return static_cast<const ncclTuner_v2_t*>(sym_)->destroy(ctx_);
  }

  [[nodiscard]] bool has_chunk_size_hook() const {
    return version_ == 6 && static_cast<const ncclTuner_v6_t*>(sym_)->getChunkSize != nullptr;
  }

 private:
  // NCCL's v2 adapter (src/plugin/tuner/tuner_v2.cc): support flags from the table, the
  // plugin's pick becomes cost 0 unless that entry is NCCL_ALGO_PROTO_IGNORE.
  ncclResult_t get_v2(ncclFunc_t coll, size_t nbytes, Table& table, int* nchannels) {
    const auto ignore = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);
    const int nvls = table[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] != ignore ||
                     table[NCCL_ALGO_NVLS_TREE][NCCL_PROTO_SIMPLE] != ignore;
    const int collnet = table[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] != ignore;
    int algo = NCCL_ALGO_UNDEF;
    int proto = NCCL_PROTO_UNDEF;
    const ncclResult_t r = static_cast<const ncclTuner_v2_t*>(sym_)->getCollInfo(
        ctx_, coll, nbytes, collnet, nvls, 1, &algo, &proto, nchannels);
    if (r != ncclSuccess) return r;
    if (algo >= 0 && algo < kAlgos && proto >= 0 && proto < kProtos &&
        table[algo][proto] != ignore) {
      table[algo][proto] = 0.0f;
    }
    return ncclSuccess;
  }

  void* lib_ = nullptr;
  const void* sym_ = nullptr;
  int version_ = 0;
  void* ctx_ = nullptr;
};

/// NCCL's choice from a cost table (topoGetAlgoInfo, src/enqueue.cc at v2.30.7-1): the
/// lowest entry >= 0, the first in (algorithm, protocol) order on a tie; {-1, -1} when none.
inline std::pair<int, int> nccl_choice(const Table& t) {
  std::pair<int, int> best{-1, -1};
  for (int a = 0; a < kAlgos; ++a) {
    for (int p = 0; p < kProtos; ++p) {
      if (t[a][p] >= 0 && (best.first < 0 || t[a][p] < t[best.first][best.second])) best = {a, p};
    }
  }
  return best;
}

}  // namespace topotune::tuner_test
