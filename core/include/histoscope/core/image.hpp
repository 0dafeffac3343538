#pragma once
// Images of 8-bit or 16-bit unsigned samples, 1, 3 or 4 interleaved channels in R,G,B(,A)
// order, with a row stride in bytes and a declared bit depth (8 for u8, 8..16 for u16).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

enum class SampleType : std::uint8_t { U8, U16 };

constexpr int bytes_per_sample(SampleType t) {
    return t == SampleType::U8 ? 1 : 2;
}
std::string to_string(SampleType t);

// Non-owning view. Samples of one row are contiguous; rows are `stride` bytes apart.
struct ImageView {
    const std::byte* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleType type = SampleType::U8;
    int bit_depth = 8;       // declared depth: 8 for U8, 8..16 for U16
    std::size_t stride = 0;  // bytes between row starts, >= width * channels * sample size

    std::size_t row_bytes() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(channels) *
               static_cast<std::size_t>(bytes_per_sample(type));
    }
    std::size_t pixel_count() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    }
    std::uint32_t max_value() const { return (1u << bit_depth) - 1u; }
    const std::byte* row(int y) const { return data + static_cast<std::size_t>(y) * stride; }
    // Sample `c` of pixel (x, y), widened to 32 bits.
    std::uint32_t sample(int x, int y, int c) const;
};

// Throws hs::UsageError with a message naming the first problem (bad size, channel count,
// depth, stride) so that no engine ever sees a malformed view.
void validate(const ImageView& view);

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
};

// Owning image with tightly packed rows (stride = row bytes) unless created with padding.
class Image {
  public:
    Image() = default;
    Image(int width, int height, int channels, SampleType type, int bit_depth = 0,
          std::size_t row_padding_bytes = 0);

    ImageView view() const;
    std::byte* data() { return storage_.data(); }
    std::byte* row(int y) { return storage_.data() + static_cast<std::size_t>(y) * stride_; }
    template <typename T>
    T* row_as(int y) {
        return reinterpret_cast<T*>(row(y));
    }
    void set_sample(int x, int y, int c, std::uint32_t value);

    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }
    SampleType type() const { return type_; }
    int bit_depth() const { return bit_depth_; }
    std::size_t stride() const { return stride_; }
    bool empty() const { return storage_.empty(); }

  private:
    std::vector<std::byte> storage_;
    int width_ = 0, height_ = 0, channels_ = 0;
    SampleType type_ = SampleType::U8;
    int bit_depth_ = 8;
    std::size_t stride_ = 0;
};

}  // namespace hs
