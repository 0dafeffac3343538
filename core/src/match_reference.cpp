// Histogram matching to a reference of any depth (match_reference.hpp).

#include "histoscope/core/match_reference.hpp"

#include <utility>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {

void check_depth(int depth) {
    if (depth < 1 || depth > 16)
        throw UsageError("a code value depth must be 1 to 16 bits, not " + std::to_string(depth));
}

// The reference's histograms of the planes a request on an image of `channels` in `space`
// processes, at the reference's depth (match_references() reads them so).
std::vector<ValueHistogram> plane_histograms(const ImageView& reference, int channels,
                                             EqualizeSpace space) {
    EqualizeRequest shape;
    shape.mode = EqualizeMode::Match;
    shape.space = space;
    shape.image.channels = channels;
    shape.reference = reference;
    return match_references(shape);
}

}  // namespace

std::uint32_t code_value_at_depth(std::uint32_t u, int from_depth, int to_depth) {
    check_depth(from_depth);
    check_depth(to_depth);
    const std::uint64_t from_max = (std::uint64_t{1} << from_depth) - 1;
    const std::uint64_t to_max = (std::uint64_t{1} << to_depth) - 1;
    if (u > from_max)
        throw UsageError("code value " + std::to_string(u) + " exceeds the " +
                         std::to_string(from_depth) + "-bit depth");
    if (from_depth == to_depth) return u;
    return static_cast<std::uint32_t>((2 * u * to_max + from_max) / (2 * from_max));
}

ValueHistogram histogram_at_depth(const ValueHistogram& h, int from_depth, int to_depth) {
    check_depth(from_depth);
    check_depth(to_depth);
    if (h.size() != std::size_t{1} << from_depth)
        throw UsageError("a histogram of " + std::to_string(from_depth) + "-bit code values has " +
                         std::to_string(std::size_t{1} << from_depth) + " bins, not " +
                         std::to_string(h.size()));
    if (from_depth == to_depth) return h;
    ValueHistogram out(std::size_t{1} << to_depth, 0);
    for (std::size_t u = 0; u < h.size(); ++u)
        out[code_value_at_depth(static_cast<std::uint32_t>(u), from_depth, to_depth)] += h[u];
    return out;
}

MatchReference::MatchReference(std::shared_ptr<const Image> reference)
    : image_(std::move(reference)) {
    if (!image_ || image_->empty()) throw UsageError("the match reference is empty");
    const ImageView view = image_->view();
    try {
        validate(view);
    } catch (const UsageError& e) {
        throw UsageError(std::string("the reference: ") + e.what());
    }
    if (is_float(view.type))
        throw UsageError(
            "the reference is a float (HDR) image: matching takes the code values of an 8- to "
            "16-bit image");
    one_ = plane_histograms(view, 1, EqualizeSpace::Luma).front();
    three_ = plane_histograms(view, 3, EqualizeSpace::Rgb);
}

void MatchReference::apply(EqualizeRequest& request) const {
    request.reference.reset();
    request.reference_histograms.clear();
    const ImageView own = image_->view();
    if (own.type == request.image.type && own.bit_depth == request.image.bit_depth) {
        request.reference = own;
        return;
    }
    const int depth = request.image.bit_depth;
    if (request.processed_planes() == 1) {
        request.reference_histograms.push_back(histogram_at_depth(one_, own.bit_depth, depth));
        return;
    }
    for (const ValueHistogram& h : three_)
        request.reference_histograms.push_back(histogram_at_depth(h, own.bit_depth, depth));
}

}  // namespace hs
