#pragma once
// Scratch directories and byte-level file helpers for the media suites.

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs::test {

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class ScratchDir {
  public:
    ScratchDir() {
        static std::atomic<unsigned> counter{0};
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = "histoscope-media-";
        name += info != nullptr ? std::string(info->name()) : "test";
        // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
        name.append("-").append(std::to_string(std::random_device{}()));
        name.append("-").append(std::to_string(counter++));
        for (auto& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
        path_ = std::filesystem::temp_directory_path() / name;
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

// Copies the first `count` bytes of `from` to `to`.
inline void write_prefix(const std::string& from, const std::string& to, std::size_t count) {
    std::vector<std::uint8_t> bytes = read_bytes(from);
    ASSERT_LE(count, bytes.size());
    bytes.resize(count);
    write_bytes(to, bytes);
}

// Same size, channels, sample type and samples (the declared depths aside).
inline bool same_samples(const ImageView& a, const ImageView& b) {
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.type != b.type)
        return false;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
            for (int c = 0; c < a.channels; ++c)
                if (a.sample(x, y, c) != b.sample(x, y, c)) return false;
    return true;
}

// Runs `f`, expects it to throw E and returns the message ("" and a failure otherwise).
template <typename E, typename F>
std::string message_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return {};
}

}  // namespace hs::test
