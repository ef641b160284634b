// Test tool for emit_sandbox_test.py: writes the emitted file sets of real plans whose model,
// instance and SageMaker names are replaced by hostile strings, as if a name had slipped past
// the readers' checks (check_name). The Python test then runs, sources and imports every file
// and checks that none of the strings acted as code: the exit side of the name rules.
//
//   hostile_emit NAMES.json OUTDIR   (NAMES.json: a JSON array of strings, NUL allowed as \u0000)
// writes OUTDIR/<i>-<framework>/<file> for every name i and framework ddp, horovod, smddp and
// ddp with no SageMaker name (BERT-large on 4 nodes: topotune's DDP hook and its tuner rules).

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "planning/emitters.h"
#include "planning/plan.h"
#include "topology/cluster_spec.h"

namespace {

using topotune::tune::Framework;

int write_set(const topotune::tune::Plan& plan, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  auto files = topotune::tune::emit(plan, "all");
  if (!files) {
    std::cerr << "emit: " << files.error().message << "\n";
    return 1;
  }
  for (const auto& f : *files) std::ofstream(dir / f.name, std::ios::binary) << f.content;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: hostile_emit NAMES.json OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> names =
      nlohmann::json::parse(text.str()).get<std::vector<std::string>>();
  struct Variant {
    const char* tag;
    Framework framework;
    bool sagemaker;
    const char* model;
    int nodes;
  };
  // nosm: BERT-large on 4 nodes runs topotune's DDP hook, so its set has the tuner rules.
  const Variant variants[] = {{"ddp", Framework::Ddp, true, "resnet50", 2},
                              {"horovod", Framework::Horovod, true, "resnet50", 2},
                              {"smddp", Framework::Smddp, true, "resnet50", 2},
                              {"nosm", Framework::Ddp, false, "bert-large", 4}};
  for (const Variant& v : variants) {
    topotune::tune::PlanInputs inputs;
    auto spec = topotune::topo::make_cluster_spec("p4d.24xlarge", v.nodes);
    if (!spec || !set_plan_cluster(inputs, *spec, "\"p4d.24xlarge\"")) return 1;
    inputs.model = *topotune::tune::load_model_profile(v.model);
    inputs.framework = v.framework;
    auto plan = topotune::tune::make_plan(inputs);
    if (!plan) {
      std::cerr << "plan: " << plan.error().message << "\n";
      return 1;
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      topotune::tune::Plan hostile = *plan;
      hostile.inputs.model.name = names[i];
      hostile.cluster.instance = names[i];
      hostile.cluster.sagemaker_name = v.sagemaker ? names[i] : "";
      const std::filesystem::path dir =
          std::filesystem::path(argv[2]) / (std::to_string(i) + "-" + v.tag);
      if (write_set(hostile, dir) != 0) return 1;
    }
  }
  return 0;
}
