#pragma once
// NcclVersion: which NCCL release a run used. NCCL's tuning constants, search speeds and
// channel rules changed from release to release (nccl_release_tables.h holds them by release),
// so the predictor needs the release to choose as that release chose.

#include <string>

#include "core/expected.h"

namespace topotune::algo {

/// A release code major*10000 + minor*100 + patch: 2.23.4 -> 22304. Codes compare in release
/// order, so `release >= kRelease(2, 18, 3)` reads as NCCL's own changelog does.
constexpr int nccl_release_code(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

/// "2.23.4" for the release code 22304.
std::string nccl_release_name(int code);

/// The newest release whose source the model was checked against (NVIDIA/nccl v2.30.7-1): what
/// an unknown version means.
inline constexpr int kLatestModeledRelease = nccl_release_code(2, 30, 7);

/// An NCCL release, "2.23.4". Unknown (default) means the latest modeled release.
struct NcclVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool known = false;
  /// True when unknown or >= major.minor.
  bool at_least(int ma, int mi) const {
    return !known || major > ma || (major == ma && minor >= mi);
  }
  /// The release code the model uses: this release, or kLatestModeledRelease when unknown.
  int code() const {
    return known ? nccl_release_code(major, minor, patch) : kLatestModeledRelease;
  }
  std::string str() const;  ///< "2.23.4" or "latest"
};

/// Parses "2.23.4", "2.23", "2.9.9+cuda11.2" (suffix ignored). Errors name the text.
Expected<NcclVersion> parse_nccl_version(const std::string& text);

}  // namespace topotune::algo
