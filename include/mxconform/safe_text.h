#pragma once
// Text that came from outside mxconform (a backend's messages and stderr, a corpus file's id and
// why, a path) made safe to print on a terminal or to put in a report: at most `max_bytes` bytes
// of input are kept, and every byte that is not printable ASCII or part of well-formed UTF-8 is
// shown as \xNN (control characters included, so no escape sequence reaches a terminal).
// Backslashes are doubled, so the escaped text is unambiguous. A cut is marked with
// "... (N more bytes)".
#include <cstddef>
#include <string>
#include <string_view>

namespace mxconform {

inline constexpr std::size_t kDefaultSafeTextBytes = 4096;

std::string safe_text(std::string_view bytes, std::size_t max_bytes = kDefaultSafeTextBytes);

// The same for multi-line text: newlines (and tabs) are kept, everything else as safe_text.
std::string safe_multiline_text(std::string_view bytes, std::size_t max_bytes = kDefaultSafeTextBytes);

// The offset of the first byte of `text` that safe_multiline_text would escape (a control
// character other than newline, tab and carriage return, a byte of no well-formed UTF-8, an
// invisible control), or npos: whether a file meant to be text is.
std::size_t first_unsafe_byte(std::string_view text);

// One word of a POSIX shell command line that a user may paste (a certificate's `rerun`): kept
// as it is when it holds only letters, digits and _ . / : = , + @ % -, else in single quotes
// with each ' written '\''. No character in it is then special to the shell ($, `, ;, |, &,
// blanks, globs). An empty word is ''.
std::string shell_word(std::string_view word);

}  // namespace mxconform
