#pragma once
// The scope and region options shared by `scope`, `hist` and `bench`.

#include <optional>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"
#include "histoscope/core/scopes.hpp"
#include "json.hpp"
#include "options.hpp"

namespace hs::cli {

// `image`, or its part inside `region` (UsageError when it reaches outside).
ImageView apply_region(const std::optional<Region>& region, const ImageView& image);
// [x, y, width, height], or null without --roi.
Json region_json(const std::optional<Region>& region);

// The waveform's channel: what --channel (scope) or --select (bench) names, and the option's
// name for messages. No option: the command has none (a stream's waveform is of luma).
// `planes`: the command also draws the waveform of a video's coded plane y, cb or cr, which it
// takes out before it comes here (see is_plane_name), so that messages list them.
struct ScopeChannel {
    std::optional<std::string> list;
    const char* option = nullptr;
    bool planes = false;
};
// Whether `name` is one of a video's coded planes, y, cb or cr.
bool is_plane_name(const std::string& name);

// The scope of `kind` with the shape of `options` (--levels, --columns, --size, --matrix;
// options of another kind of scope are refused) and, for a waveform, the one channel `channel`
// names (default luma, or gray for a gray image). Throws UsageError.
ScopeSpec scope_spec(const ScopeOptions& options, ScopeKind kind, const ImageView& image,
                     const ScopeChannel& channel);
// The scopes of `kinds` (--scope: each once), each as scope_spec() makes it, except that with
// several an option is refused only when none of them takes it.
std::vector<ScopeSpec> scope_specs(const ScopeOptions& options, const std::vector<ScopeKind>& kinds,
                                   const ImageView& image, const ScopeChannel& channel);

}  // namespace hs::cli
