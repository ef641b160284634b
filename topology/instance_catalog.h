#pragma once
// The instance catalog: data/instances/*.json, compiled into the library at build time (so the
// binary needs no data directory), looked up by name with "did you mean" suggestions.

#include <string>
#include <vector>

#include "core/expected.h"
#include "topology/instance_spec.h"

namespace topotune::topo {

/// A named instance file's text.
struct CatalogEntry {
  std::string name;  ///< the file stem, which must equal the file's "name"
  std::string text;  ///< JSON text (topotune.instance/1)
};

/// A set of instance files. builtin() is the embedded catalog; tests build their own.
class InstanceCatalog {
 public:
  /// The catalog compiled in from data/instances/*.json.
  static const InstanceCatalog& builtin();

  /// A catalog of the given files (sorted by name; duplicate names keep the first).
  explicit InstanceCatalog(std::vector<CatalogEntry> entries);

  /// All instance names, sorted.
  std::vector<std::string> names() const;

  /// Loads and validates an instance by name ("ml." SageMaker names are accepted too).
  /// Unknown names fail with Errc::NotFound and suggest the nearest names.
  Expected<InstanceSpec> load(const std::string& name) const;

  /// Up to `max` names close to `name` (edit distance, shared prefix), nearest first.
  std::vector<std::string> suggestions(const std::string& name, std::size_t max = 3) const;

 private:
  std::vector<CatalogEntry> entries_;
};

/// Names of the built-in catalog, sorted.
std::vector<std::string> list_instances();

/// Loads a built-in instance by name (see InstanceCatalog::load).
Expected<InstanceSpec> find_instance(const std::string& name);

/// Levenshtein distance between two strings, ASCII case-insensitive.
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace topotune::topo
