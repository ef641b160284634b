#include "planning/step_model.h"

#include <algorithm>
#include <utility>

#include "topology/cpu_rank.h"

namespace topotune::tune {

Bytes gradient_bytes(const ModelProfile& model, sched::DataType dtype) {
  return Bytes(model.trainable_params() * sched::dtype_size(dtype));
}

Expected<void> check_measured_device(const ModelProfile& model, const ComputeParams& compute,
                                     const topo::GpuSpec& gpu) {
  if (!model.measured_on_cpu() || compute.flops_timing) return {};
  if (gpu.model == topo::kCpuRankGpuModel) return {};
  return fail(Errc::InvalidArgument,
              "model profile '" + model.name +
                  "' has per-layer times measured on the CPU; a GPU plan cannot use them. "
                  "Profile on the GPU (python3 -m topotune.profile ... --device cuda), or give "
                  "--timing flops to drop the measured times and time layers from their FLOPs");
}

Expected<void> resolve_compute(ComputeParams& compute, const ModelProfile& model,
                               const topo::GpuSpec& gpu) {
  TT_TRY_VOID(check_measured_device(model, compute, gpu));
  const bool chosen = compute.precision.has_value();
  if (!chosen) compute.precision = default_precision(gpu);
  if (compute.peak_flops <= 0) {
    // Name --precision only when the user gave it; else the default it fell back to.
    Expected<double> peak = precision_peak_flops(gpu, *compute.precision)
                                .context(chosen ? std::string("--precision")
                                                : std::string("the default precision (") +
                                                      precision_name(*compute.precision) + ")");
    // Measured times need no peak (they embody the precision); FLOP timing does.
    const bool measured = model.has_measured_times() && !compute.flops_timing;
    if (peak) {
      compute.peak_flops = *peak;
    } else if (!measured) {
      return Unexpected(std::move(peak).error());
    }
  }
  if (compute.efficiency <= 0) {
    // The family's fit is a roofline: it needs the peak this plan computes at and the GPU's
    // memory bandwidth (compute_efficiency.h).
    compute.efficiency =
        default_efficiency(model.compute_efficiency, model.family, *compute.precision,
                           compute.peak_flops, gpu.memory_bandwidth);
  }
  return {};
}

Expected<sim::StepModel> make_step_model(const ModelProfile& model, const ComputeParams& compute,
                                         sched::DataType dtype) {
  if (compute.batch_per_gpu <= 0) {
    return fail(Errc::InvalidArgument, "batch per GPU must be positive");
  }
  const bool measured = model.has_measured_times() && !compute.flops_timing;
  const double rate = compute.peak_flops * compute.efficiency;
  if (!measured && !(rate > 0)) {
    return fail(Errc::InvalidArgument,
                "the GPU's peak FLOP/s is unknown: give --peak-tflops or a profile with "
                "measured times");
  }
  if (!measured) {
    double flops = 0;
    for (const LayerProfile& l : model.layers) flops += l.forward_flops;
    if (!(flops > 0)) {
      return fail(Errc::InvalidArgument, "model profile '" + model.name +
                                             "' has no forward FLOPs to time its layers from");
    }
  }
  // Layers before the first trainable one get no backward (nothing upstream needs gradients).
  int first_trainable = static_cast<int>(model.layers.size());
  for (const ParamTensor& p : model.params) {
    if (p.trainable) first_trainable = std::min(first_trainable, p.layer);
  }
  sim::StepModel m;
  const double batch = compute.batch_per_gpu;
  const double scale = measured ? batch / *model.measured_batch : 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerProfile& l = model.layers[i];
    sim::StepLayer s;
    if (measured) {
      s.backward = *l.backward_time * scale;
      // No measured forward: backward is ~2x forward by the same FLOP argument.
      s.forward = l.forward_time ? *l.forward_time * scale : s.backward / 2.0;
    } else {
      s.forward = Seconds(l.forward_flops * batch / rate);
      s.backward = s.forward * 2.0;
    }
    if (static_cast<int>(i) < first_trainable) s.backward = Seconds(0);
    m.layers.push_back(s);
  }
  const std::int64_t wire = sched::dtype_size(dtype);
  for (const ParamTensor& p : model.params) {
    if (!p.trainable) continue;
    m.grads.push_back({Bytes(p.numel * 4), Bytes(p.numel * wire), p.layer});
  }
  return m;
}

}  // namespace topotune::tune
