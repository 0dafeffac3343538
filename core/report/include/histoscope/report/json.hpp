#pragma once
// Histoscope's JSON, for the CLI and the GUI's exports: nlohmann's ordered JSON (keys stay in the
// order they are written; integers stay 64-bit integers, so counts round-trip exactly), printed by
// to_text.

#include <nlohmann/json.hpp>
#include <string>

namespace hs::report {

using Json = nlohmann::ordered_json;

// Pretty-printed with `indent` spaces, ending in a newline; arrays of scalars stay on one line
// so 65536 counts remain readable. A negative indent prints everything on one line, without
// the newline. Strings are written as valid UTF-8: invalid bytes (a file name in Latin-1, say)
// become U+FFFD, and a note on standard error says so.
std::string to_text(const Json& value, int indent = 2);

}  // namespace hs::report
