// The tuner plugin's rules parser: what a good file gives, and that every kind of bad file
// gives no rules and a message naming the line.

#include "tuner_plugin/rules.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune::tuner_plugin {
namespace {

TEST(TunerRules, ParsesFieldsCommentsAndAny) {
  const RulesParse p = parse_rules(
      "# header comment\n"
      "\n"
      "allreduce 0 65535 4 32 tree LL   # small\n"
      "\tAllGather  65536 -1 -1 -1 Ring Simple 16\r\n"
      "reduce_scatter 1 2 1 8 NVLS_TREE ll128");
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.rules.size(), 3u);
  const Rule& a = p.rules[0];
  EXPECT_EQ(a.collective, 4);  // ncclFuncAllReduce
  EXPECT_EQ(a.min_bytes, 0u);
  EXPECT_EQ(a.max_bytes, 65535u);
  EXPECT_EQ(a.nnodes, 4);
  EXPECT_EQ(a.nranks, 32);
  EXPECT_EQ(a.algo, 0);   // NCCL_ALGO_TREE
  EXPECT_EQ(a.proto, 0);  // NCCL_PROTO_LL
  EXPECT_EQ(a.channels, 0);
  const Rule& b = p.rules[1];
  EXPECT_EQ(b.collective, 2);  // ncclFuncAllGather
  EXPECT_EQ(b.max_bytes, UINT64_MAX);
  EXPECT_EQ(b.nnodes, -1);
  EXPECT_EQ(b.nranks, -1);
  EXPECT_EQ(b.algo, 1);   // NCCL_ALGO_RING
  EXPECT_EQ(b.proto, 2);  // NCCL_PROTO_SIMPLE
  EXPECT_EQ(b.channels, 16);
  EXPECT_EQ(p.rules[2].collective, 3);  // ncclFuncReduceScatter
  EXPECT_EQ(p.rules[2].algo, 5);        // NCCL_ALGO_NVLS_TREE
  EXPECT_EQ(p.rules[2].proto, 1);       // NCCL_PROTO_LL128
}

// `any` (any spelling NCCL's names allow) is kAnyProto, not one of NCCL's protocol indices.
TEST(TunerRules, ProtocolAnyLeavesTheProtocolToNccl) {
  const RulesParse p = parse_rules(
      "allgather 0 -1 1 8 ring any\n"
      "reducescatter 0 -1 1 8 Ring ANY 4\n");
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.rules.size(), 2u);
  EXPECT_EQ(p.rules[0].proto, kAnyProto);
  EXPECT_EQ(p.rules[0].algo, 1);  // NCCL_ALGO_RING
  EXPECT_EQ(p.rules[1].proto, kAnyProto);
  EXPECT_EQ(p.rules[1].channels, 4);
  EXPECT_STREQ(proto_name(kAnyProto), "any");
  // Only the whole word: "anything" is an unknown protocol, and the message lists the words.
  EXPECT_EQ(parse_rules("allgather 0 -1 1 8 ring anything").error,
            "line 1: unknown protocol 'anything' (LL, LL128, Simple or any)");
}

TEST(TunerRules, FirstMatchingRuleWins) {
  const RulesParse p = parse_rules(
      "allreduce 0 1023 4 -1 tree LL\n"
      "allreduce 0 -1 -1 -1 ring Simple 8\n");
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(find_rule(p.rules, 4, 1023, 4, 32), &p.rules[0]);
  EXPECT_EQ(find_rule(p.rules, 4, 1024, 4, 32), &p.rules[1]);  // past max_bytes
  EXPECT_EQ(find_rule(p.rules, 4, 512, 2, 16), &p.rules[1]);   // other node count
  EXPECT_EQ(find_rule(p.rules, 2, 512, 4, 32), nullptr);       // allgather: no rule
}

// Each bad line, on line 2 after a good one: no rules at all, and the reason names line 2.
TEST(TunerRules, AnyBadLineRejectsTheWholeFile) {
  const char* bad[] = {
      "allreduce 0 10 4 32 tree",                       // 6 fields
      "allreduce 0 10 4 32 tree LL 8 9",                // 9 fields
      "alltoall 0 10 4 32 tree LL",                     // not a tuned collective
      "allreduce 0 10 4 32 rnig LL",                    // unknown algorithm
      "allreduce 0 10 4 32 ring LL256",                 // unknown protocol
      "allreduce 10 5 4 32 ring LL",                    // max below min
      "allreduce -1 10 4 32 ring LL",                   // min may not be -1
      "allreduce 0 10 0 32 ring LL",                    // nnodes 0
      "allreduce 0 10 4 16777217 ring LL",              // nranks past kMaxRanks
      "allreduce 0 10 4 32 ring LL 0",                  // channels 0
      "allreduce 0 10 4 32 ring LL 65",                 // channels past NCCL's MAXCHANNELS
      "allreduce 0x10 10 4 32 ring LL",                 // not decimal
      "allreduce 0 99999999999999999999 4 32 ring LL",  // overflows int64
      "allreduce 0 10 4 32 ring LL 8x",                 // trailing junk
  };
  for (const char* line : bad) {
    const RulesParse p = parse_rules(std::string("allgather 0 -1 -1 -1 ring Simple\n") + line);
    EXPECT_TRUE(p.rules.empty()) << line;
    EXPECT_EQ(p.error.rfind("line 2: ", 0), 0u) << line << " -> " << p.error;
  }
}

TEST(TunerRules, LimitsOnLineLengthRuleCountAndSize) {
  const std::string rule = "allreduce 0 -1 -1 -1 ring Simple";
  std::string at_limit = rule + std::string(kMaxLineBytes - rule.size() - 2, ' ') + "#x";
  ASSERT_EQ(at_limit.size(), kMaxLineBytes);
  EXPECT_EQ(parse_rules(at_limit).error, "");
  EXPECT_EQ(parse_rules(at_limit + " ").error, "line 1: longer than 512 bytes");

  std::string many;
  for (std::size_t i = 0; i < kMaxRules; ++i) many += rule + "\n";
  EXPECT_EQ(parse_rules(many).rules.size(), kMaxRules);
  const RulesParse over = parse_rules(many + rule + "\n");
  EXPECT_TRUE(over.rules.empty());
  EXPECT_EQ(over.error, "line 4097: more than 4096 rules");

  const RulesParse big = parse_rules(std::string(kMaxRulesFileBytes + 1, '#'));
  EXPECT_TRUE(big.rules.empty());
  EXPECT_EQ(big.error, "file is over 1048576 bytes");
}

// A hostile word must not carry control bytes or its whole length into NCCL's log.
TEST(TunerRules, MessagesQuoteShortPrintableText) {
  const RulesParse p = parse_rules("allreduce 0 1 1 1 \x1b[31m" + std::string(100, 'a') + " LL");
  ASSERT_TRUE(p.rules.empty());
  EXPECT_EQ(p.error.find('\x1b'), std::string::npos) << p.error;
  EXPECT_LT(p.error.size(), 80u) << p.error;
  EXPECT_NE(p.error.find("unknown algorithm '?[31maaaa"), std::string::npos) << p.error;
}

TEST(TunerRules, EmptyOrCommentOnlyFileHasNoRulesAndNoError) {
  EXPECT_EQ(parse_rules("").error, "");
  const RulesParse p = parse_rules("# nothing\n   \n\t# still nothing\n");
  EXPECT_EQ(p.error, "");
  EXPECT_TRUE(p.rules.empty());
}

TEST(TunerRules, NamesAreNcclsSpellings) {
  EXPECT_STREQ(collective_name(3), "ReduceScatter");
  EXPECT_STREQ(algo_name(6), "PAT");
  EXPECT_STREQ(proto_name(2), "Simple");
  EXPECT_STREQ(algo_name(7), "?");
}

}  // namespace
}  // namespace topotune::tuner_plugin
