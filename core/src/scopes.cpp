#include "histoscope/core/scopes.hpp"

#include <algorithm>
#include <array>
#include <mutex>

#include "histoscope/core/error.hpp"

#include "parallel.hpp"

namespace hs {

namespace {

constexpr std::array<std::pair<ScopeKind, std::string_view>, 3> kKinds{{
    {ScopeKind::Waveform, "waveform"},
    {ScopeKind::Parade, "parade"},
    {ScopeKind::Vectorscope, "vectorscope"},
}};

// Work below this many pixels per thread is not worth a thread.
constexpr std::int64_t kPixelsPerThread = std::int64_t{1} << 18;

// Columns counted together: their histograms (64 x levels x 8 bytes at 256 levels) stay in the
// cache while every row of the band is read.
constexpr int kColumnTile = 64;

// The level of every value a sample can take, -1 above the declared depth.
std::vector<std::int32_t> level_table(const ImageView& image, int levels) {
    const std::uint32_t values = image.type == SampleType::U8 ? 256u : 65536u;
    std::vector<std::int32_t> table(values, -1);
    for (std::uint32_t v = 0; v <= image.max_value(); ++v)
        table[v] = static_cast<std::int32_t>(
            scope_bin(v, static_cast<std::uint32_t>(levels), image.bit_depth));
    return table;
}

// Adds the waveform of image columns [x0, x1) to `counts`: the value of each pixel (`value`
// reads it from the pixel's first sample) at the level `level_of` gives it, in the column
// `column_of` gives its x.
template <typename T, typename Value>
void count_columns(const ImageView& image, int x0, int x1, const std::vector<int>& column_of,
                   const std::vector<std::int32_t>& level_of, int levels,
                   std::vector<std::uint64_t>& counts, Value value) {
    const auto n = static_cast<std::size_t>(image.channels);
    const auto stride_levels = static_cast<std::size_t>(levels);
    for (int tile = x0; tile < x1; tile += kColumnTile) {
        const int end = std::min(x1, tile + kColumnTile);
        for (int y = 0; y < image.height; ++y) {
            const T* p =
                reinterpret_cast<const T*>(image.row(y)) + static_cast<std::size_t>(tile) * n;
            for (int x = tile; x < end; ++x, p += n) {
                const std::int32_t level = level_of[value(p)];
                if (level >= 0)
                    ++counts[static_cast<std::size_t>(column_of[static_cast<std::size_t>(x)]) *
                                 stride_levels +
                             static_cast<std::size_t>(level)];
            }
        }
    }
}

template <typename T>
void count_waveform(const ImageView& image, Channel channel, int x0, int x1,
                    const std::vector<int>& column_of, const std::vector<std::int32_t>& level_of,
                    int levels, std::vector<std::uint64_t>& counts) {
    if (is_luma(channel) && image.channels > 1) {
        const LumaWeights w = channel == Channel::Luma709 ? kLuma709 : kLuma601;
        count_columns<T>(image, x0, x1, column_of, level_of, levels, counts,
                         [w](const T* p) { return luma(w, p[0], p[1], p[2]); });
        return;
    }
    const auto offset =
        static_cast<std::size_t>(std::max(0, channel_offset(channel, image.channels)));
    count_columns<T>(image, x0, x1, column_of, level_of, levels, counts,
                     [offset](const T* p) { return static_cast<std::uint32_t>(p[offset]); });
}

void reference_waveforms(const ImageView& image, const ScopeSpec& spec,
                         std::vector<ScopePlane>& planes) {
    const int columns = spec.output_columns(image.width);
    // The first image column of output column c: ceil(c * W / N).
    const auto first_x = [&](std::int64_t c) {
        return static_cast<int>((c * image.width + columns - 1) / columns);
    };
    std::vector<int> column_of(static_cast<std::size_t>(image.width));
    for (int x = 0; x < image.width; ++x)
        column_of[static_cast<std::size_t>(x)] =
            static_cast<int>(static_cast<std::int64_t>(x) * columns / image.width);
    const std::vector<std::int32_t> level_of = level_table(image, spec.levels);
    const std::vector<Channel> channels = spec.channels();
    // Threads take whole output columns, so no two write the same counts.
    const std::int64_t pixels_per_column =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(image.pixel_count()) / columns);
    detail::parallel_ranges(
        columns, kPixelsPerThread / pixels_per_column + 1, [&](std::int64_t c0, std::int64_t c1) {
            const int x0 = first_x(c0), x1 = first_x(c1);
            for (std::size_t i = 0; i < channels.size(); ++i) {
                if (image.type == SampleType::U8)
                    count_waveform<std::uint8_t>(image, channels[i], x0, x1, column_of, level_of,
                                                 spec.levels, planes[i].counts);
                else
                    count_waveform<std::uint16_t>(image, channels[i], x0, x1, column_of, level_of,
                                                  spec.levels, planes[i].counts);
            }
        });
}

template <typename T>
void count_chroma(const ImageView& image, const ScopeSpec& spec, int y0, int y1,
                  std::vector<std::uint64_t>& counts) {
    const ChromaWeights w = chroma_weights(spec.matrix);
    const auto n = static_cast<std::size_t>(image.channels);
    const std::uint32_t max = image.max_value();
    const auto size = static_cast<std::uint32_t>(spec.size);
    const int depth = image.bit_depth;
    for (int y = y0; y < y1; ++y) {
        const T* p = reinterpret_cast<const T*>(image.row(y));
        for (int x = 0; x < image.width; ++x, p += n) {
            if (p[0] > max || p[1] > max || p[2] > max) continue;
            const Chroma c = chroma(w, p[0], p[1], p[2], depth);
            ++counts[static_cast<std::size_t>(scope_bin(c.cb, size, depth)) * size +
                     scope_bin(c.cr, size, depth)];
        }
    }
}

void reference_vectorscope(const ImageView& image, const ScopeSpec& spec, ScopePlane& plane) {
    std::mutex merge;
    const std::int64_t rows_per_part = kPixelsPerThread / image.width + 1;
    detail::parallel_ranges(image.height, rows_per_part, [&](std::int64_t y0, std::int64_t y1) {
        std::vector<std::uint64_t> part(plane.counts.size());
        if (image.type == SampleType::U8)
            count_chroma<std::uint8_t>(image, spec, static_cast<int>(y0), static_cast<int>(y1),
                                       part);
        else
            count_chroma<std::uint16_t>(image, spec, static_cast<int>(y0), static_cast<int>(y1),
                                        part);
        const std::lock_guard lock(merge);
        for (std::size_t i = 0; i < part.size(); ++i) plane.counts[i] += part[i];
    });
}

}  // namespace

std::string_view scope_kind_name(ScopeKind kind) {
    for (const auto& [k, name] : kKinds)
        if (k == kind) return name;
    return "?";
}

std::optional<ScopeKind> parse_scope_kind(std::string_view name) {
    for (const auto& [k, n] : kKinds)
        if (n == name) return k;
    return std::nullopt;
}

std::string_view matrix_name(ChromaMatrix matrix) {
    return matrix == ChromaMatrix::Rec709 ? "709" : "601";
}

std::optional<ChromaMatrix> parse_matrix(std::string_view name) {
    if (name == "601") return ChromaMatrix::Rec601;
    if (name == "709") return ChromaMatrix::Rec709;
    return std::nullopt;
}

std::vector<Channel> ScopeSpec::channels() const {
    switch (kind) {
        case ScopeKind::Waveform:
            return {channel};
        case ScopeKind::Parade:
            return {Channel::R, Channel::G, Channel::B};
        default:
            return {};
    }
}

void ScopeSpec::validate(const ImageView& image) const {
    require_integer_samples(image, "a scope (waveform, parade, vectorscope)");
    if (kind == ScopeKind::Vectorscope) {
        if (image.channels < 3)
            throw UsageError("a vectorscope needs a colour image: a gray image has no chroma");
        if (size < 1 || size > kMaxScopeSize)
            throw UsageError("vectorscope size must be between 1 and " +
                             std::to_string(kMaxScopeSize) + ", not " + std::to_string(size));
        return;
    }
    if (kind == ScopeKind::Parade && image.channels < 3)
        throw UsageError("an RGB parade needs a colour image (use a waveform of a gray one)");
    if (kind == ScopeKind::Waveform) {
        if (channel == Channel::Joint)
            throw UsageError("a waveform shows one channel, not the joint colour 'rgb'");
        check_channel(channel, image.channels, image.type);
    }
    if (levels < 1 || levels > kMaxScopeLevels)
        throw UsageError("levels must be between 1 and " + std::to_string(kMaxScopeLevels) +
                         ", not " + std::to_string(levels));
    if (columns < 0 || columns > image.width)
        throw UsageError(
            "columns must be between 1 and the width counted (the image's, or its "
            "region's) " +
            std::to_string(image.width) + ", not " + std::to_string(columns));
}

std::string ScopeSpec::describe(int width) const {
    if (kind == ScopeKind::Vectorscope)
        return "vectorscope Rec." + std::string(matrix_name(matrix)) + ", " + std::to_string(size) +
               "x" + std::to_string(size) + " bins";
    std::string names;
    for (Channel c : channels()) names += (names.empty() ? "" : ",") + std::string(channel_name(c));
    return std::string(scope_kind_name(kind)) + " " + names + ", " + std::to_string(levels) +
           " levels x " + std::to_string(output_columns(width)) + " columns";
}

std::size_t ScopeSpec::counts(int width) const {
    const std::size_t plane =
        kind == ScopeKind::Vectorscope
            ? static_cast<std::size_t>(size) * static_cast<std::size_t>(size)
            : static_cast<std::size_t>(output_columns(width)) * static_cast<std::size_t>(levels);
    return static_cast<std::size_t>(planes()) * plane;
}

std::vector<ScopePlane> scope_planes(const ImageView& image, const ScopeSpec& spec,
                                     const std::uint32_t* counts) {
    std::vector<ScopePlane> planes;
    const auto add = [&](std::string name, int width, int height) {
        const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
        // Converted in one pass, without zeroing first: a frame stream does this every frame.
        planes.push_back({std::move(name), width, height,
                          counts != nullptr ? std::vector<std::uint64_t>(counts, counts + n)
                                            : std::vector<std::uint64_t>(n)});
        if (counts != nullptr) counts += n;
    };
    if (spec.kind == ScopeKind::Vectorscope)
        add("cb,cr", spec.size, spec.size);
    else
        for (Channel c : spec.channels())
            add(std::string(channel_name(c)), spec.output_columns(image.width), spec.levels);
    return planes;
}

std::vector<ScopePlane> reference_scope(const ImageView& image, const ScopeSpec& spec) {
    validate(image);
    spec.validate(image);
    std::vector<ScopePlane> planes = scope_planes(image, spec);
    if (spec.kind == ScopeKind::Vectorscope)
        reference_vectorscope(image, spec, planes.front());
    else
        reference_waveforms(image, spec, planes);
    return planes;
}

}  // namespace hs
