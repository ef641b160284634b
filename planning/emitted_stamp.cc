#include "planning/emitted_stamp.h"

#include <cstdint>
#include <cstdio>

#include "core/fnv1a.h"

namespace topotune::tune {
namespace {

constexpr std::string_view kPrefix = "# topotune-emitted fnv1a64=";
constexpr std::size_t kHexDigits = 16;
constexpr std::string_view kSuffix =
    " (edit freely: a later `topotune plan --emit` then refuses to replace this file without "
    "--force)\n";
// A JSON object's stamp is its first member: JSON has no comments.
constexpr std::string_view kJsonPrefix = " \"_topotune_emitted\": \"fnv1a64=";
constexpr std::string_view kJsonSuffix =
    " (edit freely: a later `topotune plan --emit` then refuses to replace this file without "
    "--force)\",\n";

// A JSON object written one member per line ("{\n" first, more members after the stamp).
bool is_json_object(std::string_view content) {
  return content.starts_with("{\n") && content.size() > 3 && content[2] != '}';
}

std::string hex(std::uint64_t h) {
  char buf[kHexDigits + 1];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Where the stamp line goes, or is looked for: after a "#!" line, which must stay first, or
// after a JSON object's opening brace.
std::size_t stamp_offset(std::string_view content) {
  if (is_json_object(content)) return 2;
  if (content.substr(0, 2) != "#!") return 0;
  const std::size_t nl = content.find('\n');
  return nl == std::string_view::npos ? content.size() : nl + 1;
}

}  // namespace

std::string stamp_emitted(std::string_view content) {
  const std::size_t at = stamp_offset(content);
  std::string head(content.substr(0, at));
  if (at > 0 && head.back() != '\n') head += '\n';  // a lone "#!" line without its newline
  const std::string_view body = content.substr(at);
  // The hash covers the file as emitted_state() sees it without the stamp: head + body.
  const std::string hash = hex(fnv1a64(head + std::string(body)));
  const bool json = is_json_object(content);
  return head + std::string(json ? kJsonPrefix : kPrefix) + hash +
         std::string(json ? kJsonSuffix : kSuffix) + std::string(body);
}

EmittedState emitted_state(std::string_view content) {
  const std::size_t at = stamp_offset(content);
  const std::string_view rest = content.substr(at);
  const bool json = is_json_object(content);
  const std::string_view prefix = json ? kJsonPrefix : kPrefix;
  if (rest.substr(0, prefix.size()) != prefix) return EmittedState::Foreign;
  const std::size_t nl = rest.find('\n');
  if (nl == std::string_view::npos) return EmittedState::Edited;  // the stamp line was cut
  const std::string_view line = rest.substr(0, nl + 1);
  std::string unstamped(content.substr(0, at));
  unstamped += rest.substr(nl + 1);
  // The whole line must be as written, not only its hash: an edited stamp line is an edit.
  const std::string expected =
      std::string(prefix) + hex(fnv1a64(unstamped)) + std::string(json ? kJsonSuffix : kSuffix);
  return line == expected ? EmittedState::Unedited : EmittedState::Edited;
}

const char* emitted_state_words(EmittedState s) {
  switch (s) {
    case EmittedState::Unedited:
      return "written by topotune and unedited";
    case EmittedState::Edited:
      return "edited since topotune wrote it";
    case EmittedState::Foreign:
      return "not written by topotune (no topotune-emitted stamp)";
  }
  return "?";
}

}  // namespace topotune::tune
