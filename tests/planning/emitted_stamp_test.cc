// The stamp of emitted files: it tells topotune's unedited files from edited and foreign ones.

#include "planning/emitted_stamp.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/fnv1a.h"

namespace topotune::tune {
namespace {

// Published FNV-1a 64-bit test vectors (the FNV reference's test suite).
TEST(Fnv1a, MatchesTheReferenceVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(EmittedStamp, AStampedFileIsUneditedAndKeepsItsShebangFirst) {
  const std::string env = "# why\nNCCL_TUNER_PLUGIN=topotune\n";
  const std::string stamped = stamp_emitted(env);
  EXPECT_EQ(stamped.rfind("# topotune-emitted fnv1a64=", 0), 0u) << stamped;
  EXPECT_EQ(emitted_state(stamped), EmittedState::Unedited);
  const std::string sh = "#!/usr/bin/env bash\nset -e\n";
  const std::string stamped_sh = stamp_emitted(sh);
  EXPECT_EQ(stamped_sh.rfind("#!/usr/bin/env bash\n# topotune-emitted fnv1a64=", 0), 0u);
  EXPECT_EQ(emitted_state(stamped_sh), EmittedState::Unedited);
  // Without the stamp line the file is as given: the stamp adds one line and nothing else.
  const std::size_t nl = stamped_sh.find('\n', stamped_sh.find("topotune-emitted"));
  EXPECT_EQ(stamped_sh.substr(0, 20) + stamped_sh.substr(nl + 1), sh);
}

TEST(EmittedStamp, EveryOneByteEditIsSeen) {
  const std::string stamped = stamp_emitted("#!/bin/sh\n# a comment\nX=1\n");
  for (std::size_t i = 0; i < stamped.size(); ++i) {
    std::string edited = stamped;
    edited[i] = static_cast<char>(edited[i] ^ 0x01);
    EXPECT_NE(emitted_state(edited), EmittedState::Unedited) << "byte " << i;
  }
  EXPECT_EQ(emitted_state(stamped + "Y=2\n"), EmittedState::Edited);
  EXPECT_EQ(emitted_state(stamped.substr(0, stamped.size() - 1)), EmittedState::Edited);
}

TEST(EmittedStamp, AJsonObjectIsStampedByItsFirstMemberAndStaysJson) {
  const std::string json = "{\n \"stage\": 3,\n \"bf16\": true\n}\n";
  const std::string stamped = stamp_emitted(json);
  const auto parsed = nlohmann::json::parse(stamped);  // throws if the stamp broke it
  EXPECT_EQ(parsed.begin().key(), "_topotune_emitted");
  EXPECT_EQ(parsed.at("stage"), 3);
  EXPECT_EQ(emitted_state(stamped), EmittedState::Unedited);
  for (std::size_t i = 0; i < stamped.size(); ++i) {
    std::string edited = stamped;
    edited[i] = static_cast<char>(edited[i] ^ 0x01);
    EXPECT_NE(emitted_state(edited), EmittedState::Unedited) << "byte " << i;
  }
  EXPECT_EQ(emitted_state(json), EmittedState::Foreign);
}

TEST(EmittedStamp, AFileWithoutAStampIsForeign) {
  EXPECT_EQ(emitted_state("NCCL_ALGO=Ring\n"), EmittedState::Foreign);
  EXPECT_EQ(emitted_state(""), EmittedState::Foreign);
  EXPECT_EQ(emitted_state("#!/bin/sh\necho hi\n"), EmittedState::Foreign);
  // The stamp must be where it is written: the first line (after "#!"), not anywhere.
  EXPECT_EQ(emitted_state("X=1\n" + stamp_emitted("Y=2\n")), EmittedState::Foreign);
}

}  // namespace
}  // namespace topotune::tune
