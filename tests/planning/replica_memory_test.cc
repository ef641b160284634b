// DDP's memory check: model states always, activations where the profile states a shape.

#include "planning/replica_memory.h"

#include <gtest/gtest.h>

namespace topotune::tune {
namespace {

TEST(ReplicaMemory, CountsActivationsFromTheProfilesTransformerShape) {
  const ModelProfile m = *load_model_profile("llama-3.2-1b");
  // Llama 3.2 1B: 16 layers, hidden 2048, seq 8192, vocab 128256. At batch 2:
  // 16 x 34 x 8192 x 2 x 2048 + 6 x 8192 x 2 x 128256 bytes.
  const std::int64_t acts =
      16LL * 34 * 8192 * 2 * 2048 + 6LL * 8192 * 2 * 128256;  // 18.3 GB + 12.6 GB
  const ReplicaMemory r = replica_memory(m, 2, Bytes(80'000'000'000));
  EXPECT_TRUE(r.activations_counted);
  EXPECT_EQ(r.activations.value, acts);
  EXPECT_EQ(r.model_states.value, m.trainable_params() * kAdamBytesPerParam +
                                      (m.total_params() - m.trainable_params()) * 4);
  EXPECT_TRUE(r.fits);  // 19.8 GB of states + 30.9 GB
  // The same states fit 40 GB; with the activations they do not.
  const ReplicaMemory small = replica_memory(m, 2, Bytes(40'000'000'000));
  EXPECT_LT(small.model_states.value, 40'000'000'000);
  EXPECT_FALSE(small.fits);
  EXPECT_NE(replica_memory_words(small).find("activations"), std::string::npos);
}

TEST(ReplicaMemory, AProfileWithoutAShapeCountsModelStatesOnly) {
  const ModelProfile m = *load_model_profile("resnet50");
  const ReplicaMemory r = replica_memory(m, 256, Bytes(40'000'000'000));
  EXPECT_FALSE(r.activations_counted);
  EXPECT_EQ(r.activations.value, 0);
  EXPECT_TRUE(r.fits);
  EXPECT_NE(replica_memory_words(r).find("activations not counted"), std::string::npos);
}

}  // namespace
}  // namespace topotune::tune
