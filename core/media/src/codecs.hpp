#pragma once
// JPEG and PNG decoded by libjpeg and libpng directly rather than through OpenCV, whose
// handlers print the libraries' warnings to standard error and otherwise ignore them: a JPEG
// with corrupt scan data decodes "successfully" into a partly grey image. Here every warning
// about the image data makes the file corrupt (DecodeOptions::allow_corrupt keeps the partial
// image), warnings about metadata the histograms do not use are ignored, and nothing is printed.
// The pixels equal OpenCV's cv::imdecode(IMREAD_UNCHANGED) in RGB(A) order (tests/media compare
// them).

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

// Silences OpenCV's own log (warnings of its decoders and of imdecode) for the process: media
// reports every problem as an InputError instead.
void quiet_opencv();

}  // namespace hs::media::detail
