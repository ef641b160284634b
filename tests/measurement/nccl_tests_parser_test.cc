// nccl-tests log parser: real-looking logs (modern and 2.4-era layouts, launcher prefixes),
// damaged logs (errors name the line), and what is inferred (ranks, nodes, version, -g).

#include "measurement/nccl_tests_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace topotune::rt {
namespace {

// Rows copied from the calibration set's dgx_h100_1n_dgxc_benchmarking entry, laid out as
// all_reduce_perf 2.13 prints them.
const char* const kModern =
    R"(# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41051 on dgx-h100-01 device  0 [0x1b] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41052 on dgx-h100-01 device  1 [0x43] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid  41053 on dgx-h100-01 device  2 [0x52] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid  41054 on dgx-h100-01 device  3 [0x61] NVIDIA H100 80GB HBM3
#  Rank  4 Group  0 Pid  41055 on dgx-h100-01 device  4 [0x9d] NVIDIA H100 80GB HBM3
#  Rank  5 Group  0 Pid  41056 on dgx-h100-01 device  5 [0xc3] NVIDIA H100 80GB HBM3
#  Rank  6 Group  0 Pid  41057 on dgx-h100-01 device  6 [0xd1] NVIDIA H100 80GB HBM3
#  Rank  7 Group  0 Pid  41058 on dgx-h100-01 device  7 [0xdf] NVIDIA H100 80GB HBM3
dgx-h100-01:41051:41051 [0] NCCL INFO NCCL version 2.19.3+cuda12.3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    13.71    0.00    0.00      0    13.03    0.00    0.00      0
     1048576        262144     float     sum      -1    27.37   38.31   67.04      0    26.93   38.94   68.14      0
 17179869184    4294967296     float     sum      -1    62648  274.23  479.90      0    62636  274.28  479.99      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 182.31
#
)";

// The p3dn entry's first rows as the 2019 nccl-tests printed them: no root column, "error".
const char* const kOld =
    R"(#                                                     out-of-place                       in-place
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2   float     sum    145.4    0.00    0.00  1e-07    152.8    0.00    0.00  1e-07
     1048576        262144   float     sum    709.3    1.48    2.77  1e-07    693.2    1.51    2.84  1e-07
  1073741824     268435456   float     sum   228178    4.71    8.82  1e-07   224997    4.77    8.95  1e-07
)";

TEST(NcclTestsParser, ModernLog) {
  const Measurement m = parse_nccl_tests(kModern, {}).value();
  EXPECT_EQ(m.source, "nccl-tests");
  EXPECT_EQ(m.ranks, 8);
  EXPECT_EQ(m.nodes, 1);
  EXPECT_EQ(m.gpus_per_node, 8);
  EXPECT_EQ(m.gpus_per_thread, 1);
  EXPECT_EQ(m.nccl_version, "2.19.3+cuda12.3");
  EXPECT_EQ(m.gpu_names, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  EXPECT_EQ(m.collective, sched::Collective::Allreduce);
  ASSERT_EQ(m.rows.size(), 3u);
  EXPECT_EQ(m.rows[2].bytes, 17179869184);
  EXPECT_DOUBLE_EQ(m.rows[2].time_us, 62648);
  EXPECT_DOUBLE_EQ(*m.rows[2].in_place_time_us, 62636);
  EXPECT_DOUBLE_EQ(m.rows[1].busbw_GBps, 67.04);
  EXPECT_EQ(m.rows[1].errors, 0);
  EXPECT_EQ(m.rows[0].algorithm, "nccl");
}

TEST(NcclTestsParser, OldLayoutInfersRanksFromBusbw) {
  const Measurement m = parse_nccl_tests(kOld, {}).value();
  ASSERT_EQ(m.rows.size(), 3u);
  // busbw/algbw = 8.82/4.71 = 1.8726 = 2(n-1)/n -> n = 2/(2-1.8726) = 15.7 -> 16 ranks.
  EXPECT_EQ(m.ranks, 16);
  EXPECT_FALSE(m.rows[0].errors.has_value());  // "error" is a max error, not a count
  EXPECT_DOUBLE_EQ(m.rows[1].time_us, 709.3);
}

TEST(NcclTestsParser, LauncherPrefixesAndCrlf) {
  std::string srun, tagged;
  for (std::size_t pos = 0, end; pos < std::string(kOld).size(); pos = end + 1) {
    end = std::string(kOld).find('\n', pos);
    const std::string line = std::string(kOld).substr(pos, end - pos);
    srun += "0: " + line + "\r\n";
    tagged += "[1,0]<stdout>:" + line + "\n";
  }
  EXPECT_EQ(parse_nccl_tests(srun, {}).value().rows.size(), 3u);
  EXPECT_EQ(parse_nccl_tests(tagged, {}).value().rows.size(), 3u);
}

TEST(NcclTestsParser, NotAvailableWrongColumnAndAllGather) {
  const std::string log =
      "# Collective test starting: all_gather_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576         32768     float    none      -1    45.10   23.25   21.80    N/A    "
      "44.90   23.35   21.89    N/A\n";
  NcclTestsParseOptions o;
  o.ranks = 32;
  const Measurement m = parse_nccl_tests(log, o).value();
  EXPECT_EQ(m.collective, sched::Collective::Allgather);
  EXPECT_EQ(m.ranks, 32);
  EXPECT_FALSE(m.rows[0].errors.has_value());
}

// Rows of data/validation's vultr_hgx_b200_2n8g_ib_allgather / _reducescatter entries (16
// ranks) as nccl-tests before 2.17 prints them: no line names the binary, so the table does.
std::string unnamed_log(const char* redop, const char* const rows[3]) {
  std::string log =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n";
  for (int i = 0; i < 3; ++i) log += std::string(rows[i]) + "\n";
  std::size_t at = 0;
  while ((at = log.find("OP", at)) != std::string::npos) log.replace(at, 2, redop);
  return log;
}

TEST(NcclTestsParser, UnnamedAllGatherAndReduceScatterAreReadFromTheirColumns) {
  const char* const gather[3] = {
      "     1048576         16384     float      OP      -1    77.59   13.51   12.67      0    "
      "77.54   13.52   12.68      0",
      "  1073741824      16777216     float      OP      -1  3360.46  319.52  299.55      0  "
      "3321.73  323.25  303.04      0",
      " 17179869184     268435456     float      OP      -1  52287.3  328.57  308.03      0  "
      "52294.5  328.52  307.99      0"};
  const char* const scatter[3] = {
      "     1048576         16384     float      OP      -1    82.63   12.69   11.90      0    "
      "82.84   12.66   11.87      0",
      "  1073741824      16777216     float      OP      -1  3340.30  321.45  301.36      0  "
      "3329.39  322.50  302.35      0",
      " 17179869184     268435456     float      OP      -1  52956.4  324.42  304.14      0  "
      "52932.8  324.56  304.27      0"};
  const Measurement ag = parse_nccl_tests(unnamed_log("none", gather), {}).value();
  EXPECT_EQ(ag.collective, sched::Collective::Allgather);
  EXPECT_EQ(ag.ranks, 16);                       // busbw/algbw = 15/16
  EXPECT_EQ(ag.rows.back().bytes, 17179869184);  // the size column is the whole buffer
  const Measurement rs = parse_nccl_tests(unnamed_log("sum", scatter), {}).value();
  EXPECT_EQ(rs.collective, sched::Collective::ReduceScatter);
  EXPECT_EQ(rs.ranks, 16);
  // An all_reduce table (busbw/algbw = 2(n-1)/n) stays all_reduce, and --collective wins.
  EXPECT_EQ(parse_nccl_tests(kModern, {}).value().collective, sched::Collective::Allreduce);
  NcclTestsParseOptions o;
  o.collective = sched::Collective::ReduceScatter;
  EXPECT_EQ(parse_nccl_tests(unnamed_log("none", gather), o).value().collective,
            sched::Collective::ReduceScatter);
}

TEST(NcclTestsParser, TruncatedRowNamesItsLine) {
  std::string log = kModern;
  // Cut inside the last row: 3 header lines + 8 Rank lines + NCCL INFO + 4 table-header lines
  // put the rows on lines 17, 18 and 19.
  log = log.substr(0, log.find("62648") + 3);
  const auto r = parse_nccl_tests(log, {});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("line 19"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos);
}

TEST(NcclTestsParser, CorruptFieldNamesItsLine) {
  std::string log = kOld;
  log.replace(log.find("709.3"), 5, "7O9.3");
  NcclTestsParseOptions o;
  o.origin = "p3dn.log";
  const auto r = parse_nccl_tests(log, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message.rfind("p3dn.log:line 5: bad time", 0), 0u) << r.error().message;
}

TEST(NcclTestsParser, NoRowsIsAnError) {
  EXPECT_FALSE(parse_nccl_tests("# nThread 1 nGpus 8\n# Avg bus bandwidth : 0\n", {}).has_value());
  EXPECT_FALSE(parse_nccl_tests("", {}).has_value());
  EXPECT_FALSE(load_nccl_tests_log("/nonexistent/log.txt", {}).has_value());
}

TEST(NcclTestsParser, RanksUnknownWithoutRankLinesOrBandwidth) {
  const std::string log =
      "           8             2     float     sum      -1    13.71    0.00    0.00      0    "
      "13.03    0.00    0.00      0\n";
  EXPECT_FALSE(parse_nccl_tests(log, {}).has_value());
  NcclTestsParseOptions o;
  o.ranks = 8;
  EXPECT_EQ(parse_nccl_tests(log, o).value().ranks, 8);
}

TEST(NcclTestsParser, RoundTripsThroughMeasurementJson) {
  const Measurement m = parse_nccl_tests(kModern, {}).value();
  const Measurement back = measurement_from_json(to_json(m), "x").value();
  EXPECT_EQ(back.gpus_per_thread, 1);
  EXPECT_EQ(back.rows.size(), 3u);
  EXPECT_EQ(back.nccl_version, m.nccl_version);
}

TEST(NcclTestsParser, BinaryJunkInVersionSurvivesJson) {
  // Found by the fuzzer: invalid UTF-8 after "NCCL version" made the JSON writer throw.
  std::string log = kModern;
  log.replace(log.find("2.19.3+cuda12.3"), 15, "2.19\xf5\xf5)x");
  const Measurement m = parse_nccl_tests(log, {}).value();
  EXPECT_EQ(m.nccl_version, "2.19x");
  EXPECT_TRUE(measurement_from_json(to_json(m), "x").has_value());
}

TEST(NcclTestsParser, HeaderCountsOutOfRangeAreRefusedAsTheJsonReaderDoes) {
  // Found by the fuzzer: "nGpus 73741824" parsed, and the measurement JSON written from it was
  // refused when read back (gpus_per_thread must be in [1, 2^20]).
  std::string log = kModern;
  log.replace(log.find("nGpus 1 "), 8, "nGpus 73741824 ");
  const auto m = parse_nccl_tests(log, {});
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message.find("gpus_per_thread must be in [1, 1048576]"), std::string::npos)
      << m.error().message;
  log = kModern;
  log.replace(log.find("nGpus 1 "), 8, "nGpus 1048576 ");
  EXPECT_TRUE(parse_nccl_tests(log, {}).has_value());
}

// Replaces the first `from` in kModern with `to` and parses the result as "m.log".
Expected<Measurement> modern_with(const std::string& from, const std::string& to) {
  std::string log = kModern;
  const auto at = log.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) log.replace(at, from.size(), to);
  NcclTestsParseOptions o;
  o.origin = "m.log";
  return parse_nccl_tests(log, o);
}

TEST(NcclTestsParser, RowsWithNonDecimalSizesAreRefusedNotSkipped) {
  // Before: a row whose size was "-8", "0x10" or "8.5" was skipped as a banner line, so the
  // log silently lost it. The 1 MiB row is line 18.
  for (const char* size : {"-1048576", "0x100000", "1048576.5", "1e6"}) {
    const auto m = modern_with("     1048576        262144", std::string(" ") + size + " 262144");
    ASSERT_FALSE(m.has_value()) << size;
    EXPECT_EQ(m.error().message.rfind("m.log:line 18: bad size", 0), 0u) << m.error().message;
  }
  // Launcher banners and NCCL INFO lines that start with digits are still not rows.
  EXPECT_TRUE(modern_with("dgx-h100-01:41051", "10.0.0.1:41051").has_value());
}

TEST(NcclTestsParser, TimesBelowOneNanosecondAreRefused) {
  // Time 0 dropped the row in validate; 5e-324 made its busbw inf.
  for (const char* t : {"0", "0.0000", "5e-324", "0.0009"}) {
    const auto m = modern_with("27.37", t);
    ASSERT_FALSE(m.has_value()) << t;
    EXPECT_EQ(m.error().message.rfind("m.log:line 18: bad time", 0), 0u) << m.error().message;
    const auto ip = modern_with("26.93", t);
    ASSERT_FALSE(ip.has_value()) << t;
    EXPECT_NE(ip.error().message.find("line 18: bad in-place time"), std::string::npos)
        << ip.error().message;
  }
  EXPECT_TRUE(modern_with("27.37", "0.001").has_value());
}

TEST(NcclTestsParser, NGpusOutOfRangeIsRefusedWithItsLine) {
  for (const char* n : {"0", "-1", "99999999999999999999", "1.5", "x"}) {
    const auto m = modern_with("nGpus 1 ", std::string("nGpus ") + n + " ");
    ASSERT_FALSE(m.has_value()) << n;
    EXPECT_EQ(m.error().message.rfind("m.log:line 1: nGpus: gpus_per_thread must be in", 0), 0u)
        << m.error().message;
  }
}

TEST(MeasurementJson, DenormalAndZeroTimesAreRefused) {
  const std::string good = to_json(parse_nccl_tests(kModern, {}).value());
  for (const char* t : {"5e-324", "0.0", "0"}) {
    std::string text = good;
    const std::string from = "\"time_us\": 27.37";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), std::string("\"time_us\": ") + t);
    EXPECT_FALSE(measurement_from_json(text, "x").has_value()) << t;
  }
}

TEST(MeasurementJson, IntegerFieldsMustBeIntegersInRange) {
  // Found by measurement_fuzz under UBSan: "ranks": 1e300 was cast to int (undefined
  // behaviour), and an integer past int's range wrapped (2^32 + 8 read as 8).
  const std::string good = to_json(parse_nccl_tests(kModern, {}).value());
  ASSERT_TRUE(measurement_from_json(good, "x").has_value());
  const std::pair<std::string, std::string> cases[] = {{"\"ranks\": 8", "\"ranks\": 1e300"},
                                                       {"\"ranks\": 8", "\"ranks\": 4294967304"},
                                                       {"\"ranks\": 8", "\"ranks\": 8.5"},
                                                       {"\"bytes\": 8,", "\"bytes\": 8e30,"},
                                                       {"\"count\": 2,", "\"count\": -1e300,"}};
  for (const auto& [from, to] : cases) {
    std::string text = good;
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const auto m = measurement_from_json(text, "x");
    ASSERT_FALSE(m.has_value()) << to;
    EXPECT_NE(m.error().message.find("must be an integer in"), std::string::npos)
        << m.error().message;
  }
}

TEST(MeasurementJson, RanksCpuSecondsRoundTripAndStayInRange) {
  Measurement m = parse_nccl_tests(kModern, {}).value();
  EXPECT_EQ(to_json(m).find("ranks_cpu_s"), std::string::npos);  // absent unless measured
  m.ranks_cpu_s = 12.5;
  const Measurement back = measurement_from_json(to_json(m), "x").value();
  ASSERT_TRUE(back.ranks_cpu_s.has_value());
  EXPECT_DOUBLE_EQ(*back.ranks_cpu_s, 12.5);
  for (double bad : {-1.0, 2e9}) {
    m.ranks_cpu_s = bad;
    const auto r = measurement_from_json(to_json(m), "x");
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("ranks_cpu_s must be in"), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace topotune::rt
