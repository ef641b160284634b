#include "cli/sharded_plan_report.h"

#include "core/string_printf.h"

namespace topotune::cli {
namespace {

double gb(Bytes b) { return b.as_double() / 1e9; }

}  // namespace

void print_sharded_plan(const tune::ShardedPlan& p, std::ostream& out) {
  out << string_printf(
      "Sharded training plan: %s x %d (%d GPUs), model %s, batch %d x seq %lld "
      "per GPU, %s per GPU\n\n",
      p.instance.c_str(), p.nodes, p.nodes * p.gpus_per_host, p.model.c_str(), p.batch_per_gpu,
      static_cast<long long>(p.shape.seq_len),
      p.gpu_memory.value > 0 ? string_printf("%.1f GB", gb(p.gpu_memory)).c_str() : "unknown GB");
  out << string_printf("%-4s %-40s %10s %10s %9s %9s %9s %9s %9s  %s\n", "rank", "strategy",
                       "step ms", "exposed", "states", "gathered", "buffers", "activ.", "total GB",
                       "fits");
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    const tune::ShardedCandidate& c = p.candidates[i];
    const tune::MemoryBreakdown& m = c.memory;
    const double states = gb(m.params) + gb(m.grads) + gb(m.optimizer);
    const std::string fits = p.gpu_memory.value <= 0 ? "?"  // unknown memory: not checked
                             : c.fits                ? "yes"
                                      : string_printf("no (%.1f GB over)", gb(c.over));
    const bool rec = p.recommended && *p.recommended == i;
    out << string_printf("%-4zu %-40s %10.1f %10.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %s%s\n", i + 1,
                         c.label().c_str(), c.step.step.value * 1e3,
                         c.step.exposed_comm.value * 1e3, states, gb(m.gathered), gb(m.buffers),
                         gb(m.activations), gb(m.total()), fits.c_str(),
                         rec ? "  <- recommended" : "");
  }
  out << "\n" << p.sentence << "\n";
  for (const std::string& n : p.notes) out << "note: " << n << "\n";
}

}  // namespace topotune::cli
