#include "scope_options.hpp"

#include <algorithm>
#include <initializer_list>

#include "histoscope/core/error.hpp"

namespace hs::cli {

std::optional<Region> region_option(const Args& args) {
    if (const auto text = args.value("--roi")) return parse_region(*text);
    return std::nullopt;
}

ImageView apply_region(const Args& args, const ImageView& image) {
    const auto region = region_option(args);
    return region ? crop(image, *region) : image;
}

Json region_json(const std::optional<Region>& region) {
    if (!region) return nullptr;
    return Json::array({region->x, region->y, region->width, region->height});
}

namespace {

// The scope of `kind` from the options; those of another kind of scope are refused with
// `refuse_others`, else left to the kinds they apply to.
ScopeSpec make_scope(const Args& args, ScopeKind kind, const ImageView& image,
                     const std::string& channel_option, bool refuse_others) {
    ScopeSpec spec;
    spec.kind = kind;
    const std::string name(scope_kind_name(kind));
    const auto refuse = [&](const std::string& option, const char* applies) {
        if (refuse_others && args.has(option))
            throw UsageError(option + " applies to " + applies + ", not to a " + name);
    };
    if (kind == ScopeKind::Vectorscope) {
        refuse("--levels", "waveforms and parades");
        refuse("--columns", "waveforms and parades");
        spec.size = static_cast<int>(args.integer("--size").value_or(spec.size));
        if (const auto m = args.value("--matrix")) spec.matrix = *parse_matrix(*m);
    } else {
        refuse("--size", "vectorscopes");
        refuse("--matrix", "vectorscopes");
        spec.levels = static_cast<int>(args.integer("--levels").value_or(spec.levels));
        spec.columns = static_cast<int>(args.integer("--columns").value_or(0));
    }
    spec.channel = image.channels == 1 ? Channel::Gray : Channel::Luma601;
    if (kind != ScopeKind::Waveform) {
        refuse(channel_option, "waveforms");
    } else if (const auto list = args.value(channel_option)) {
        const auto channels = parse_channel_list(*list, image.channels, image.type);
        if (channels.size() != 1)
            throw UsageError("a waveform shows one channel, and " + channel_option + " names " +
                             std::to_string(channels.size()));
        spec.channel = channels.front();
    }
    spec.validate(image);
    return spec;
}

}  // namespace

ScopeSpec scope_from_args(const Args& args, ScopeKind kind, const ImageView& image,
                          const std::string& channel_option) {
    return make_scope(args, kind, image, channel_option, true);
}

std::vector<ScopeSpec> scopes_from_args(const Args& args, const ImageView& image,
                                        const std::string& channel_option) {
    std::vector<ScopeKind> kinds;
    const std::string list = args.value("--scope").value_or("");
    for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string name = list.substr(at, comma - at);
        const auto kind = parse_scope_kind(name);
        if (!kind)
            throw UsageError("unknown scope '" + name +
                             "' in --scope (waveform, parade or vectorscope)");
        if (std::find(kinds.begin(), kinds.end(), *kind) != kinds.end())
            throw UsageError("--scope names " + name + " twice");
        kinds.push_back(*kind);
        at = comma + 1;
    }
    if (kinds.size() == 1) return {scope_from_args(args, kinds.front(), image, channel_option)};
    const auto listed = [&](std::initializer_list<ScopeKind> any) {
        for (ScopeKind k : any)
            if (std::find(kinds.begin(), kinds.end(), k) != kinds.end()) return true;
        return false;
    };
    const auto refuse = [&](const std::string& option, const char* applies, bool taken) {
        if (!taken && args.has(option))
            throw UsageError(option + " applies to " + applies + ", and --scope lists none");
    };
    const bool waveforms = listed({ScopeKind::Waveform, ScopeKind::Parade});
    refuse("--levels", "waveforms and parades", waveforms);
    refuse("--columns", "waveforms and parades", waveforms);
    refuse("--size", "vectorscopes", listed({ScopeKind::Vectorscope}));
    refuse("--matrix", "vectorscopes", listed({ScopeKind::Vectorscope}));
    refuse(channel_option, "waveforms", listed({ScopeKind::Waveform}));
    std::vector<ScopeSpec> specs;
    for (ScopeKind k : kinds) specs.push_back(make_scope(args, k, image, channel_option, false));
    return specs;
}

}  // namespace hs::cli
