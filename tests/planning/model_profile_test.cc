// Model profiles: the embedded catalog and the validation of user profiles.

#include "planning/model_profile.h"

#include <gtest/gtest.h>

namespace topotune::tune {
namespace {

TEST(ModelProfile, EmbeddedCatalogHasThePublishedTotals) {
  const std::pair<const char*, std::int64_t> expected[] = {{"bert-large", 335'141'888},
                                                           {"gpt2-xl", 1'557'611'200},
                                                           // Shapes' counts; published 70.6B,
                                                           // 8.03B, 1.24B (sharded_test.cc).
                                                           {"llama-3.1-70b", 70'553'706'496},
                                                           {"llama-3.1-8b", 8'030'261'248},
                                                           {"llama-3.2-1b", 1'235'814'400},
                                                           {"maskrcnn-r50-fpn", 44'401'393},
                                                           {"resnet50", 25'557'032},
                                                           {"vit-l16", 304'326'632}};
  std::vector<std::string> names;
  for (const auto& [name, total] : expected) {
    names.emplace_back(name);
    auto m = load_model_profile(name);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->total_params(), total) << name;
  }
  EXPECT_EQ(builtin_model_names(), names);
}

TEST(ModelProfile, FrozenParametersAreNotTrainable) {
  auto m = load_model_profile("maskrcnn-r50-fpn");
  ASSERT_TRUE(m);
  // conv1 + layer1 of the backbone are frozen: 222,400 parameters (see gen_models_test.py).
  EXPECT_EQ(m->total_params() - m->trainable_params(), 222'400);
}

TEST(ModelProfile, UnknownNameListsTheKnownModels) {
  auto m = load_model_profile("bert-huge");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, Errc::NotFound);
  EXPECT_NE(m.error().message.find("bert-huge"), std::string::npos);
  EXPECT_NE(m.error().message.find("bert-large, gpt2-xl, llama-3.1-70b, llama-3.1-8b, "
                                   "llama-3.2-1b, maskrcnn-r50-fpn, resnet50, vit-l16"),
            std::string::npos)
      << m.error().message;
}

std::string profile(const std::string& layers, const std::string& params,
                    const std::string& extra = "") {
  return R"({"schema":"topotune.model_profile/1","name":"t",)" + extra + R"("layers":[)" + layers +
         R"(],"params":[)" + params + "]}";
}

Expected<ModelProfile> parse(const std::string& text) {
  return parse_model_profile(text, "t.json");
}

TEST(ModelProfile, AcceptsAMinimalProfile) {
  auto m = parse(profile(R"({"name":"fc","forward_flops":10})",
                         R"({"name":"fc.weight","numel":6,"layer":0})"));
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->total_params(), 6);
  EXPECT_FALSE(m->has_measured_times());
}

TEST(ModelProfile, RejectsNegativeSizesNamingTheTensor) {
  auto m = parse(profile(R"({"name":"fc","forward_flops":10})",
                         R"({"name":"fc.weight","numel":-6,"layer":0})"));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, Errc::ParseError);
  EXPECT_NE(m.error().message.find("t.json"), std::string::npos);
  EXPECT_NE(m.error().message.find("params[0] 'fc.weight': numel must be positive, got -6"),
            std::string::npos)
      << m.error().message;
}

TEST(ModelProfile, RejectsBadInputs) {
  const std::string ok_layer = R"({"name":"fc","forward_flops":10})";
  const std::string ok_param = R"({"name":"w","numel":6,"layer":0})";
  const std::pair<std::string, std::string> cases[] = {
      {"{", "parse error"},
      {profile(ok_layer, R"({"name":"w","numel":6,"layer":3})"), "out of range"},
      {profile(R"({"name":"fc","forward_flops":-1})", ok_param), ">= 0"},
      {profile(ok_layer, R"({"name":"w","numel":6.5,"layer":0})"), "integer 'numel'"},
      {profile(ok_layer, ok_param + "," + ok_param), "duplicate tensor"},
      {profile(ok_layer, R"({"name":"w","numel":6,"layer":0,"trainable":false})"), "no trainable"},
      {profile(ok_layer, ok_param, R"("total_params":7,)"), "differs"},
      {profile(R"({"name":"a","backward_time_s":0.1},{"name":"b","forward_flops":1})", ok_param,
               R"("measured_batch_per_gpu":8,)"),
       "1 of 2 layers"},
      {profile(R"({"name":"a","backward_time_s":0.1})", ok_param), "measured_batch_per_gpu"},
      {R"({"schema":"x","name":"t","layers":[],"params":[]})", "'schema'"},
      {profile("", ok_param), "non-empty array 'layers'"},
      {profile(R"({"name":"fc","forward_flops":"many"})", ok_param), "must be a number"},
  };
  for (const auto& [text, needle] : cases) {
    auto m = parse(text);
    ASSERT_FALSE(m) << text;
    EXPECT_NE(m.error().message.find(needle), std::string::npos)
        << text << " -> " << m.error().message;
  }
}

TEST(ModelProfile, MeasuredTimes) {
  auto m = parse(profile(R"({"name":"a","backward_time_s":0.002,"forward_time_s":0.001})",
                         R"({"name":"w","numel":6,"layer":0})", R"("measured_batch_per_gpu":16,)"));
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m->measured_batch, 16);
  EXPECT_DOUBLE_EQ(m->layers[0].backward_time->value, 0.002);
}

TEST(ModelProfile, MeasuredBatchIsAJsonIntegerInRange) {
  // Read through static_cast<int>, 4294967304 was used as 8, 2^31 went negative and
  // 2^40 became 0 (inf and NaN step times).
  for (const char* batch : {"4294967304", "2147483648", "1099511627776", "18446744073709551615",
                            "0", "-8", "true", "1.5", "8e0", "1048577"}) {
    auto m = parse(profile(R"({"name":"a","backward_time_s":0.1})",
                           R"({"name":"w","numel":6,"layer":0})",
                           std::string(R"("measured_batch_per_gpu":)") + batch + ","));
    ASSERT_FALSE(m) << batch;
    EXPECT_NE(m.error().message.find(
                  "profile: 'measured_batch_per_gpu' must be an integer in [1, 1048576], got "),
              std::string::npos)
        << m.error().message;
  }
  auto edge =
      parse(profile(R"({"name":"a","backward_time_s":0.1})", R"({"name":"w","numel":6,"layer":0})",
                    R"("measured_batch_per_gpu":1048576,)"));
  ASSERT_TRUE(edge) << edge.error().message;
  EXPECT_EQ(*edge->measured_batch, 1 << 20);
}

TEST(ModelProfile, MissingFileIsNotFound) {
  auto m = load_model_profile("/nonexistent/model.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, Errc::NotFound);
}

const LayerProfile& layer_named(const ModelProfile& m, const std::string& name) {
  for (const LayerProfile& l : m.layers) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << "no layer " << name;
  return m.layers.front();
}

TEST(ModelProfile, SequenceLengthScalesLinearLayersAndAttentionSquared) {
  // gpt2-xl states seq_len 1024. At 2048: c_attn (a linear layer, 2 x 1024 x 1600 x 4800 =
  // 15,728,640,000 per sample) doubles; attn.scores (QK^T and AV, 2 x 2 x 1024^2 x 1600 =
  // 6,710,886,400, no parameters) quadruples; the shape's seq_len and the input text follow.
  const ModelProfile base = load_model_profile("gpt2-xl").value();
  const auto longer = at_sequence_length(base, 2048);
  ASSERT_TRUE(longer) << longer.error().message;
  EXPECT_DOUBLE_EQ(layer_named(base, "transformer.h.0.attn.c_attn").forward_flops, 15728640000.0);
  EXPECT_DOUBLE_EQ(layer_named(*longer, "transformer.h.0.attn.c_attn").forward_flops,
                   31457280000.0);
  EXPECT_DOUBLE_EQ(layer_named(base, "transformer.h.0.attn.scores").forward_flops, 6710886400.0);
  EXPECT_DOUBLE_EQ(layer_named(*longer, "transformer.h.0.attn.scores").forward_flops,
                   26843545600.0);
  EXPECT_EQ(longer->input, "sequence length 2048");
  EXPECT_NE(longer->json.find("\"seq_len\":2048"), std::string::npos);
  EXPECT_EQ(longer->total_params(), base.total_params());  // the weights do not change
}

TEST(ModelProfile, SequenceLengthNeedsAStatedShapeAndNoMeasuredTimes) {
  const auto bert = at_sequence_length(load_model_profile("bert-large").value(), 512);
  ASSERT_FALSE(bert);
  EXPECT_NE(bert.error().message.find("states no transformer shape"), std::string::npos);
  auto measured =
      parse(profile(R"({"name":"a","backward_time_s":0.002})",
                    R"({"name":"w","numel":6,"layer":0})", R"("measured_batch_per_gpu":16,)"));
  ASSERT_TRUE(measured);
  const auto m = at_sequence_length(*measured, 512);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("measured times"), std::string::npos);
  for (std::int64_t bad : {std::int64_t{0}, kMaxSequenceLength + 1}) {
    const auto r = at_sequence_length(load_model_profile("gpt2-xl").value(), bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("--seq-len must be in"), std::string::npos);
  }
}

}  // namespace
}  // namespace topotune::tune
