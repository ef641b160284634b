#include "core/error.h"

#include "core/enum_names.h"

namespace topotune {
namespace {

constexpr auto kErrcNames = enum_names<Errc>({
    {Errc::InvalidArgument, "invalid argument"},
    {Errc::NotFound, "not found"},
    {Errc::ParseError, "parse error"},
    {Errc::Unsupported, "unsupported"},
    {Errc::InvalidSchedule, "invalid schedule"},
    {Errc::Io, "i/o error"},
    {Errc::Transport, "transport error"},
    {Errc::Timeout, "timeout"},
    {Errc::Internal, "internal error"},
});

}  // namespace

const char* errc_name(Errc code) { return kErrcNames.name_of(code); }

}  // namespace topotune
