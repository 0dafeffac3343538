#pragma once
// Images of 8-bit or 16-bit unsigned samples or of 32-bit IEEE floats (F32: linear light, as
// OpenEXR, PFM and float TIFF hold it), 1, 3 or 4 interleaved channels in R,G,B(,A) order, with
// a row stride in bytes and a declared bit depth (8 for u8, 8..16 for u16, 32 for f32).
//
// Float samples are values, not code values: they may be negative, NaN or infinite, and have
// no largest code value. Everything that works on code values (integer bins, luma, scopes,
// equalization, the pictures' display ranges) refuses them with a UsageError unless it says it
// handles them (float_bins.hpp, tonemap.hpp, display.hpp's exposure).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hs {

enum class SampleType : std::uint8_t { U8, U16, F32 };

constexpr int bytes_per_sample(SampleType t) {
    return t == SampleType::U8 ? 1 : t == SampleType::U16 ? 2 : 4;
}
constexpr bool is_float(SampleType t) {
    return t == SampleType::F32;
}
std::string to_string(SampleType t);  // "u8", "u16", "f32"

// Non-owning view. Samples of one row are contiguous; rows are `stride` bytes apart.
struct ImageView {
    const std::byte* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleType type = SampleType::U8;
    int bit_depth = 8;       // declared depth: 8 for U8, 8..16 for U16, 32 for F32
    std::size_t stride = 0;  // bytes between row starts, >= width * channels * sample size

    std::size_t row_bytes() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(channels) *
               static_cast<std::size_t>(bytes_per_sample(type));
    }
    std::size_t pixel_count() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    }
    // The largest code value of the declared depth (integer samples; float samples have none:
    // callers refuse them first).
    std::uint32_t max_value() const { return bit_depth >= 32 ? ~0u : (1u << bit_depth) - 1u; }
    const std::byte* row(int y) const { return data + static_cast<std::size_t>(y) * stride; }
    // Sample `c` of pixel (x, y), widened to 32 bits; UsageError for float samples, which have
    // no integer value (sample_f32()).
    std::uint32_t sample(int x, int y, int c) const;
    // Sample `c` of pixel (x, y) of a float image; UsageError for integer samples.
    float sample_f32(int x, int y, int c) const;
};

// Throws hs::UsageError with a message naming the first problem (bad size, channel count,
// depth, stride, a float image's alignment) so that no engine ever sees a malformed view.
void validate(const ImageView& view);
// Throws hs::UsageError "<what> works on 8-bit and 16-bit samples, not on float samples ..."
// for a float image: the guard of everything that works on code values.
void require_integer_samples(const ImageView& view, std::string_view what);

// A rectangle of pixels: columns [x, x + width), rows [y, y + height).
struct Region {
    int x = 0, y = 0, width = 0, height = 0;
    std::string describe() const;  // "x,y,w,h", as parse_region() reads it
    friend bool operator==(const Region&, const Region&) = default;
};
// "x,y,w,h" (whole numbers, x and y >= 0, w and h >= 1). Throws UsageError.
Region parse_region(std::string_view text);
// The part of `image` inside `region`: a view with the image's stride, no copy. Throws
// UsageError when the region is empty or reaches outside the image (a region is never clipped
// silently: counts over a smaller area than asked would look right and be wrong).
ImageView crop(const ImageView& image, const Region& region);
// Throws crop()'s UsageError unless `region` lies inside a `width` x `height` image.
void check_region(const Region& region, int width, int height);

// The shape of packed frames (rows back to back): a stream's frames, a raw file's frames.
struct FrameFormat {
    int width = 0, height = 0, channels = 3;
    SampleType type = SampleType::U8;
    int bit_depth = 8;

    static FrameFormat of(const ImageView& image);
    std::size_t frame_bytes() const;  // packed: width * height * channels * sample size
    ImageView view(const std::byte* packed) const;
    // The format as a view over no real pixels, for validating and describing requests only.
    ImageView shape() const;
    bool matches(const ImageView& image) const;
    std::string describe() const;  // "3840x2160x3 u8/8"
    friend bool operator==(const FrameFormat&, const FrameFormat&) = default;
};

// Where an image's samples can live besides ordinary memory: memory a consumer of the image
// asked for, such as pinned host memory that a GPU copies from at full speed and without an
// intermediate copy. Implementations are thread-safe; images keep theirs alive.
class HostMemory {
  public:
    virtual ~HostMemory() = default;
    // `bytes` bytes (contents undefined); throws on failure (hs::DeviceError for device memory).
    virtual std::byte* allocate(std::size_t bytes) = 0;
    virtual void release(std::byte* data, std::size_t bytes) noexcept = 0;
    virtual std::string_view name() const = 0;  // "pinned host memory", for messages
};

namespace detail {
// Gives an image's samples back to where they came from.
struct ImageRelease {
    std::shared_ptr<HostMemory> memory;  // null: ordinary memory (delete[])
    std::size_t bytes = 0;
    void operator()(std::byte* data) const noexcept;
};
}  // namespace detail

// Owning image with tightly packed rows (stride = row bytes) unless created with padding. The
// samples start zeroed. Copies are deep and live in ordinary memory.
class Image {
  public:
    Image() = default;
    Image(int width, int height, int channels, SampleType type, int bit_depth = 0,
          std::size_t row_padding_bytes = 0);
    // A packed frame of `format` in `memory` (ordinary memory when null); `zeroed` false leaves
    // the samples undefined, for a buffer about to be filled (a reader's frames).
    Image(const FrameFormat& format, std::shared_ptr<HostMemory> memory, bool zeroed = true);
    Image(const Image& other);
    Image& operator=(const Image& other);
    Image(Image&&) noexcept = default;
    Image& operator=(Image&&) noexcept = default;
    ~Image() = default;

    ImageView view() const;
    std::byte* data() { return storage_.get(); }
    std::byte* row(int y) { return storage_.get() + static_cast<std::size_t>(y) * stride_; }
    template <typename T>
    T* row_as(int y) {
        return reinterpret_cast<T*>(row(y));
    }
    void set_sample(int x, int y, int c, std::uint32_t value);  // UsageError for float samples
    void set_sample_f32(int x, int y, int c, float value);      // UsageError for integer ones

    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }
    SampleType type() const { return type_; }
    int bit_depth() const { return bit_depth_; }
    std::size_t stride() const { return stride_; }
    bool empty() const { return storage_ == nullptr; }
    // The memory the samples live in; null for ordinary memory.
    const HostMemory* memory() const { return storage_.get_deleter().memory.get(); }

  private:
    // Checks the size, then stride_ * height_ bytes (rows padded by `row_padding_bytes`),
    // zeroed when asked.
    void allocate(std::size_t row_padding_bytes, std::shared_ptr<HostMemory> memory, bool zeroed);

    std::unique_ptr<std::byte[], detail::ImageRelease> storage_;
    int width_ = 0, height_ = 0, channels_ = 0;
    SampleType type_ = SampleType::U8;
    int bit_depth_ = 8;
    std::size_t stride_ = 0;
};

}  // namespace hs
