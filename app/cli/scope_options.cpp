#include "scope_options.hpp"

#include <algorithm>
#include <initializer_list>

#include "histoscope/core/error.hpp"

namespace hs::cli {

ImageView apply_region(const std::optional<Region>& region, const ImageView& image) {
    return region ? crop(image, *region) : image;
}

Json region_json(const std::optional<Region>& region) {
    if (!region) return nullptr;
    return Json::array({region->x, region->y, region->width, region->height});
}

bool is_plane_name(const std::string& name) {
    return name == "y" || name == "cb" || name == "cr";
}

namespace {

// The one channel a waveform shows, as `channel` names it: a waveform's own list and messages,
// not a histogram's (whose lists take several channels, "all" and the joint colour "rgb").
Channel waveform_channel(const ScopeChannel& channel, const ImageView& image) {
    const std::string& name = *channel.list;
    const std::string option(channel.option);
    const std::string known = std::string("r, g, b, a, gray, luma or luma709") +
                              (channel.planes ? "; of a video also y, cb or cr" : "");
    if (name == "all")
        throw UsageError("a waveform shows one channel, not all: give " + option + " one of " +
                         known);
    if (name.find(',') != std::string::npos)
        throw UsageError("a waveform shows one channel, not the list '" + name + "': give " +
                         option + " one of " + known);
    if (name == "rgb")
        throw UsageError(
            "the joint colour 'rgb' is a histogram of colours, not a waveform's "
            "channel: give " +
            option + " one of " + known);
    if (is_plane_name(name))
        throw UsageError("'" + name +
                         "' is a video's coded plane, whose waveform 'histoscope-cli scope "
                         "--channel " +
                         name + "' draws; " + option + " names one of " + known);
    const std::optional<Channel> c = parse_channel(name);
    if (!c) throw UsageError("unknown waveform channel '" + name + "' (" + known + ")");
    check_channel(*c, image.channels, image.type);
    return *c;
}

// The scope of `kind` from the options; those of another kind of scope are refused with
// `refuse_others`, else left to the kinds they apply to.
ScopeSpec make_scope(const ScopeOptions& options, ScopeKind kind, const ImageView& image,
                     const ScopeChannel& channel, bool refuse_others) {
    ScopeSpec spec;
    spec.kind = kind;
    const std::string name(scope_kind_name(kind));
    const auto refuse = [&](bool given, const std::string& option, const char* applies) {
        if (refuse_others && given)
            throw UsageError(option + " applies to " + applies + ", not to a " + name);
    };
    if (kind == ScopeKind::Vectorscope) {
        refuse(options.levels.given, "--levels", "waveforms and parades");
        refuse(options.columns.has_value(), "--columns", "waveforms and parades");
        spec.size = options.size.value;
        spec.matrix = options.matrix.value;
    } else {
        refuse(options.size.given, "--size", "vectorscopes");
        refuse(options.matrix.given, "--matrix", "vectorscopes");
        spec.levels = options.levels.value;
        spec.columns = options.columns.value_or(0);
    }
    spec.channel = image.channels == 1 ? Channel::Gray : Channel::Luma601;
    if (kind != ScopeKind::Waveform) {
        if (channel.option != nullptr)
            refuse(channel.list.has_value(), channel.option, "waveforms");
    } else if (channel.list) {
        spec.channel = waveform_channel(channel, image);
    }
    spec.validate(image);
    return spec;
}

}  // namespace

ScopeSpec scope_spec(const ScopeOptions& options, ScopeKind kind, const ImageView& image,
                     const ScopeChannel& channel) {
    return make_scope(options, kind, image, channel, true);
}

std::vector<ScopeSpec> scope_specs(const ScopeOptions& options, const std::vector<ScopeKind>& kinds,
                                   const ImageView& image, const ScopeChannel& channel) {
    if (kinds.size() == 1) return {scope_spec(options, kinds.front(), image, channel)};
    const auto listed = [&](std::initializer_list<ScopeKind> any) {
        for (ScopeKind k : any)
            if (std::find(kinds.begin(), kinds.end(), k) != kinds.end()) return true;
        return false;
    };
    const auto refuse = [&](bool given, const std::string& option, const char* applies,
                            bool taken) {
        if (!taken && given)
            throw UsageError(option + " applies to " + applies + ", and --scope lists none");
    };
    const bool waveforms = listed({ScopeKind::Waveform, ScopeKind::Parade});
    const bool vectorscopes = listed({ScopeKind::Vectorscope});
    refuse(options.levels.given, "--levels", "waveforms and parades", waveforms);
    refuse(options.columns.has_value(), "--columns", "waveforms and parades", waveforms);
    refuse(options.size.given, "--size", "vectorscopes", vectorscopes);
    refuse(options.matrix.given, "--matrix", "vectorscopes", vectorscopes);
    if (channel.option != nullptr)
        refuse(channel.list.has_value(), channel.option, "waveforms",
               listed({ScopeKind::Waveform}));
    std::vector<ScopeSpec> specs;
    for (ScopeKind k : kinds) specs.push_back(make_scope(options, k, image, channel, false));
    return specs;
}

}  // namespace hs::cli
