#pragma once
// Error: what went wrong, as a value. Expected failures (bad file, unknown instance, impossible
// request, transport failure) travel as Error inside Expected<T>; only cli/ prints them.

#include <string>
#include <utility>

namespace topotune {

/// The category decides the exit code in cli/ (2 for bad input, 1 for failures at run time).
enum class Errc {
  InvalidArgument,  ///< a request that cannot be satisfied as asked (--nodes 0, k > ranks)
  NotFound,         ///< unknown instance, model, algorithm, file
  ParseError,       ///< malformed JSON or text, with file:line:column in the message
  Unsupported,      ///< a valid request this algorithm/topology combination does not support
  InvalidSchedule,  ///< a schedule that fails validation or the symbolic interpreter
  Io,               ///< a file that cannot be read or written
  Transport,        ///< a send/recv/launch failure at run time
  Timeout,          ///< a peer that did not answer in time
  Internal,         ///< a failure that should not happen; reported, not asserted
};

/// Short name of an error category, for messages and JSON.
const char* errc_name(Errc code);

/// An error: a category and a human-readable message, with context prepended as it travels up.
struct Error {
  Errc code = Errc::Internal;
  std::string message;

  Error() = default;
  Error(Errc c, std::string msg) : code(c), message(std::move(msg)) {}

  /// Prefix the message with what the caller was doing: "loading p4d.24xlarge: <message>".
  Error context(const std::string& what) && {
    message = what + ": " + message;
    return std::move(*this);
  }
  Error context(const std::string& what) const& { return Error(*this).context(what); }
};

}  // namespace topotune
