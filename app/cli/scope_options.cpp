#include "scope_options.hpp"

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

ScopeSpec scope_from_args(const Args& args, ScopeKind kind, const ImageView& image,
                          const std::string& channel_option) {
    ScopeSpec spec;
    spec.kind = kind;
    const std::string name(scope_kind_name(kind));
    const auto refuse = [&](const std::string& option, const char* applies) {
        if (args.has(option))
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
            throw UsageError("a waveform shows one channel: " + channel_option + " names " +
                             std::to_string(channels.size()));
        spec.channel = channels.front();
    }
    spec.validate(image);
    return spec;
}

}  // namespace hs::cli
