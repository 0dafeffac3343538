#include "histoscope/core/image.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

#include "histoscope/core/error.hpp"

namespace hs {

std::string to_string(SampleType t) {
    switch (t) {
        case SampleType::U8:
            return "u8";
        case SampleType::U16:
            return "u16";
        case SampleType::F32:
            return "f32";
    }
    return "?";
}

std::uint32_t ImageView::sample(int x, int y, int c) const {
    const std::size_t index = static_cast<std::size_t>(x) * static_cast<std::size_t>(channels) +
                              static_cast<std::size_t>(c);
    if (type == SampleType::U8) return std::to_integer<std::uint32_t>(row(y)[index]);
    if (type == SampleType::F32)
        throw UsageError("a float sample has no integer value (read it as a float)");
    std::uint16_t v;
    std::memcpy(&v, row(y) + 2 * index, sizeof v);
    return v;
}

float ImageView::sample_f32(int x, int y, int c) const {
    if (type != SampleType::F32)
        throw UsageError("a " + to_string(type) + " sample is no float sample");
    const std::size_t index = static_cast<std::size_t>(x) * static_cast<std::size_t>(channels) +
                              static_cast<std::size_t>(c);
    float v;
    std::memcpy(&v, row(y) + 4 * index, sizeof v);
    return v;
}

void validate(const ImageView& v) {
    if (v.width <= 0 || v.height <= 0)
        throw UsageError("image is empty (" + std::to_string(v.width) + "x" +
                         std::to_string(v.height) + ")");
    if (v.channels != 1 && v.channels != 3 && v.channels != 4)
        throw UsageError("images must have 1, 3 or 4 channels, not " + std::to_string(v.channels));
    if (v.type == SampleType::U8 && v.bit_depth != 8)
        throw UsageError("8-bit samples must declare bit depth 8, not " +
                         std::to_string(v.bit_depth));
    if (v.type == SampleType::U16 && (v.bit_depth < 8 || v.bit_depth > 16))
        throw UsageError("16-bit samples must declare a bit depth of 8..16, not " +
                         std::to_string(v.bit_depth));
    if (v.type == SampleType::F32 && v.bit_depth != 32)
        throw UsageError("float samples must declare bit depth 32, not " +
                         std::to_string(v.bit_depth));
    if (v.type != SampleType::U8 && v.type != SampleType::U16 && v.type != SampleType::F32)
        throw UsageError("unknown sample type " + std::to_string(static_cast<int>(v.type)));
    if (v.stride < v.row_bytes())
        throw UsageError("row stride " + std::to_string(v.stride) + " is smaller than a row (" +
                         std::to_string(v.row_bytes()) + " bytes)");
    if (v.type == SampleType::U16 && v.stride % 2 != 0)
        throw UsageError("row stride of a 16-bit image must be even");
    if (v.data == nullptr) throw UsageError("image has no data");
    // Float samples are read as floats in place: every one must lie on a float's alignment.
    if (v.type == SampleType::F32 &&
        (v.stride % alignof(float) != 0 ||
         reinterpret_cast<std::uintptr_t>(v.data) % alignof(float) != 0))
        throw UsageError("the rows of a float image must start on 4-byte boundaries");
}

void require_integer_samples(const ImageView& view, std::string_view what) {
    if (is_float(view.type))
        throw UsageError(std::string(what) +
                         " works on 8-bit and 16-bit samples, not on float samples (an HDR "
                         "image: its histograms take float bins, --range or --stops, and it is "
                         "tone mapped rather than equalized)");
}

std::string Region::describe() const {
    return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(width) + "," +
           std::to_string(height);
}

Region parse_region(std::string_view text) {
    const std::string shown(text.substr(0, 64));
    const auto bad = [&shown](const std::string& why) {
        return UsageError("region '" + shown + "' " + why + " (expected x,y,w,h)");
    };
    int values[4] = {};
    std::size_t at = 0;
    for (int i = 0; i < 4; ++i) {
        const std::size_t end = i < 3 ? text.find(',', at) : text.size();
        if (end == std::string_view::npos) throw bad("has fewer than four numbers");
        const std::string_view part = text.substr(at, end - at);
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), values[i]);
        if (i == 3 && ec == std::errc() && ptr != part.data() + part.size() && *ptr == ',')
            throw bad("has more than four numbers");
        if (ec == std::errc::result_out_of_range)
            throw bad("has a number too large (at most " +
                      std::to_string(std::numeric_limits<int>::max()) + ")");
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
            throw bad("has a part that is not a whole number");
        at = end + 1;
    }
    const Region r{values[0], values[1], values[2], values[3]};
    if (r.x < 0 || r.y < 0) throw bad("starts at a negative position");
    if (r.width < 1 || r.height < 1) throw bad("is empty");
    return r;
}

void check_region(const Region& r, int width, int height) {
    if (r.width < 1 || r.height < 1) throw UsageError("region " + r.describe() + " is empty");
    // 64-bit sums: x + width cannot overflow.
    if (r.x < 0 || r.y < 0 || static_cast<std::int64_t>(r.x) + r.width > width ||
        static_cast<std::int64_t>(r.y) + r.height > height)
        throw UsageError("region " + r.describe() + " reaches outside the " +
                         std::to_string(width) + "x" + std::to_string(height) + " image");
}

ImageView crop(const ImageView& image, const Region& r) {
    check_region(r, image.width, image.height);
    ImageView v = image;
    v.data = image.row(r.y) + static_cast<std::size_t>(r.x) *
                                  static_cast<std::size_t>(image.channels) *
                                  static_cast<std::size_t>(bytes_per_sample(image.type));
    v.width = r.width;
    v.height = r.height;
    return v;
}

Image::Image(int width, int height, int channels, SampleType type, int bit_depth,
             std::size_t row_padding_bytes)
    : width_(width),
      height_(height),
      channels_(channels),
      type_(type),
      bit_depth_(bit_depth != 0 ? bit_depth : 8 * bytes_per_sample(type)) {
    allocate(row_padding_bytes, nullptr, true);
}

Image::Image(const FrameFormat& format, std::shared_ptr<HostMemory> memory, bool zeroed)
    : width_(format.width),
      height_(format.height),
      channels_(format.channels),
      type_(format.type),
      bit_depth_(format.bit_depth) {
    allocate(0, std::move(memory), zeroed);
}

void detail::ImageRelease::operator()(std::byte* data) const noexcept {
    if (memory != nullptr)
        memory->release(data, bytes);
    else
        delete[] data;
}

void Image::allocate(std::size_t row_padding_bytes, std::shared_ptr<HostMemory> memory,
                     bool zeroed) {
    if (width_ <= 0 || height_ <= 0 || width_ > (1 << 20) || height_ > (1 << 20))
        throw UsageError("image size " + std::to_string(width_) + "x" + std::to_string(height_) +
                         " is out of range");
    stride_ = static_cast<std::size_t>(width_) * static_cast<std::size_t>(channels_) *
                  static_cast<std::size_t>(bytes_per_sample(type_)) +
              row_padding_bytes;
    const std::size_t total = std::max<std::size_t>(stride_ * static_cast<std::size_t>(height_), 1);
    if (memory == nullptr) {
        storage_ = {zeroed ? new std::byte[total]() : new std::byte[total],
                    detail::ImageRelease{nullptr, total}};
    } else {
        std::byte* data = memory->allocate(total);
        storage_ = {data, detail::ImageRelease{std::move(memory), total}};
        if (zeroed) std::memset(data, 0, total);
    }
    validate(view());
}

Image::Image(const Image& other)
    : width_(other.width_),
      height_(other.height_),
      channels_(other.channels_),
      type_(other.type_),
      bit_depth_(other.bit_depth_),
      stride_(other.stride_) {
    if (other.empty()) return;
    const std::size_t total = other.storage_.get_deleter().bytes;
    storage_ = {new std::byte[total], detail::ImageRelease{nullptr, total}};
    std::memcpy(storage_.get(), other.storage_.get(), total);
}

Image& Image::operator=(const Image& other) {
    if (this != &other) *this = Image(other);
    return *this;
}

ImageView Image::view() const {
    return ImageView{storage_.get(), width_, height_, channels_, type_, bit_depth_, stride_};
}

void Image::set_sample(int x, int y, int c, std::uint32_t value) {
    const std::size_t index = static_cast<std::size_t>(x) * static_cast<std::size_t>(channels_) +
                              static_cast<std::size_t>(c);
    if (type_ == SampleType::F32)
        throw UsageError("a float sample is set as a float, not as an integer");
    if (type_ == SampleType::U8) {
        row(y)[index] = static_cast<std::byte>(value);
    } else {
        const auto v = static_cast<std::uint16_t>(value);
        std::memcpy(row(y) + 2 * index, &v, sizeof v);
    }
}

void Image::set_sample_f32(int x, int y, int c, float value) {
    if (type_ != SampleType::F32)
        throw UsageError("a " + to_string(type_) + " sample is no float sample");
    const std::size_t index = static_cast<std::size_t>(x) * static_cast<std::size_t>(channels_) +
                              static_cast<std::size_t>(c);
    std::memcpy(row(y) + 4 * index, &value, sizeof value);
}

FrameFormat FrameFormat::of(const ImageView& image) {
    return {image.width, image.height, image.channels, image.type, image.bit_depth};
}

std::size_t FrameFormat::frame_bytes() const {
    if (width <= 0 || height <= 0 || channels <= 0) return 0;
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
           static_cast<std::size_t>(channels) * static_cast<std::size_t>(bytes_per_sample(type));
}

ImageView FrameFormat::view(const std::byte* packed) const {
    ImageView v;
    v.data = packed;
    v.width = width;
    v.height = height;
    v.channels = channels;
    v.type = type;
    v.bit_depth = bit_depth;
    v.stride = v.row_bytes();
    return v;
}

ImageView FrameFormat::shape() const {
    // validate() refuses a null pointer, and a float image's samples off a float's alignment.
    alignas(8) static const std::byte stand_in[8] = {};
    return view(stand_in);
}

bool FrameFormat::matches(const ImageView& image) const {
    return image.width == width && image.height == height && image.channels == channels &&
           image.type == type && image.bit_depth == bit_depth;
}

std::string FrameFormat::describe() const {
    return std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(channels) +
           " " + to_string(type) + "/" + std::to_string(bit_depth);
}

}  // namespace hs
