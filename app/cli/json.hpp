#pragma once
// The CLI writes its JSON with the report library's types and printer.

#include "histoscope/report/json.hpp"

namespace hs::cli {
using report::Json;
using report::to_text;
}  // namespace hs::cli
