#include "planning/predicted_tuner_rules.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/name_check.h"
#include "planning/error_band.h"

namespace topotune::tune {
namespace {

using algo::NcclAlgo;
using algo::NcclProto;

// NCCL's loop order in topoGetAlgoInfo (src/enqueue.cc at v2.30.7-1): algorithms by their
// index (Tree, Ring, ..., NVLS, NVLSTree, PAT), protocols LL, LL128, Simple; the first of
// equal times wins.
constexpr NcclAlgo kAlgoOrder[] = {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls,
                                   NcclAlgo::NvlsTree, NcclAlgo::Pat};
constexpr NcclProto kProtoOrder[] = {NcclProto::LL, NcclProto::LL128, NcclProto::Simple};

NcclPick pick_of(const algo::NcclCandidate& c) { return {c.algo, c.proto}; }

// topotune's fastest of what NCCL enables at this size (the first in NCCL's order on a tie).
algo::NcclCandidate fastest_enabled(const algo::NcclPredictor& p, sched::Collective c, Bytes b) {
  algo::NcclCandidate best;
  bool found = false;
  for (NcclAlgo a : kAlgoOrder) {
    for (NcclProto q : kProtoOrder) {
      const algo::NcclCandidate cand = p.evaluate(c, b, a, q);
      if (cand.enabled && (!found || cand.time.value < best.time.value)) best = cand, found = true;
    }
  }
  return best;  // predict() succeeded for this size, so at least one candidate is enabled
}

// The plan's test (error_band.h, beats_beyond_band): the gain must exceed the held-out error of
// both predictions, since either may be off by it; `error` is this kind of cluster's figure for
// the collective at this size.
bool beyond_band(Seconds fastest, Seconds fallback, double error) {
  return fallback.value - fastest.value > error * (fallback.value + fastest.value);
}

Expected<TunerRuleSample> sample(const algo::NcclPredictor& with_aws,
                                 const algo::NcclPredictor& cost_model, const ClusterBands& bands,
                                 sched::Collective c, Bytes b) {
  TT_TRY(const algo::NcclPrediction def, with_aws.predict(c, b));
  TT_TRY(const algo::NcclPrediction own, cost_model.predict(c, b));
  const algo::NcclCandidate fast = fastest_enabled(with_aws, c, b);
  TunerRuleSample s;
  s.bytes = b;
  s.nccl = pick_of(own.chosen);
  s.default_pick = pick_of(def.chosen);
  s.default_time = def.chosen.time;
  s.fastest = pick_of(fast);
  s.fastest_time = fast.time;
  s.band = bands.figure(b).error;
  if (beyond_band(s.fastest_time, s.default_time, s.band)) {
    s.recommended = s.fastest;
    s.reason = PickReason::Faster;
  } else {
    s.recommended = s.default_pick;
    s.reason = s.default_pick == s.nccl ? PickReason::NcclChoice : PickReason::AwsTuner;
  }
  return s;
}

const char* rules_name(sched::Collective c) {
  switch (c) {
    case sched::Collective::Allgather:
      return "allgather";
    case sched::Collective::ReduceScatter:
      return "reducescatter";
    default:
      return "allreduce";
  }
}

// A whole percent for a gain, one decimal for the error band (7.6%).
std::string percent(double x, int decimals = 0) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(decimals) << 100 * x << "%";
  return o.str();
}

// Free text from input in a comment line: no character that ends the comment, and short
// enough that the line stays under the plugin's 512-byte limit (a longer line voids the file).
std::string comment_field(const std::string& text) {
  constexpr std::size_t kMax = 120;
  const std::string safe = comment_text(text);
  return safe.size() <= kMax ? safe : safe.substr(0, kMax) + "...";
}

// topotune's own text in a comment line (the band's source: figures, '%', data file names):
// printable ASCII, so no newline can end the comment; short, under the plugin's 512-byte line.
std::string printable(const std::string& text) {
  std::string out = text.substr(0, 300);
  for (char& ch : out) {
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  }
  return out;
}

// One line per run of consecutive ruled samples with the same pick and reason.
void write_collective(std::ostringstream& o, const CollectiveTunerRules& coll,
                      const TunerRulesContext& ctx) {
  const std::vector<TunerRuleSample>& s = coll.samples;
  std::size_t ruled = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (!s[i].needs_rule()) {
      ++i;
      continue;
    }
    std::size_t j = i;
    double lo_gain = 1, hi_gain = 0, hi_band = 0;
    for (; j < s.size() && s[j].needs_rule() && s[j].recommended == s[i].recommended &&
           s[j].reason == s[i].reason;
         ++j) {
      const double gain = 1 - s[j].fastest_time.value / s[j].default_time.value;
      lo_gain = std::min(lo_gain, gain), hi_gain = std::max(hi_gain, gain);
      hi_band = std::max(hi_band, s[j].band);
    }
    ruled += j - i;
    const std::int64_t hi = j < s.size() ? s[j].bytes.value - 1 : s[j - 1].bytes.value;
    o << rules_name(coll.collective) << " " << s[i].bytes.value << " " << hi << " " << ctx.nodes
      << " " << ctx.ranks << " " << algo::nccl_algo_name(s[i].recommended.algo) << " "
      << algo::nccl_proto_name(s[i].recommended.proto);
    if (s[i].reason == PickReason::AwsTuner) {
      o << "  # the AWS region tuner's pick\n";
    } else {
      o << "  # predicted " << percent(lo_gain)
        << (lo_gain == hi_gain ? "" : " to " + percent(hi_gain))
        << " less time than NCCL's predicted choice (band " << percent(hi_band, 1) << ")\n";
    }
    i = j;
  }
  if (ruled == 0) {
    o << "# " << rules_name(coll.collective)
      << ": no rule; at every sampled size topotune's fastest is NCCL's predicted choice or "
         "within the error band of it, so NCCL's choice stands.\n";
  }
}

}  // namespace

const std::vector<sched::Collective>& tuner_rule_collectives() {
  static const std::vector<sched::Collective> kColls = {
      sched::Collective::Allreduce, sched::Collective::Allgather, sched::Collective::ReduceScatter};
  return kColls;
}

Expected<std::vector<CollectiveTunerRules>> predict_tuner_rules(const algo::NcclSystem& system,
                                                                const algo::NcclModelParams& params,
                                                                const algo::NcclOptions& options,
                                                                const std::vector<Bytes>& sizes) {
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    if (sizes[i].value <= sizes[i - 1].value) {
      return fail(Errc::InvalidArgument, "the sizes of a rules file must increase");
    }
  }
  const algo::NcclPredictor with_aws(system, params, options);
  algo::NcclOptions no_tuner = options;
  no_tuner.tuner = algo::NcclTunerMode::None;
  const algo::NcclPredictor cost_model(system, params, no_tuner);
  std::vector<CollectiveTunerRules> out;
  for (const sched::Collective c : tuner_rule_collectives()) {
    CollectiveTunerRules coll;
    coll.collective = c;
    const ClusterBands bands(system, options.version, c);
    coll.band_source = bands.figure(std::nullopt).source;
    for (const Bytes b : sizes) {
      TT_TRY(TunerRuleSample s, sample(with_aws, cost_model, bands, c, b));
      coll.samples.push_back(s);
    }
    out.push_back(std::move(coll));
  }
  return out;
}

std::string predicted_tuner_rules_file(const std::vector<CollectiveTunerRules>& rules,
                                       const TunerRulesContext& ctx) {
  std::ostringstream o;
  o << "# topotune NCCL tuner rules (docs/tuner-plugin.md) from `topotune predict`\n"
    << "# cluster: " << comment_field(ctx.cluster) << "; communicator " << ctx.nodes << " nodes, "
    << ctx.ranks << " ranks\n"
    << "# NCCL assumed: " << comment_field(ctx.nccl)
    << (ctx.restrictions.empty() ? "" : ", " + comment_field(ctx.restrictions)) << "\n"
    << "# calibration: "
    << (ctx.calibration.empty() ? "built-in data/nccl_model.json" : comment_field(ctx.calibration))
    << "\n"
    << "# A rule where topotune's fastest (algorithm, protocol) beats NCCL's predicted choice by "
       "more than the model's held-out error for this kind of cluster, collective and size "
       "(data/error_bands.json) on each time, or where NCCL's predicted choice is the AWS region "
       "tuner's, which this plugin replaces; elsewhere NCCL's own choice stands.\n"
    << "# Sizes are NCCL's nBytes sampled as predict's sweep: sizes between sampled points "
       "inherit the pick of the sampled size below them; sizes outside the sweep keep NCCL's "
       "own choice. Channels: NCCL's own count.\n"
    << "# collective min_bytes max_bytes nnodes nranks algo proto\n";
  for (const CollectiveTunerRules& coll : rules) {
    o << "# " << rules_name(coll.collective) << " error band: " << printable(coll.band_source)
      << "\n";
  }
  for (const CollectiveTunerRules& coll : rules) write_collective(o, coll, ctx);
  return o.str();
}

}  // namespace topotune::tune
