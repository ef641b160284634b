#pragma once
// Runs a schedule on a LoopbackWorld (one thread per rank) with per-rank typed test data, and
// checks results exactly. Input values are small integers so every partial sum is exact in
// fp32, fp16 (integers <= 2048) and bf16 (integers <= 256): value(r, i) in [1, 16] and at
// most 16 ranks, so sums stay <= 256.

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::rt::testing {

/// Rank r's input element i: an integer in [1, 16].
int input_value(int rank, std::int64_t i);

/// Writes `v` as element `i` of a dtype buffer / reads element `i` as float.
void store(std::vector<std::byte>& buf, sched::DataType t, std::int64_t i, float v);
float load(const std::vector<std::byte>& buf, sched::DataType t, std::int64_t i);

/// The initial buffers of the collective: inputs where a rank owns data, -1 elsewhere.
std::vector<std::vector<std::byte>> initial_buffers(const sched::CollectiveSpec& spec);

/// Runs every rank's part `runs` times (re-initialising the buffers in between) on loopback
/// threads; `max_tag` shrinks the tag space. On success `buffers` holds the final state.
Expected<void> run_loopback(const sched::Schedule& s, std::vector<std::vector<std::byte>>& buffers,
                            int runs = 1, int max_tag = 0x7fffffff);

/// Empty if every rank holds the collective's result; else the first wrong element.
std::string check_result(const sched::CollectiveSpec& spec,
                         const std::vector<std::vector<std::byte>>& buffers);

}  // namespace topotune::rt::testing
