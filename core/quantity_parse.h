#pragma once
// Parsing and printing of sizes, rates and durations: the only place where text becomes units.
//
// Sizes: "8", "64K", "256M", "4G", "1T" are powers of 1024 (K = KiB), as nccl-tests' -b/-e
// arguments; an optional trailing "B"/"iB" is accepted ("64KiB", "1GB" is still 2^30).
// Rates: "100Gbps", "100gbit", "200mbit" (bits, powers of 1000) and "25GB/s", "25GBps"
// (bytes, powers of 1000), as vendors and `tc` write them.

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/units.h"

namespace topotune {

/// Parses a byte count such as "64K" or "1048576". Rejects negatives, fractions and overflow.
Expected<Bytes> parse_size(std::string_view text);

/// Parses "A:B" (A, 2A, 4A, ... up to B inclusive, like nccl-tests -b A -e B -f 2) or a comma
/// list "1M,64M,1G". Sizes must be positive except in a list, where 0 is allowed.
Expected<std::vector<Bytes>> parse_size_list(std::string_view text);

/// The items of a comma list ("ring,mpi" -> {"ring", "mpi"}), empty items dropped; for the
/// CLI's list options (--algos, --params).
std::vector<std::string> split_comma_list(std::string_view text);

/// Parses a rate such as "400Gbps", "200mbit" or "25GB/s" into bytes per second.
Expected<BytesPerSec> parse_rate(std::string_view text);

/// Parses a duration such as "10us", "2.5ms", "1s" or a bare number of seconds.
Expected<Seconds> parse_duration(std::string_view text);

/// "64K", "256M", "1G", or a plain count when not a multiple of 1 KiB (nccl-tests style).
std::string format_size(Bytes b);

/// A human-readable duration: "12.3 us", "4.56 ms", "1.23 s".
std::string format_duration(Seconds t);

/// A human-readable rate in GB/s (1e9) with 2 decimals.
std::string format_rate(BytesPerSec r);

}  // namespace topotune
