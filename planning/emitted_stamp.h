#pragma once
// The stamp every file `plan --emit` writes carries, so that a later --emit into the same
// directory can tell its own unedited files (replace them) from files a user edited or that
// topotune never wrote (refuse, unless --force). One comment line, the first (the second after
// a "#!" line), which every emitted file type reads as a comment (shell, KEY=VALUE env files,
// Python, the tuner plugin's rules, which drop everything after '#'):
//
//   # topotune-emitted fnv1a64=<16 hex digits> (edit freely: a later `topotune plan --emit` ...)
//
// A JSON object (DeepSpeed's ds_config.json, written one member per line) has no comments: its
// stamp is its first member, `"_topotune_emitted": "fnv1a64=<16 hex digits> (edit freely: ...)"`,
// a key the reader ignores as it does the file's other "_topotune" keys.
//
// The hash (core/fnv1a.h: detects edits, not tampering) covers the whole file without the
// stamp line, so any change elsewhere, even of one byte, is an edit.

#include <string>
#include <string_view>

namespace topotune::tune {

/// `content` with the stamp line inserted (after a leading "#!" line, else first).
[[nodiscard]] std::string stamp_emitted(std::string_view content);

/// What an existing file is, as far as --emit is concerned.
enum class EmittedState {
  Unedited,  ///< carries a stamp that matches the rest: ours, as written; may be replaced
  Edited,    ///< carries a stamp that does not match: ours, changed since
  Foreign,   ///< no stamp: not written by topotune (or by a topotune without stamps)
};

/// The state of a file whose content is `content`.
[[nodiscard]] EmittedState emitted_state(std::string_view content);

/// "edited since topotune wrote it", "not written by topotune (no topotune-emitted stamp)".
[[nodiscard]] const char* emitted_state_words(EmittedState s);

}  // namespace topotune::tune
