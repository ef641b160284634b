#include "simulator/training_step.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/assert.h"

namespace topotune::sim {
namespace {

// When each layer's gradients are ready, measured from the start of the backward pass.
std::vector<Seconds> layer_ready_times(const StepModel& model, Seconds* backward_total) {
  std::vector<Seconds> ready(model.layers.size());
  Seconds t{0};
  for (std::size_t i = model.layers.size(); i-- > 0;) {
    t += model.layers[i].backward;
    ready[i] = t;
  }
  *backward_total = t;
  return ready;
}

Seconds forward_total(const StepModel& model) {
  Seconds f{0};
  for (const StepLayer& l : model.layers) f += l.forward;
  return f;
}

// Puts allreduces on one FIFO stream and derives the step figures.
StepResult finish(const StepModel& model, Seconds backward, std::vector<BucketEvent> buckets,
                  const AllreduceTime& allreduce) {
  StepResult r;
  r.forward = forward_total(model);
  r.backward = backward;
  Seconds stream_free{0};
  for (BucketEvent& b : buckets) {
    b.start = std::max(b.ready, stream_free);
    const Seconds d = allreduce(b.bytes);
    b.end = b.start + d;
    stream_free = b.end;
    r.comm_busy += d;
  }
  const Seconds tail = std::max(backward, stream_free);
  r.step = r.forward + tail;
  r.exposed_comm = tail - backward;
  r.buckets = std::move(buckets);
  return r;
}

}  // namespace

std::vector<std::vector<int>> ddp_bucket_assignment(std::span<const Bytes> sizes,
                                                    Bytes first_bucket_bytes, Bytes bucket_cap) {
  std::vector<std::vector<int>> buckets;
  std::vector<int> open;
  Bytes open_size{0};
  Bytes limit = first_bucket_bytes;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    open.push_back(static_cast<int>(i));
    open_size += sizes[i];
    // reducer.cpp closes a bucket once it *reaches* the limit (size >= limit), then moves on
    // to the next limit in the list; the last limit (bucket_cap) repeats.
    if (open_size >= limit) {
      buckets.push_back(std::move(open));
      open.clear();
      open_size = Bytes(0);
      limit = bucket_cap;
    }
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  return buckets;
}

std::vector<int> gradient_ready_order(const StepModel& model) {
  std::vector<int> order(model.grads.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable sort by layer, descending, on the reversed registration order: reverse layer
  // order, ties in reverse registration order.
  std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return model.grads[a].layer > model.grads[b].layer; });
  return order;
}

StepResult simulate_ddp_step(const StepModel& model, const DdpOptions& options,
                             const AllreduceTime& allreduce) {
  Seconds backward{0};
  const std::vector<Seconds> ready = layer_ready_times(model, &backward);
  const std::vector<int> order = gradient_ready_order(model);
  std::vector<Bytes> sizes;
  sizes.reserve(order.size());
  for (int g : order) sizes.push_back(model.grads[g].bucket_bytes);
  std::vector<BucketEvent> events;
  Seconds previous_ready{0};
  for (const std::vector<int>& bucket :
       ddp_bucket_assignment(sizes, options.first_bucket_bytes, options.bucket_cap)) {
    BucketEvent e;
    for (int pos : bucket) {
      const GradTensor& g = model.grads[order[pos]];
      TT_ASSERT(g.layer >= 0 && g.layer < static_cast<int>(model.layers.size()), "bad layer");
      e.bytes += g.comm_bytes;
      e.ready = std::max(e.ready, ready[g.layer]);
      ++e.tensors;
    }
    // The reducer launches buckets in index order only, so a bucket waits for its
    // predecessors to be ready too.
    e.ready = std::max(e.ready, previous_ready);
    previous_ready = e.ready;
    events.push_back(e);
  }
  return finish(model, backward, std::move(events), allreduce);
}

StepResult simulate_horovod_step(const StepModel& model, const HorovodOptions& options,
                                 const AllreduceTime& allreduce) {
  Seconds backward{0};
  const std::vector<Seconds> ready = layer_ready_times(model, &backward);
  const double cycle = options.cycle_time.value;
  std::vector<BucketEvent> events;
  BucketEvent open;
  for (int g : gradient_ready_order(model)) {
    const GradTensor& t = model.grads[g];
    // The first background cycle at or after the gradient is ready picks it up. The small
    // relative tolerance keeps a gradient ready exactly on a tick from slipping a cycle.
    const double r = ready[t.layer].value;
    const Seconds tick(cycle > 0 ? std::ceil(r / cycle - 1e-9) * cycle : r);
    const bool same_cycle = open.tensors > 0 && open.ready == tick;
    if (open.tensors > 0 && (!same_cycle || open.bytes + t.comm_bytes > options.fusion_threshold)) {
      events.push_back(open);
      open = BucketEvent{};
    }
    open.ready = tick;
    open.bytes += t.comm_bytes;
    ++open.tensors;
  }
  if (open.tensors > 0) events.push_back(open);
  return finish(model, backward, std::move(events), allreduce);
}

}  // namespace topotune::sim
