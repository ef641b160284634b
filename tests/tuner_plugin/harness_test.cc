// Loads libnccl-tuner-topotune.so the way NCCL does (NVIDIA/nccl src/plugin/tuner.cc and
// src/plugin/tuner/tuner_v*.cc at v2.30.7-1): dlopen(RTLD_NOW | RTLD_LOCAL), dlsym of
// ncclTunerPlugin_vN from the newest version the NCCL release knows down to v2, the first
// found wins; v2 goes through NCCL's adapter, which zeroes the picked cost-table entry only
// when it is not NCCL_ALGO_PROTO_IGNORE. Then init / getCollInfo / finalize with NCCL-shaped
// cost tables for 1 KiB .. 16 GiB and allreduce, allgather, reduce-scatter.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/lib/temp_dir.h"
#include "tests/tuner_plugin/nccl_like_tuner.h"

namespace {

using topotune::tuner_test::capture_log;
using topotune::tuner_test::g_log;
using topotune::tuner_test::kAlgos;
using topotune::tuner_test::kProtos;
using topotune::tuner_test::NcclLikeTuner;
using topotune::tuner_test::Table;

// A cost table shaped like NCCL's on a 4-node cluster without NVLS or CollNet: Tree only for
// allreduce, PAT only for allgather and reduce-scatter, CollNet* and NVLS* not allowed (-1).
// Costs grow with size and differ per entry, so a 0 can only come from the plugin.
Table nccl_like_table(ncclFunc_t coll, size_t nbytes) {
  Table t{};
  for (int a = 0; a < kAlgos; ++a) {
    for (int p = 0; p < kProtos; ++p) {
      t[a][p] = 5.0f + static_cast<float>(a * kProtos + p) + static_cast<float>(nbytes) * 1e-6f;
    }
  }
  const auto ignore = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);
  for (int a :
       {NCCL_ALGO_COLLNET_DIRECT, NCCL_ALGO_COLLNET_CHAIN, NCCL_ALGO_NVLS, NCCL_ALGO_NVLS_TREE}) {
    t[a].fill(ignore);
  }
  if (coll != ncclFuncAllReduce) t[NCCL_ALGO_TREE].fill(ignore);
  if (coll == ncclFuncAllReduce) t[NCCL_ALGO_PAT].fill(ignore);
  return t;
}

// The rules the tests load, for a 4-node, 32-rank communicator.
constexpr const char* kRules =
    "# topotune rules for the harness\n"
    "allreduce      0        65535    4  32  tree  LL\n"
    "allreduce      65536    16777215 4  32  ring  LL128  8\n"
    "allreduce      16777216 -1       4  -1  ring  Simple 24\n"
    "allgather      0        1048575  -1 -1  PAT   Simple\n"
    "allgather      1048576  -1       -1 -1  ring  LL128  16\n"
    "reducescatter  0        1048575  4  32  tree  Simple 4   # tree: -1 for reduce-scatter\n";

struct Pick {
  int algo;
  int proto;
  int channels;  // 0: the rule leaves NCCL's count
};

// The pick kRules makes, read off its lines by hand; nullopt where no rule matches.
std::optional<Pick> expected_pick(ncclFunc_t coll, size_t n, size_t nnodes, size_t nranks) {
  const bool shape = nnodes == 4 && nranks == 32;
  if (coll == ncclFuncAllReduce) {
    if (n <= 65535 && shape) return Pick{NCCL_ALGO_TREE, NCCL_PROTO_LL, 0};
    if (n <= 16777215 && shape) return Pick{NCCL_ALGO_RING, NCCL_PROTO_LL128, 8};
    if (n >= 16777216 && nnodes == 4) return Pick{NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 24};
    return std::nullopt;
  }
  if (coll == ncclFuncAllGather) {
    if (n <= 1048575) return Pick{NCCL_ALGO_PAT, NCCL_PROTO_SIMPLE, 0};
    return Pick{NCCL_ALGO_RING, NCCL_PROTO_LL128, 16};
  }
  if (coll == ncclFuncReduceScatter && n <= 1048575 && shape) {
    return Pick{NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE, 4};
  }
  return std::nullopt;
}

class TunerHarness : public ::testing::Test {
 protected:
  void SetUp() override { g_log.clear(); }
  void TearDown() override { unsetenv("NCCL_TUNER_TOPOTUNE_RULES"); }

  std::string write_rules(const std::string& text) {
    const std::string path = (dir_.path() / "rules.txt").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  topotune::test_support::TempDir dir_{"topotune-tuner"};
};

constexpr ncclFunc_t kColls[] = {ncclFuncAllReduce, ncclFuncAllGather, ncclFuncReduceScatter};

// Sizes 1 KiB .. 16 GiB by powers of two, plus each rule boundary's neighbours.
std::vector<size_t> sizes() {
  std::vector<size_t> s;
  for (size_t n = 1024; n <= (size_t{16} << 30); n *= 2) s.push_back(n);
  for (size_t edge : {65535u, 65536u, 1048575u, 1048576u, 16777215u, 16777216u}) s.push_back(edge);
  return s;
}

// One communicator through one API version: every call changes exactly what expected_pick
// says (the pick's entry to 0 when NCCL allows it, its channels when it names them) and
// nothing else, or nothing at all without kRules; returns how many calls changed the table.
int check_calls(NcclLikeTuner& tuner, size_t nnodes, size_t nranks, bool with_rules) {
  const auto ignore = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);
  int changed = 0;
  EXPECT_EQ(tuner.init(nranks, nnodes), ncclSuccess);
  for (ncclFunc_t coll : kColls) {
    for (size_t n : sizes()) {
      Table table = nccl_like_table(coll, n);
      const Table before = table;
      int nchannels = 0;
      EXPECT_EQ(tuner.get(coll, n, table, &nchannels), ncclSuccess);
      std::optional<Pick> pick;
      if (with_rules) pick = expected_pick(coll, n, nnodes, nranks);
      if (pick && before[pick->algo][pick->proto] == ignore) pick.reset();  // NCCL forbids it
      // Only NCCL 2.21 reads _v2 (later releases find _v3 or newer first) and it has no PAT
      // row (added in v2.23.4-1), so the plugin refuses PAT through v2. (Tree for
      // reduce-scatter is -1 in the table already, and refused by the plugin through v2.)
      if (pick && tuner.version() == 2 && pick->algo == NCCL_ALGO_PAT) pick.reset();
      Table want = before;
      if (pick) want[pick->algo][pick->proto] = 0.0f;
      EXPECT_EQ(table, want) << "v" << tuner.version() << " coll " << coll << " bytes " << n;
      EXPECT_EQ(nchannels, pick ? pick->channels : 0) << "coll " << coll << " bytes " << n;
      changed += table != before;
    }
  }
  EXPECT_EQ(tuner.finalize(), ncclSuccess);
  return changed;
}

TEST_F(TunerHarness, EveryApiVersionLoadsAndAppliesTheRules) {
  setenv("NCCL_TUNER_TOPOTUNE_RULES", write_rules(kRules).c_str(), 1);
  for (int newest = 2; newest <= 6; ++newest) {
    NcclLikeTuner tuner(newest);
    ASSERT_TRUE(tuner.loaded()) << dlerror();
    EXPECT_EQ(tuner.version(), newest);
    EXPECT_STREQ(tuner.name(), "topotune");
    // 4 x 32: allreduce 25 sizes + 6 edges; allgather the same, of which 18 (1 MiB and
    // up) are ring and the rest PAT, refused through v2; reduce-scatter none (its rule names
    // tree, which NCCL does not allow for it).
    const int allgather = newest == 2 ? 18 : 31;
    EXPECT_EQ(check_calls(tuner, 4, 32, true), 31 + allgather) << "v" << newest;
    // 2 x 16: only the rules with nnodes/nranks -1 match (allgather's).
    EXPECT_EQ(check_calls(tuner, 2, 16, true), allgather) << "v" << newest;
    EXPECT_FALSE(tuner.has_chunk_size_hook());
  }
}

// An NCCL newer than the plugin (say one that looks up _v7 first) falls back to _v6.
TEST_F(TunerHarness, NewerNcclFallsBackToTheNewestExportedVersion) {
  NcclLikeTuner tuner(7);
  ASSERT_TRUE(tuner.loaded());
  EXPECT_EQ(tuner.version(), 6);
}

// NCCL 2.22 has no PAT row: numAlgo 6. A rule naming PAT then changes nothing.
TEST_F(TunerHarness, RuleOutsideTheTableNcclPassesChangesNothing) {
  setenv("NCCL_TUNER_TOPOTUNE_RULES", write_rules(kRules).c_str(), 1);
  NcclLikeTuner tuner(3);
  ASSERT_EQ(tuner.init(32, 4), ncclSuccess);
  Table table = nccl_like_table(ncclFuncAllGather, 4096);
  const Table before = table;
  int nchannels = 0;
  EXPECT_EQ(tuner.get(ncclFuncAllGather, 4096, table, &nchannels, 6), ncclSuccess);
  EXPECT_EQ(table, before);
  EXPECT_EQ(nchannels, 0);
  EXPECT_EQ(tuner.finalize(), ncclSuccess);
}

// Protocol `any`: through v3..v6 the cheapest entry of the rule's algorithm that NCCL allows
// becomes 0 (NCCL keeps its own protocol for Ring), never a -1 entry, even though -1 is the
// smallest number in the row; a row NCCL allows nothing of changes nothing. Through v2
// (NCCL 2.21, no cost table) the whole choice stays NCCL's.
TEST_F(TunerHarness, AnyProtocolPicksNcclsCheapestAllowedProtocolOfTheAlgorithm) {
  setenv("NCCL_TUNER_TOPOTUNE_RULES",
         write_rules("allreduce 0 -1 -1 -1 ring any 4\nallgather 0 -1 -1 -1 tree any\n").c_str(),
         1);
  const auto ignore = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);
  struct Case {
    std::array<float, kProtos> ring;  // LL, LL128, Simple
    int want;                         // the protocol whose entry becomes 0; -1: none
  };
  const Case cases[] = {
      {{9.0f, ignore, 7.0f}, NCCL_PROTO_SIMPLE},  // LL128 not allowed, Simple cheaper than LL
      {{3.0f, 2.0f, 7.0f}, NCCL_PROTO_LL128},     // all allowed: NCCL's cheapest
      {{ignore, ignore, 7.5f}, NCCL_PROTO_SIMPLE},
      {{ignore, ignore, ignore}, -1},  // Ring not allowed at all
  };
  for (int newest = 2; newest <= 6; ++newest) {
    NcclLikeTuner tuner(newest);
    ASSERT_TRUE(tuner.loaded());
    ASSERT_EQ(tuner.init(32, 4), ncclSuccess);
    for (const Case& c : cases) {
      Table table = nccl_like_table(ncclFuncAllReduce, 1 << 20);
      table[NCCL_ALGO_RING] = c.ring;
      // Tree cheaper than any Ring entry: only the rule can make NCCL pick Ring.
      table[NCCL_ALGO_TREE].fill(1.0f);
      const Table before = table;
      int nchannels = 0;
      EXPECT_EQ(tuner.get(ncclFuncAllReduce, 1 << 20, table, &nchannels), ncclSuccess);
      Table want = before;
      const bool applies = newest >= 3 && c.want >= 0;
      if (applies) want[NCCL_ALGO_RING][c.want] = 0.0f;
      EXPECT_EQ(table, want) << "v" << newest << " want " << c.want;
      EXPECT_EQ(nchannels, applies ? 4 : 0) << "v" << newest;
    }
    // allgather has no Tree (-1 row in nccl_like_table): nothing changes.
    Table table = nccl_like_table(ncclFuncAllGather, 4096);
    const Table before = table;
    int nchannels = 0;
    EXPECT_EQ(tuner.get(ncclFuncAllGather, 4096, table, &nchannels), ncclSuccess);
    EXPECT_EQ(table, before);
    EXPECT_EQ(tuner.finalize(), ncclSuccess);
  }
}

// Missing, unreadable, malformed and hostile files: init succeeds, every call changes
// nothing, and the logger gets exactly one line.
TEST_F(TunerHarness, BadRulesFilesChangeNothingAndLogOneLine) {
  std::vector<std::string> paths = {
      (dir_.path() / "missing.txt").string(),
      dir_.path().string(),  // a directory
      "",
  };
  const std::string fifo = (dir_.path() / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);  // no writer: opening must not block
  paths.push_back(fifo);
  const std::string good_line = "allreduce 0 -1 -1 -1 ring Simple 8\n";
  const std::vector<std::string> texts = {
      good_line + "allreduce 0 -1 -1 -1 ring\n",            // malformed second line
      good_line + std::string(600, 'x') + "\n",             // overlong line
      good_line + std::string("\0\xff\x01 garbage\n", 13),  // binary
      std::string(1 << 20, '#') + "\n" + good_line,         // over 1 MiB
  };
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string p = (dir_.path() / ("bad" + std::to_string(i))).string();
    std::ofstream(p, std::ios::binary) << texts[i];
    paths.push_back(p);
  }
  for (const std::string& path : paths) {
    setenv("NCCL_TUNER_TOPOTUNE_RULES", path.c_str(), 1);
    for (int newest = 2; newest <= 6; ++newest) {
      g_log.clear();
      NcclLikeTuner tuner(newest);
      ASSERT_TRUE(tuner.loaded());
      EXPECT_EQ(check_calls(tuner, 4, 32, false), 0) << path;
      ASSERT_EQ(g_log.size(), 1u) << path;
      EXPECT_EQ(g_log[0].first, NCCL_LOG_WARN) << g_log[0].second;
      EXPECT_EQ(g_log[0].second.rfind("TUNER/topotune: NCCL_TUNER_TOPOTUNE_RULES: ", 0), 0u)
          << g_log[0].second;
    }
  }
}

TEST_F(TunerHarness, UnsetVariableMeansNcclsOwnChoices) {
  unsetenv("NCCL_TUNER_TOPOTUNE_RULES");
  NcclLikeTuner tuner(6);
  ASSERT_TRUE(tuner.loaded());
  EXPECT_EQ(check_calls(tuner, 4, 32, false), 0);
  ASSERT_EQ(g_log.size(), 1u);
  EXPECT_EQ(g_log[0].first, NCCL_LOG_INFO);
}

// NCCL may hand a NULL logger; nothing may dereference it.
TEST_F(TunerHarness, NullLoggerIsAllowed) {
  setenv("NCCL_TUNER_TOPOTUNE_RULES", (dir_.path() / "missing").c_str(), 1);
  void* lib = dlopen(TOPOTUNE_TUNER_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr);
  const auto* t = static_cast<const ncclTuner_v6_t*>(dlsym(lib, "ncclTunerPlugin_v6"));
  ASSERT_NE(t, nullptr);
  void* ctx = nullptr;
  EXPECT_EQ(t->init(&ctx, 1, 8, 1, nullptr, nullptr, nullptr), ncclSuccess);
  EXPECT_EQ(t->finalize(ctx), ncclSuccess);
  dlclose(lib);
}

}  // namespace
