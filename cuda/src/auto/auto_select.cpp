#include "auto/auto_select.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>

#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

const char* kind_name(AutoKind k) {
    switch (k) {
        case AutoKind::Plain:
            return "plain";
        case AutoKind::Luma:
            return "luma";
        case AutoKind::Joint:
            return "joint";
        case AutoKind::Edges:
            return "edges";
    }
    return "plain";
}

int ceil_log2(std::uint64_t v) {
    return v <= 1 ? 0 : static_cast<int>(std::bit_width(v - 1));
}

}  // namespace

std::string AutoKey::text() const {
    return "u16=" + std::to_string(u16) + " kind=" + kind_name(kind) +
           " channels=" + std::to_string(channels) +
           " image_channels=" + std::to_string(image_channels) +
           " bins=" + std::to_string(bins_log2) + " size=" + std::to_string(size_log2) +
           " race=" + std::to_string(race);
}

double auto_race_factor(const HistogramRequest& r) {
    const std::uint64_t pixels = r.image.pixel_count();
    if (pixels == 0 || r.channels.empty()) return 1.0;
    const Channel c = r.channels.front();
    std::mt19937_64 rng(0x5DEECE66Dull ^ pixels);
    double total = 0;
    std::array<std::int32_t, 32> bins{};
    for (int s = 0; s < kAutoSampledWindows; ++s) {
        const std::uint64_t start = pixels > 32 ? rng() % (pixels - 31) : 0;
        int n = 0;
        for (std::uint64_t p = start; p < std::min(pixels, start + 32); ++p) {
            const auto w = static_cast<std::uint64_t>(r.image.width);
            const std::int32_t b = bin_of(r.spec, channel_value(r.image, c, static_cast<int>(p % w),
                                                                static_cast<int>(p / w)));
            if (b >= 0) bins[static_cast<std::size_t>(n++)] = b;
        }
        std::sort(bins.begin(), bins.begin() + n);
        int best = 1, run = 1;
        for (int i = 1; i < n; ++i) {
            run = bins[static_cast<std::size_t>(i)] == bins[static_cast<std::size_t>(i - 1)]
                      ? run + 1
                      : 1;
            best = std::max(best, run);
        }
        total += best;
    }
    return total / kAutoSampledWindows;
}

AutoKey auto_key(const HistogramRequest& r, bool sample_race) {
    AutoKey k;
    k.u16 = r.image.type == SampleType::U16 ? 1 : 0;
    k.kind = AutoKind::Plain;
    for (const Channel c : r.channels) {
        if (c == Channel::Joint) k.kind = AutoKind::Joint;
        if (is_luma(c) && r.image.channels > 1 && k.kind == AutoKind::Plain)
            k.kind = AutoKind::Luma;
    }
    if (r.spec.has_edges() && k.kind == AutoKind::Plain) k.kind = AutoKind::Edges;
    k.channels = static_cast<int>(r.channels.size());
    k.image_channels = r.image.channels;
    k.bins_log2 = ceil_log2(static_cast<std::uint64_t>(std::max(1, r.spec.bins)));
    const std::uint64_t bytes = static_cast<std::uint64_t>(r.image.row_bytes()) *
                                static_cast<std::uint64_t>(r.image.height);
    k.size_log2 = bytes == 0 ? 0 : static_cast<int>(std::bit_width(bytes)) - 1;
    if (!sample_race) {
        k.race = -1;
        return k;
    }
    const double race = auto_race_factor(r);
    k.race = std::clamp(static_cast<int>(std::floor(std::log2(std::max(1.0, race)))), 0, 5);
    return k;
}

int auto_key_distance(const AutoKey& a, const AutoKey& b) {
    int d = 0;
    if (a.u16 != b.u16) d += 10000;
    if (a.kind != b.kind) d += 10000;
    if (a.image_channels != b.image_channels) d += 1000;
    d += 200 * std::abs(a.channels - b.channels);
    d += 20 * std::abs(a.bins_log2 - b.bins_log2);
    if (a.race >= 0 && b.race >= 0) d += 8 * std::abs(a.race - b.race);
    d += 3 * std::abs(a.size_log2 - b.size_log2);
    return d;
}

std::vector<const AutoMapEntry*> auto_nearest(const std::vector<AutoMapEntry>& map,
                                              const AutoKey& key) {
    std::vector<const AutoMapEntry*> out;
    for (const AutoMapEntry& e : map) out.push_back(&e);
    std::stable_sort(out.begin(), out.end(), [&](const AutoMapEntry* x, const AutoMapEntry* y) {
        return auto_key_distance(x->key, key) < auto_key_distance(y->key, key);
    });
    return out;
}

std::vector<std::string> auto_split_ranking(std::string_view ranking) {
    std::vector<std::string> out;
    while (!ranking.empty()) {
        const auto comma = ranking.find(',');
        const std::string_view name = ranking.substr(0, comma);
        if (!name.empty()) out.emplace_back(name);
        if (comma == std::string_view::npos) break;
        ranking.remove_prefix(comma + 1);
    }
    return out;
}

std::vector<AutoCandidate> auto_candidates(const AutoKey& key) {
    std::vector<AutoCandidate> out;
    const auto add = [&](std::string name, const std::string& origin) {
        for (const AutoCandidate& c : out)
            if (c.engine == name) return;
        out.push_back({std::move(name), origin});
    };
    for (const AutoMapEntry* entry : auto_nearest(auto_selection_map(), key)) {
        const std::string origin =
            std::string("map entry '") + entry->origin + "' (" + entry->key.text() + ")";
        for (std::string& name : auto_split_ranking(entry->ranking)) add(std::move(name), origin);
    }
    for (const Strategy& s : strategies()) add(std::string(s.name), "fallback order");
    return out;
}

const std::vector<AutoMapEntry>& auto_selection_map() {
    static const std::vector<AutoMapEntry> map = {
#include "auto/selection_map.inc"
    };
    return map;
}

}  // namespace hs::cuda::detail
