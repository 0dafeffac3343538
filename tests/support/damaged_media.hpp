#pragma once
// Damaged copies of media files: the bytes of a window in the middle overwritten, as a bad
// sector or a broken transfer leaves them.

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs::test {

// Copies `from` to `to` with `count` bytes from the middle on replaced by a fixed pattern.
inline void write_damaged_copy(const std::string& from, const std::string& to,
                               std::size_t count = 20000) {
    std::ifstream in(from, std::ios::binary);
    std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (bytes.size() < 2 * count) throw std::runtime_error("too small to damage: " + from);
    const std::size_t start = bytes.size() / 2;
    for (std::size_t i = start; i < start + count; ++i)
        bytes[i] = static_cast<char>(static_cast<std::uint8_t>((i * 7) & 0xFF));
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + to);
}

}  // namespace hs::test
