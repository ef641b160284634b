#pragma once
// Bounded reading of input files: the one place where a path named by a user becomes text.
//
// Every input (cluster and instance files, calibrations, model profiles, plans, measurements,
// nccl-tests logs) is read through read_input_file, so that /dev/zero, a directory or a 10 GB
// file is refused with a clear message instead of filling memory, and a pipe or process
// substitution (`--cluster <(cat c.json)`) is read exactly once. The limit is documented in
// docs/limits.md.

#include <cstdint>
#include <string>

#include "core/expected.h"
#include "core/units.h"

namespace topotune {

/// The default limit on one input file: 64 MiB.
inline constexpr std::int64_t kDefaultMaxInputMiB = 64;

/// The limit on one input file: TOPOTUNE_MAX_INPUT_MB (MiB, a positive decimal integer up to
/// 1048576) when set, else kDefaultMaxInputMiB. An unusable value fails with InvalidArgument.
Expected<Bytes> max_input_bytes();

/// The whole content of `path`, read once, at most `limit` bytes. Regular files larger than
/// the limit are refused before any byte is read; pipes, FIFOs and character devices are read
/// up to the limit and refused if there is more. `what` names the input in messages
/// ("cluster file"). Errors: NotFound (no such file), Io (unreadable, a directory), and
/// InvalidArgument (over the limit).
Expected<std::string> read_input_file(const std::string& path, const std::string& what,
                                      Bytes limit);

/// read_input_file with the limit of max_input_bytes().
Expected<std::string> read_input_file(const std::string& path, const std::string& what);

}  // namespace topotune
