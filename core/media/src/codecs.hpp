#pragma once
// JPEG and PNG decoded by libjpeg and libpng directly rather than through OpenCV, whose
// handlers print the libraries' warnings to standard error and otherwise ignore them: a JPEG
// with corrupt scan data decodes "successfully" into a partly grey image. Here every warning
// about the image data makes the file corrupt (DecodeOptions::allow_corrupt keeps the partial
// image), warnings about metadata the histograms do not use are ignored, and nothing is printed.
// The pixels equal OpenCV's cv::imdecode(IMREAD_UNCHANGED) in RGB(A) order (tests/media compare
// them), except a 16-bit PNG that records a depth of 8 to 15 bits in its sBIT chunk and whose
// samples are all that depth's replications (see below): it is read back at that depth.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media::detail {

struct DecodedImage {
    Image image;
    std::vector<std::string> notes;
    bool corrupt = false;  // only when options.allow_corrupt; a note says why
};

// Both throw InputError naming `name` for a file they cannot decode, and for corrupt data
// unless options.allow_corrupt. The header's size was checked by the caller.
DecodedImage decode_jpeg(Bytes file, const std::string& name, const DecodeOptions& options);
DecodedImage decode_png(Bytes file, const std::string& name, const DecodeOptions& options);

// Deep samples in 16-bit files. A sample v of depth d (8..15) is stored as its bit replication
//   v << (16 - d) | v >> (2d - 16)
// (10-bit 1023 -> 65535, 512 -> 32800; 8-bit v -> 257 v): the 16-bit value of about the same
// fraction of full scale, so that every viewer shows the picture, and reversible: v is its top d
// bits. PNG also records d in its sBIT chunk; TIFF and PNM have no such record.
constexpr std::uint16_t replicate_to_16(std::uint32_t v, int depth) {
    return static_cast<std::uint16_t>((v << (16 - depth)) | (v >> (2 * depth - 16)));
}
// `image` (16-bit samples of depth 8..15) with every sample replicated to 16 bits. InputError
// for a sample above the image's depth, which has no replication.
Image replicated_to_16_bits(const ImageView& image);
// The 16-bit `image` at `depth` (8..15), every sample its top `depth` bits, when every sample is
// the replication of those bits; otherwise nothing (the file's samples are 16-bit data).
std::optional<Image> unreplicated(const ImageView& image, int depth);

// Float images (SampleType::F32), every sample as stored (half floats widened exactly), NaN and
// infinities kept and counted in a note: OpenEXR by its library (R, G, B (A), Y (A) or one
// channel of half or float samples; part 1 of a multi-part file; the data window's pixels),
// PFM (PF and Pf, either byte order, rows bottom to top), float TIFF by libtiff (16- or 32-bit
// IEEE samples, gray or RGB with or without alpha, strips or tiles, contiguous or planar; every
// libtiff error and warning but unknown tags an error). The caller has checked the header's
// size against the limit and the structure (formats.hpp); all throw InputError naming `name`.
DecodedImage decode_exr(Bytes file, const std::string& name, const DecodeOptions& options);
DecodedImage decode_pfm(Bytes file, const std::string& name, const DecodeOptions& options);
DecodedImage decode_float_tiff(Bytes file, const std::string& name, const DecodeOptions& options);

// Silences OpenCV's own log (warnings of its decoders and of imdecode) for the process: media
// reports every problem as an InputError instead.
void quiet_opencv();

}  // namespace hs::media::detail
