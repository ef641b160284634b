#pragma once
// The instance catalog loader: topotune.instance/1 JSON (docs/instance-schema.md) ->
// InstanceSpec, converted to SI once (GBps x 1e9, Gbps x 1e9/8, GiB x 2^30, TFLOPS x 1e12).
//
// Strict: unknown keys are rejected (typos), every figure is an object with value+source or
// unknown+note, required figures must be known, and the consistency rules of
// validate_instance() apply. Errors name the file and the field path; JSON syntax errors give
// file:line:column.

#include <string>

#include "core/expected.h"
#include "topology/instance_spec.h"

namespace topotune::topo {

/// The schema string an instance file must carry.
inline constexpr const char* kInstanceSchema = "topotune.instance/1";

/// InstanceSpec::sources of a figure the file left out (it is also in `unknowns`).
inline constexpr const char* kAbsentFigureSource = "absent from the file: model default";

/// Parses an instance from JSON text. `origin` names it in messages (a file name);
/// `expected_name`, when not empty, must equal the file's "name" (the file's stem).
Expected<InstanceSpec> parse_instance_json(const std::string& text, const std::string& origin,
                                           const std::string& expected_name = "");

/// Reads a whole file (binary-safe). Errors: Errc::Io naming the path.
Expected<std::string> read_text_file(const std::string& path);

/// The file name of `path` without its directory and ".json": the "name" the file must carry.
std::string instance_file_stem(const std::string& path);

/// Reads and parses an instance file; its "name" must match the file name without ".json".
Expected<InstanceSpec> load_instance_file(const std::string& path);

}  // namespace topotune::topo
