// Reading whole files with errors that name the file and the operating system's
// reason.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "formats.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

[[noreturn]] void cannot(const char* what, const std::string& path, int error) {
    throw InputError(std::string("cannot ") + what + " " + quoted(path) + ": " + reason(error));
}

File open_for_reading(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) cannot("read", path, EISDIR);
    errno = 0;
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) cannot("read", path, errno != 0 ? errno : ENOENT);
    return f;
}

std::vector<std::uint8_t> read_up_to(const std::string& path, std::size_t limit) {
    File f = open_for_reading(path);
    std::vector<std::uint8_t> out;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) out.reserve(static_cast<std::size_t>(std::min<std::uintmax_t>(size, limit)));
    std::uint8_t buffer[1 << 16];
    while (out.size() < limit) {
        const std::size_t want = std::min(sizeof buffer, limit - out.size());
        errno = 0;
        const std::size_t got = std::fread(buffer, 1, want, f.get());
        out.insert(out.end(), buffer, buffer + got);
        if (got < want) {
            if (std::ferror(f.get())) cannot("read", path, errno != 0 ? errno : EIO);
            break;
        }
    }
    return out;
}

}  // namespace

std::string quoted(const std::string& path) {
    return "'" + path + "'";
}

std::vector<std::uint8_t> read_file(const std::string& path) {
    return read_up_to(path, static_cast<std::size_t>(-1));
}

std::vector<std::uint8_t> read_file_head(const std::string& path, std::size_t max_bytes) {
    return read_up_to(path, max_bytes);
}

}  // namespace hs::media::detail
