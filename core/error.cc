#include "core/error.h"

namespace topotune {

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::InvalidArgument:
      return "invalid argument";
    case Errc::NotFound:
      return "not found";
    case Errc::ParseError:
      return "parse error";
    case Errc::Unsupported:
      return "unsupported";
    case Errc::InvalidSchedule:
      return "invalid schedule";
    case Errc::Io:
      return "i/o error";
    case Errc::Transport:
      return "transport error";
    case Errc::Timeout:
      return "timeout";
    case Errc::Internal:
      return "internal error";
  }
  return "error";
}

}  // namespace topotune
