#include "cli/plan_report.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/reporter.h"
#include "core/string_printf.h"
#include "planning/error_band.h"
#include "timing/nccl_timer.h"

namespace topotune::cli {
namespace {

// Which stage produced a row: the rank stage (simulator) or the screen only.
bool ranked(const tune::Candidate& c) { return c.timer.rfind("flow simulator", 0) == 0; }

// What timed the row: the NCCL predictor for NCCL's own algorithms, else the stage.
const char* timer_tag(const tune::Candidate& c) {
  if (tune::is_nccl_algorithm(c.algo)) return "nccl-model";
  return ranked(c) ? "sim" : "screen";
}

// The frameworks that run the row as emitted ("ddp,horovod"; "-" for none).
std::string runs_on(const tune::Candidate& c) {
  std::string s;
  for (tune::Framework f : tune::frameworks_running(c.algo)) {
    s += (s.empty() ? "" : ",") + std::string(tune::framework_name(f));
  }
  if (s.empty()) return "-";
  // A /chN row runs NCCL at the plan's channel count, not NCCL's own.
  return c.algo.channels > 0 && c.algo.is_nccl() ? s + " (overrides NCCL channels)" : s;
}

// One candidate, in the table's units (MiB, ms, GB/s). `framework` (whose bucketing the step
// simulated) is CSV-only: the table's header and the baselines' lines say it.
const std::vector<Column>& plan_columns() {
  static const std::vector<Column> columns = {
      {"rank", "%-5s"},         {"algorithm", " %-24s"}, {"framework", ""},
      {"bucket_MiB", " %-8g"},  {"dtype", " %-5s"},      {"all_grads_allreduce_ms", " %12.2f"},
      {"busbw_GBps", " %9.1f"}, {"step_ms", " %10.2f"},  {"exposed_ms", " %11.2f"},
      {"timer", "  %-10s"},     {"runs_on", " %s"}};
  return columns;
}

std::vector<Cell> cells(const std::string& label, const tune::Candidate& c) {
  return {label,
          c.algo.name(),
          std::string(tune::framework_name(c.framework)),
          c.bucket_cap.as_double() / (1 << 20),
          std::string(sched::dtype_name(c.dtype)),
          c.allreduce_all.value * 1e3,
          c.busbw / 1e9,
          c.step.step.value * 1e3,
          c.step.exposed_comm.value * 1e3,
          std::string(timer_tag(c)),
          runs_on(c)};
}

// Where the efficiency came from (the flag's value is recorded, not its origin: a number that
// differs from every fit is the flag's or the profile's).
std::string efficiency_words(const tune::PlanInputs& in) {
  const tune::ComputeParams& c = in.compute;
  if (in.model.compute_efficiency && *in.model.compute_efficiency == c.efficiency) {
    return "the profile's compute_efficiency";
  }
  const std::optional<BytesPerSec> bandwidth = in.cluster.instance.gpu.memory_bandwidth;
  if (in.model.family && c.precision &&
      tune::family_efficiency(*in.model.family, *c.precision, c.peak_flops, bandwidth) ==
          c.efficiency) {
    return std::string(tune::model_family_name(*in.model.family)) +
           " roofline fit on published throughput" +
           (bandwidth ? ""
                      : ", at the fit GPUs' balance: the catalog has no memory bandwidth "
                        "for this GPU") +
           "; --compute-efficiency overrides";
  }
  if (c.efficiency == tune::kDefaultComputeEfficiency && !in.model.family) {
    return "unfitted default: the profile names no family";
  }
  return "--compute-efficiency";
}

// Where the batch came from, in the words a reader needs.
const char* batch_words(const std::string& source) {
  if (source == "profile") return "the profile's measured batch";
  if (source == "--batch-per-gpu") return "--batch-per-gpu";
  return "default; --batch-per-gpu sets it";
}

// How the compute was timed: precision, peak and efficiency, or the profile's measured times.
std::string compute_line(const tune::PlanInputs& in,
                         const std::optional<tune::PeakBracket>& bracket) {
  const tune::ComputeParams& c = in.compute;
  const std::string precision = c.precision ? tune::precision_name(*c.precision) : "?";
  if (in.model.has_measured_times() && !c.flops_timing) {
    return "compute: the profile's measured per-layer times" +
           (in.model.measured_device.empty() ? std::string()
                                             : " (measured on " + in.model.measured_device + ")") +
           ", scaled to the batch, at the precision they were measured in (--precision " +
           precision + " sets only FLOP timing's peak)";
  }
  // An unknown peak planned at both ends of its published figures says which end this is.
  const std::string peak_words =
      !bracket ? std::string()
               : string_printf(" (%s end of the published %s: see the peak note)",
                               bracket->used_flops == bracket->range.low ? "low" : "high",
                               tune::peak_range_words(bracket->range).c_str());
  return string_printf("compute: precision %s, %.1f TFLOP/s peak%s x %.3g efficiency (%s)",
                       precision.c_str(), c.peak_flops / 1e12, peak_words.c_str(), c.efficiency,
                       efficiency_words(in).c_str());
}

std::string title(const tune::Plan& plan) {
  const tune::PlanInputs& in = plan.inputs;
  const tune::TuneReport& r = plan.report;
  std::ostringstream o;
  o << "topotune " << plan.version << " plan: model " << in.model.name << " ("
    << in.model.trainable_params() << " trainable parameters, " << in.model.input << "), batch "
    << in.compute.batch_per_gpu << "/GPU (" << batch_words(in.compute.batch_source) << ")\n"
    << compute_line(in, plan.peak_bracket) << "\n"
    << "cluster: " << plan.cluster.nodes << " x " << plan.cluster.instance << " ("
    << plan.cluster.shape.ranks() << " GPUs, " << plan.cluster.placement << " placement)\n"
    << "nccl: " << tune::nccl_version_words(in.nccl_version)
    << (in.nccl_version.known ? "" : "; --nccl-version says which the job runs") << "\n"
    << "timers: screen " << r.screen_timer << (r.rank_timer.empty() ? "" : ", rank " + r.rank_timer)
    << "; " << r.evaluated << " DDP step simulations\n"
    << "framework: " << tune::framework_name(in.framework)
    << " (row 1 is the recommendation; the others in ranked order)\n\n"
    << "rank  algorithm                bucket   dtype  all_grads_ms  busbw_GB/s  step_ms "
       "exposed_ms  timer      runs on\n"
    << "                                  (MiB)        (1 allreduce)\n"
    << "(all_grads_ms: one allreduce of every gradient at once, the algorithm and dtype's; the "
       "same for every bucket size. Buckets change step_ms and exposed_ms.)\n";
  return o.str();
}

// Below the baselines: the Horovod knobs, the tuner's notes, and the recommendation.
std::vector<std::string> footer(const tune::Plan& plan) {
  const tune::TuneReport& r = plan.report;
  const tune::Candidate& h = r.horovod_best;
  std::vector<std::string> lines = {
      string_printf("horovod best: fusion %g MiB, cycle %g ms, %s: step %.2f ms\n",
                    h.bucket_cap.as_double() / (1 << 20), h.cycle_time.value * 1e3,
                    h.algo.name().c_str(), h.step.step.value * 1e3)};
  if (!plan.attribution.empty()) {
    // What each knob buys alone, so the gain is not credited to the first one read.
    const double base = r.baseline_ddp.step.step.value;
    std::string alone = string_printf("each change alone vs (a) %.2f ms:", base * 1e3);
    for (const tune::GainStep& g : plan.attribution) {
      alone += string_printf(" %s %.2f ms (%.2fx);", g.change.c_str(),
                             g.alone.step.step.value * 1e3, base / g.alone.step.step.value);
    }
    const double all = r.recommendation.step.step.value;
    lines.push_back(alone + string_printf(" together %.2f ms (%.2fx)\n", all * 1e3, base / all));
  }
  for (const std::string& n : r.notes) lines.push_back("note: " + n + "\n");
  // Which kind of cluster's held-out error the recommendation's band is (error_band.h).
  lines.push_back("note: error band from " + tune::band_source(r.recommendation, plan.bands) +
                  "\n");
  if (plan.replay_note) lines.push_back("replay: " + *plan.replay_note + "\n");
  lines.push_back("\n" + tune::recommendation_sentence(plan) + "\n");
  return lines;
}

// The fastest listed row (the first of equals), to say when row 1 is not it.
const tune::Candidate* fastest_listed(const std::vector<const tune::Candidate*>& listed) {
  const tune::Candidate* best = listed.front();
  for (const tune::Candidate* c : listed) {
    if (c->step.step < best->step.step) best = c;
  }
  return best;
}

// Row 1 is the recommendation, which need not be the fastest row: say why, in the row.
std::string not_fastest_line(const std::vector<const tune::Candidate*>& listed,
                             const tune::Candidate* fastest) {
  std::size_t rank = 0;
  while (listed[rank] != fastest) ++rank;
  return string_printf(
      "      * recommended, not the fastest row (rank %zu, %.2f ms): the fewest overrides within "
      "%.0f %% of the fastest the framework runs, a channel override only beyond the model's "
      "%.1f %% error, the defaults unless beaten by %.0f %%\n",
      rank + 1, fastest->step.step.value * 1e3, tune::kDefaultDtypeMargin * 100,
      tune::kChannelOverrideMargin * 100, tune::kDefaultDtypeMargin * 100);
}

}  // namespace

void print_plan_report(const tune::Plan& plan, OutputFormat format, std::ostream& out, int rows) {
  const tune::TuneReport& r = plan.report;
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin({{title(plan)}, plan_columns()});
  const std::vector<const tune::Candidate*> listed = tune::listed_candidates(plan, rows);
  const tune::Candidate* fastest = fastest_listed(listed);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    std::vector<std::string> notes;
    if (i == 0 && fastest != listed[0]) notes.push_back(not_fastest_line(listed, fastest));
    // The simulator re-ranks the best screened candidates; the rest keep the screen's order.
    const bool boundary =
        i + 1 < listed.size() && i + 1 > 1 && ranked(*listed[i + 1]) != ranked(*listed[i]);
    if (boundary) notes.push_back("      -- below: screened only, not simulated --\n");
    if (i + 1 == listed.size()) notes.push_back("\nbaselines:\n");
    const std::string label = std::to_string(i + 1) + (i == 0 && fastest != listed[0] ? "*" : "");
    reporter->row(cells(label, *listed[i]), notes);
  }
  reporter->row(
      cells("(a)", r.baseline_ddp),
      {"      NCCL's own choice, DDP defaults (first bucket 1 MiB, then 25 MiB), fp32\n"});
  reporter->row(cells("(b)", r.baseline_horovod),
                {"      Horovod defaults (fusion 128 MiB, cycle 1 ms), fp32\n"});
  reporter->end(footer(plan));
}

}  // namespace topotune::cli
