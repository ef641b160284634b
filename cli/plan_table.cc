#include "cli/plan_table.h"

#include <cstdio>
#include <sstream>

#include "autotune/nccl_timer.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

std::string cell(const char* f, double x) {
  std::string buf;
  buf = string_printf(f, x);
  return buf;
}

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
  return s.empty() ? "-" : s;
}

std::string row(const std::string& label, const tune::Candidate& c) {
  std::string buf;
  buf = string_printf(
      "%-5s %-24s %-8s %-5s %12s %9s %10s %11s  %-10s %s\n", label.c_str(), c.algo.name().c_str(),
      cell("%g", c.bucket_cap.as_double() / (1 << 20)).c_str(), sched::dtype_name(c.dtype),
      cell("%.2f", c.allreduce_all.value * 1e3).c_str(), cell("%.1f", c.busbw / 1e9).c_str(),
      cell("%.2f", c.step.step.value * 1e3).c_str(),
      cell("%.2f", c.step.exposed_comm.value * 1e3).c_str(), timer_tag(c), runs_on(c).c_str());
  return buf;
}

}  // namespace

std::string plan_table(const tune::Plan& plan, int rows) {
  const tune::PlanInputs& in = plan.inputs;
  const tune::TuneReport& r = plan.report;
  std::ostringstream o;
  o << "topotune " << plan.version << " plan: model " << in.model.name << " ("
    << in.model.trainable_params() << " trainable parameters, " << in.model.input << "), batch "
    << in.compute.batch_per_gpu << "/GPU\n"
    << "cluster: " << plan.cluster.nodes << " x " << plan.cluster.instance << " ("
    << plan.cluster.shape.ranks() << " GPUs, " << plan.cluster.placement << " placement)\n"
    << "timers: screen " << r.screen_timer << (r.rank_timer.empty() ? "" : ", rank " + r.rank_timer)
    << "; " << r.evaluated << " DDP step simulations\n"
    << "framework: " << tune::framework_name(in.framework)
    << " (row 1 is the recommendation; the others in ranked order)\n\n";
  o << "rank  algorithm                bucket   dtype  allreduce_ms  busbw_GB/s  step_ms "
       "exposed_ms  timer      runs on\n"
    << "                                  (MiB)        (all grads)\n";
  const std::vector<const tune::Candidate*> listed = tune::listed_candidates(plan, rows);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    // The simulator re-ranks the best screened candidates; the rest keep the screen's order.
    if (i > 1 && ranked(*listed[i]) != ranked(*listed[i - 1])) {
      o << "      -- below: screened only, not simulated --\n";
    }
    o << row(std::to_string(i + 1), *listed[i]);
  }
  o << "\nbaselines:\n"
    << row("(a)", r.baseline_ddp) << "      NCCL's own choice, DDP defaults "
    << "(first bucket 1 MiB, then 25 MiB), fp32\n"
    << row("(b)", r.baseline_horovod)
    << "      Horovod defaults (fusion 128 MiB, cycle 1 ms), fp32\n"
    << "horovod best: fusion " << cell("%g", r.horovod_best.bucket_cap.as_double() / (1 << 20))
    << " MiB, cycle " << cell("%g", r.horovod_best.cycle_time.value * 1e3) << " ms, "
    << r.horovod_best.algo.name() << ": step " << cell("%.2f", r.horovod_best.step.step.value * 1e3)
    << " ms\n";
  for (const std::string& n : r.notes) o << "note: " << n << "\n";
  if (plan.replay_note) o << "replay: " << *plan.replay_note << "\n";
  o << "\n" << tune::recommendation_sentence(plan) << "\n";
  return o.str();
}

}  // namespace topotune::cli
