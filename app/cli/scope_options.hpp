#pragma once
// The scope and region options shared by `scope`, `hist` and `bench`.

#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/scopes.hpp"
#include "json.hpp"

namespace hs::cli {

// --roi X,Y,W,H, when given (UsageError when malformed).
std::optional<Region> region_option(const Args& args);
// `image`, or its part inside --roi (UsageError when it reaches outside).
ImageView apply_region(const Args& args, const ImageView& image);
// [x, y, width, height], or null without --roi.
Json region_json(const std::optional<Region>& region);

// The scope of `kind` with --levels, --columns, --size, --matrix (options of another kind of
// scope are refused) and, for a waveform, the one channel `channel_option` names (default luma,
// or gray for a gray image; "": the command has no such option). Throws UsageError.
ScopeSpec scope_from_args(const Args& args, ScopeKind kind, const ImageView& image,
                          const std::string& channel_option);
// The scopes --scope lists (comma-separated kinds, each once), each as scope_from_args()
// makes it, except that with several an option is refused only when none of them takes it.
std::vector<ScopeSpec> scopes_from_args(const Args& args, const ImageView& image,
                                        const std::string& channel_option);

}  // namespace hs::cli
