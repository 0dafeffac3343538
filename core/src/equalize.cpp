// Global equalization, strength, histogram matching, the request and the plane pipeline. The
// formulas are written down in equalize.hpp; CLAHE lives in clahe.cpp.

#include "histoscope/core/equalize.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {

__extension__ typedef unsigned __int128 Wide;

std::size_t levels_of(int bit_depth) {
    return std::size_t{1} << bit_depth;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string depth_text(const ImageView& v) {
    if (v.type == SampleType::U8) return "8-bit";
    if (v.bit_depth == 16) return "16-bit";
    return "16-bit (declared " + std::to_string(v.bit_depth) + "-bit)";
}

Lut identity_lut(std::size_t levels) {
    Lut lut(levels);
    for (std::size_t v = 0; v < levels; ++v) lut[v] = static_cast<std::uint16_t>(v);
    return lut;
}

void check_lut_size(std::size_t levels, const char* what) {
    if (levels < 2 || levels > 65536)
        throw UsageError(std::string(what) + " needs 2 to 65536 bins, not " +
                         std::to_string(levels));
}

std::uint64_t total_of(const ValueHistogram& h) {
    return std::accumulate(h.begin(), h.end(), std::uint64_t{0});
}

// Samples of row y, all channels interleaved, widened to 16 bits.
void load_row(const ImageView& v, int y, std::vector<std::uint16_t>& out) {
    const std::size_t n = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels);
    out.resize(n);
    const std::byte* row = v.row(y);
    if (v.type == SampleType::U8) {
        for (std::size_t i = 0; i < n; ++i) out[i] = std::to_integer<std::uint16_t>(row[i]);
    } else {
        std::memcpy(out.data(), row, n * sizeof(std::uint16_t));
    }
}

void store_row(Image& img, int y, const std::vector<std::uint16_t>& in) {
    std::byte* row = img.row(y);
    if (img.type() == SampleType::U8) {
        for (std::size_t i = 0; i < in.size(); ++i) row[i] = static_cast<std::byte>(in[i]);
    } else {
        std::memcpy(row, in.data(), in.size() * sizeof(std::uint16_t));
    }
}

void check_row_depth(const ImageView& v, int y, const std::vector<std::uint16_t>& row) {
    if (v.type == SampleType::U8 || v.bit_depth == 16) return;
    const std::uint16_t top = *std::max_element(row.begin(), row.end());
    if (top > v.max_value()) throw_sample_above_depth(v, y, top);
}

void blend_plane(Plane& plane, const Plane& target, double strength) {
    const std::int64_t w = strength_weight(strength);
    for (std::size_t i = 0; i < plane.samples.size(); ++i)
        plane.samples[i] =
            static_cast<std::uint16_t>(blend(plane.samples[i], target.samples[i], w));
}

void validate_clahe(const EqualizeRequest& r) {
    if (!(r.clip > 0.0 && r.clip <= 65536.0))
        throw UsageError("the CLAHE clip limit must be greater than 0 and at most 65536, not " +
                         number(r.clip));
    const std::string grid = std::to_string(r.tiles_x) + "x" + std::to_string(r.tiles_y);
    if (r.tiles_x < 1 || r.tiles_x > 64 || r.tiles_y < 1 || r.tiles_y > 64)
        throw UsageError("the CLAHE tile grid " + grid +
                         " is out of range: each side must be 1 to 64 tiles");
    if (r.tiles_x > r.image.width || r.tiles_y > r.image.height)
        throw UsageError("the CLAHE tile grid " + grid + " is larger than the " +
                         std::to_string(r.image.width) + "x" + std::to_string(r.image.height) +
                         " image: every tile needs at least one pixel");
}

void validate_reference_image(const EqualizeRequest& r) {
    try {
        validate(*r.reference);
    } catch (const UsageError& e) {
        throw UsageError(std::string("the reference: ") + e.what());
    }
    if (r.reference->type != r.image.type || r.reference->bit_depth != r.image.bit_depth)
        throw UsageError("the reference is " + depth_text(*r.reference) + " but the image is " +
                         depth_text(r.image) + ": matching needs the same depth");
}

void validate_reference_histograms(const EqualizeRequest& r) {
    const std::size_t count = r.reference_histograms.size();
    const auto planes = static_cast<std::size_t>(r.processed_planes());
    if (count != 1 && count != planes)
        throw UsageError((planes == 1
                              ? std::string("give 1 reference histogram")
                              : "give 1 or " + std::to_string(planes) + " reference histograms") +
                         ", not " + std::to_string(count));
    const std::size_t levels = levels_of(r.image.bit_depth);
    for (const ValueHistogram& h : r.reference_histograms) {
        if (h.size() != levels)
            throw UsageError("a reference histogram must have " + std::to_string(levels) +
                             " bins (one per value of the " + depth_text(r.image) +
                             " image), not " + std::to_string(h.size()));
        if (total_of(h) == 0) throw UsageError("a reference histogram is empty (every count is 0)");
    }
}

void validate_match(const EqualizeRequest& r) {
    const bool has_image = r.reference.has_value();
    const bool has_histograms = !r.reference_histograms.empty();
    if (!has_image && !has_histograms)
        throw UsageError("match mode needs a reference image or a reference histogram");
    if (has_image && has_histograms)
        throw UsageError("give match mode a reference image or reference histograms, not both");
    if (has_image)
        validate_reference_image(r);
    else
        validate_reference_histograms(r);
}

}  // namespace

std::string_view mode_name(EqualizeMode mode) {
    switch (mode) {
        case EqualizeMode::Global:
            return "global";
        case EqualizeMode::Clahe:
            return "clahe";
        case EqualizeMode::Match:
            return "match";
    }
    return "?";
}

std::optional<EqualizeMode> parse_mode(std::string_view name) {
    for (EqualizeMode m : {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match})
        if (mode_name(m) == name) return m;
    return std::nullopt;
}

std::string_view space_name(EqualizeSpace space) {
    return space == EqualizeSpace::Luma ? "luma" : "rgb";
}

std::optional<EqualizeSpace> parse_space(std::string_view name) {
    if (name == "luma") return EqualizeSpace::Luma;
    if (name == "rgb") return EqualizeSpace::Rgb;
    return std::nullopt;
}

Lut equalize_lut(const ValueHistogram& h) {
    const std::size_t levels = h.size();
    check_lut_size(levels, "an equalization histogram");
    const std::uint64_t total = total_of(h);
    std::size_t first = 0;
    while (first < levels && h[first] == 0) ++first;
    if (first == levels || h[first] == total) return identity_lut(levels);

    const float scale = static_cast<float>(levels - 1) / static_cast<float>(total - h[first]);
    const auto max = static_cast<std::uint32_t>(levels - 1);
    Lut lut(levels, 0);
    std::uint64_t sum = 0;
    for (std::size_t v = first + 1; v < levels; ++v) {
        sum += h[v];
        lut[v] = round_even_clamp(static_cast<float>(sum) * scale, max);
    }
    return lut;
}

std::int64_t strength_weight(double strength) {
    if (!(strength >= 0.0 && strength <= 1.0))
        throw UsageError("strength must be between 0 and 1, not " + number(strength));
    return std::llround(strength * 65536.0);
}

Lut blend_lut(const Lut& lut, double strength) {
    const std::int64_t w = strength_weight(strength);
    Lut out(lut.size());
    for (std::size_t v = 0; v < lut.size(); ++v)
        out[v] = static_cast<std::uint16_t>(blend(static_cast<std::uint32_t>(v), lut[v], w));
    return out;
}

Lut match_lut(const ValueHistogram& source, const ValueHistogram& reference) {
    const std::size_t levels = source.size();
    check_lut_size(levels, "histogram matching");
    if (reference.size() != levels)
        throw UsageError("histogram matching needs histograms of the same size, not " +
                         std::to_string(levels) + " and " + std::to_string(reference.size()));
    const std::uint64_t ns = total_of(source), nr = total_of(reference);
    if (ns == 0 || nr == 0) throw UsageError("histogram matching needs non-empty histograms");

    Lut lut(levels);
    std::uint64_t cs = 0;
    std::uint64_t cr = reference[0];
    std::size_t u = 0;
    for (std::size_t v = 0; v < levels; ++v) {
        cs += source[v];
        const Wide needed = static_cast<Wide>(cs) * nr;
        while (static_cast<Wide>(cr) * ns < needed) cr += reference[++u];
        lut[v] = static_cast<std::uint16_t>(u);
    }
    return lut;
}

ValueHistogram plane_histogram(const Plane& plane, int bit_depth) {
    ValueHistogram h(levels_of(bit_depth), 0);
    for (std::uint16_t v : plane.samples) {
        if (v >= h.size())
            throw UsageError("plane sample " + std::to_string(v) + " exceeds the " +
                             std::to_string(bit_depth) + "-bit depth");
        ++h[v];
    }
    return h;
}

void apply_lut(Plane& plane, const Lut& lut) {
    for (std::uint16_t& v : plane.samples) {
        if (v >= lut.size())
            throw UsageError("plane sample " + std::to_string(v) + " is outside a LUT of " +
                             std::to_string(lut.size()) + " entries");
        v = lut[v];
    }
}

int EqualizeRequest::processed_planes() const {
    return image.channels >= 3 && space == EqualizeSpace::Rgb ? 3 : 1;
}

void EqualizeRequest::validate() const {
    hs::validate(image);
    require_integer_samples(image, "equalization (global, CLAHE, matching)");
    if (!(strength >= 0.0 && strength <= 1.0))
        throw UsageError(
            std::string(mode == EqualizeMode::Match ? "the matching proportion" : "the strength") +
            " must be between 0 and 1, not " + number(strength));
    if (mode == EqualizeMode::Clahe) validate_clahe(*this);
    if (mode == EqualizeMode::Match)
        validate_match(*this);
    else if (reference || !reference_histograms.empty())
        throw UsageError("a reference image or histogram applies to match mode only");
}

void throw_sample_above_depth(const ImageView& image, int row, std::uint32_t top) {
    throw InputError("sample value " + std::to_string(top) + " in row " + std::to_string(row) +
                     " exceeds the image's declared " + std::to_string(image.bit_depth) +
                     "-bit depth");
}

WorkingPlanes split_planes(const ImageView& image, EqualizeSpace space) {
    validate(image);
    require_integer_samples(image, "equalization (global, CLAHE, matching)");
    WorkingPlanes work;
    work.bit_depth = image.bit_depth;
    const bool colour = image.channels >= 3;
    const bool luma = colour && space == EqualizeSpace::Luma;
    work.processed = colour && !luma ? 3 : 1;
    for (int k = 0; k < (colour ? 3 : 1); ++k) work.planes.emplace_back(image.width, image.height);

    const auto w = static_cast<std::size_t>(image.width);
    const auto ch = static_cast<std::size_t>(image.channels);
    std::vector<std::uint16_t> row;
    for (int y = 0; y < image.height; ++y) {
        load_row(image, y, row);
        check_row_depth(image, y, row);
        const std::size_t base = static_cast<std::size_t>(y) * w;
        for (std::size_t x = 0; x < w; ++x) {
            const std::uint16_t* px = &row[x * ch];
            if (!colour) {
                work.planes[0].samples[base + x] = px[0];
                continue;
            }
            Triple t{px[0], px[1], px[2]};
            if (luma) t = rgb_to_ycrcb(px[0], px[1], px[2], image.bit_depth);
            work.planes[0].samples[base + x] = static_cast<std::uint16_t>(t.a);
            work.planes[1].samples[base + x] = static_cast<std::uint16_t>(t.b);
            work.planes[2].samples[base + x] = static_cast<std::uint16_t>(t.c);
        }
    }
    return work;
}

std::vector<ValueHistogram> match_references(const EqualizeRequest& request) {
    if (request.mode != EqualizeMode::Match) return {};
    const auto planes = static_cast<std::size_t>(request.processed_planes());
    std::vector<ValueHistogram> refs;
    if (!request.reference_histograms.empty()) {
        refs = request.reference_histograms;
        refs.resize(planes, refs.front());
        return refs;
    }
    if (!request.reference) throw UsageError("match mode needs a reference image or histogram");
    const WorkingPlanes ref =
        split_planes(*request.reference, planes == 3 ? EqualizeSpace::Rgb : EqualizeSpace::Luma);
    for (std::size_t k = 0; k < planes; ++k)
        refs.push_back(plane_histogram(ref.planes[std::min(k, ref.planes.size() - 1)],
                                       request.reference->bit_depth));
    return refs;
}

void equalize_planes(WorkingPlanes& work, const EqualizeRequest& r,
                     const std::vector<ValueHistogram>& references) {
    const auto processed = static_cast<std::size_t>(work.processed);
    if (r.mode == EqualizeMode::Match && references.size() < processed)
        throw UsageError("match mode needs one reference histogram per processed plane");
    for (std::size_t k = 0; k < processed; ++k) {
        Plane& plane = work.planes[k];
        switch (r.mode) {
            case EqualizeMode::Global:
                apply_lut(plane, blend_lut(equalize_lut(plane_histogram(plane, work.bit_depth)),
                                           r.strength));
                break;
            case EqualizeMode::Match:
                apply_lut(plane, blend_lut(match_lut(plane_histogram(plane, work.bit_depth),
                                                     references[k]),
                                           r.strength));
                break;
            case EqualizeMode::Clahe:
                blend_plane(plane, clahe_plane(plane, work.bit_depth, r.clip, r.tiles_x, r.tiles_y),
                            r.strength);
                break;
        }
    }
}

Image compose_image(const ImageView& source, const WorkingPlanes& work, EqualizeSpace space) {
    Image out(source.width, source.height, source.channels, source.type, source.bit_depth);
    const bool colour = source.channels >= 3;
    const bool luma = colour && space == EqualizeSpace::Luma;
    const auto w = static_cast<std::size_t>(source.width);
    const auto ch = static_cast<std::size_t>(source.channels);
    std::vector<std::uint16_t> in, row(w * ch);
    for (int y = 0; y < source.height; ++y) {
        if (ch == 4) load_row(source, y, in);
        const std::size_t base = static_cast<std::size_t>(y) * w;
        for (std::size_t x = 0; x < w; ++x) {
            std::uint16_t* px = &row[x * ch];
            if (!colour) {
                px[0] = work.planes[0].samples[base + x];
                continue;
            }
            Triple t{work.planes[0].samples[base + x], work.planes[1].samples[base + x],
                     work.planes[2].samples[base + x]};
            if (luma) t = ycrcb_to_rgb(t.a, t.b, t.c, source.bit_depth);
            px[0] = static_cast<std::uint16_t>(t.a);
            px[1] = static_cast<std::uint16_t>(t.b);
            px[2] = static_cast<std::uint16_t>(t.c);
            if (ch == 4) px[3] = in[x * ch + 3];
        }
        store_row(out, y, row);
    }
    return out;
}

Image copy_image(const ImageView& image) {
    validate(image);
    Image out(image.width, image.height, image.channels, image.type, image.bit_depth);
    for (int y = 0; y < image.height; ++y) std::memcpy(out.row(y), image.row(y), image.row_bytes());
    return out;
}

Image equalize_reference(const EqualizeRequest& request) {
    request.validate();
    if (request.strength == 0.0) return copy_image(request.image);
    WorkingPlanes work = split_planes(request.image, request.space);
    equalize_planes(work, request, match_references(request));
    return compose_image(request.image, work, request.space);
}

}  // namespace hs
