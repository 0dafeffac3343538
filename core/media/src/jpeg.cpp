// JPEG through libjpeg(-turbo), with an error manager that records instead of printing.
//
// libjpeg reports fatal errors through error_exit, which must not return: it longjmps back to
// run(), whose frame holds nothing with a destructor (everything lives in JpegSession).

#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers

#include <jerror.h>
#include <jpeglib.h>

#include "codecs.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

struct JpegErrors {
    jpeg_error_mgr manager;  // first: libjpeg hands back a pointer to it
    std::jmp_buf jump;
    std::string fatal;       // why libjpeg stopped
    std::string corruption;  // the first warning about the image data
};

JpegErrors& errors_of(j_common_ptr c) {
    return *reinterpret_cast<JpegErrors*>(c->err);
}

std::string message_of(j_common_ptr c) {
    char text[JMSG_LENGTH_MAX];
    (*c->err->format_message)(c, text);
    return text;
}

[[noreturn]] void on_fatal(j_common_ptr c) {
    errors_of(c).fatal = message_of(c);
    std::longjmp(errors_of(c).jump, 1);
}

void on_message(j_common_ptr c, int level) {
    if (level >= 0) return;  // trace output
    JpegErrors& e = errors_of(c);
    ++c->err->num_warnings;
    // An unknown JFIF version number says nothing about the pixels; every other warning
    // (premature end, extraneous bytes, bad Huffman code, ...) means libjpeg invented data.
    if (c->err->msg_code != JWRN_JFIF_MAJOR && e.corruption.empty()) e.corruption = message_of(c);
}

struct JpegSession {
    jpeg_decompress_struct info{};
    JpegErrors errors{};
    bool created = false;
    int channels = 0;
    bool cmyk = false;
    ~JpegSession() {
        if (created) jpeg_destroy_decompress(&info);
    }
};

// OpenCV's CMYK conversion (icvCvt_CMYK2BGR_8u_C4C3R), written in RGB order.
void cmyk_to_rgb(const JSAMPLE* cmyk, std::byte* rgb, JDIMENSION width) {
    for (JDIMENSION x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
        const int k = cmyk[3];
        for (int c = 0; c < 3; ++c) rgb[c] = static_cast<std::byte>(k - ((255 - cmyk[c]) * k >> 8));
    }
}

// Decodes into `out`; false when libjpeg gave up (errors.fatal says why; the rows decoded by
// then are in `out`).
bool run(JpegSession& s, Bytes file, Image& out, std::vector<JSAMPLE>& cmyk_row) {
    if (setjmp(s.errors.jump) != 0) return false;
    jpeg_create_decompress(&s.info);
    s.created = true;
    jpeg_mem_src(&s.info, file.data(), static_cast<unsigned long>(file.size()));
    jpeg_read_header(&s.info, TRUE);
    // As OpenCV: one component is gray, four are CMYK (or YCCK) converted to RGB, the rest RGB.
    s.cmyk = s.info.num_components == 4;
    s.channels = s.info.num_components == 1 ? 1 : 3;
    s.info.out_color_space = s.channels == 1 ? JCS_GRAYSCALE : s.cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&s.info);
    out = Image(static_cast<int>(s.info.output_width), static_cast<int>(s.info.output_height),
                s.channels, SampleType::U8, 8);
    if (s.cmyk) cmyk_row.resize(static_cast<std::size_t>(s.info.output_width) * 4);
    while (s.info.output_scanline < s.info.output_height) {
        const int y = static_cast<int>(s.info.output_scanline);
        JSAMPROW row = s.cmyk ? cmyk_row.data() : reinterpret_cast<JSAMPROW>(out.row(y));
        if (jpeg_read_scanlines(&s.info, &row, 1) != 1) break;
        if (s.cmyk) cmyk_to_rgb(cmyk_row.data(), out.row(y), s.info.output_width);
    }
    jpeg_finish_decompress(&s.info);
    return true;
}

}  // namespace

DecodedImage decode_jpeg(Bytes file, const std::string& name, const DecodeOptions& options) {
    JpegSession s;
    s.info.err = jpeg_std_error(&s.errors.manager);
    s.errors.manager.error_exit = on_fatal;
    s.errors.manager.emit_message = on_message;
    DecodedImage out;
    std::vector<JSAMPLE> cmyk_row;
    const bool finished = run(s, file, out.image, cmyk_row);
    // A fatal error after some rows (or any warning) leaves a partial image.
    const bool started = s.created && s.info.output_scanline > 0;
    if (!finished && !(options.allow_corrupt && started))
        throw InputError(name + " could not be decoded as JPEG (" + s.errors.fatal + ")");
    const std::string problem = finished ? s.errors.corruption : s.errors.fatal;
    if (problem.empty()) return out;
    if (!options.allow_corrupt) throw InputError(name + " is corrupt (" + problem + ")");
    out.corrupt = true;
    out.notes.push_back("corrupt JPEG data (" + problem + "): the image is partial");
    return out;
}

}  // namespace hs::media::detail
