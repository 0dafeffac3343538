#pragma once
// Writing into a pipe or FIFO as a producer does, for the suites that read inputs which can be
// read only once.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <thread>

namespace hs::test {

// Writes `size` bytes of `data` to `fd`, `piece` bytes at a time with `pause` after each;
// false when the reader went away (EPIPE: ignore SIGPIPE first) or writing failed.
inline bool write_in_pieces(int fd, const void* data, std::size_t size, std::size_t piece,
                            std::chrono::microseconds pause = {}) {
    const auto* bytes = static_cast<const char*>(data);
    for (std::size_t at = 0; at < size;) {
        const ssize_t wrote = ::write(fd, bytes + at, std::min(piece, size - at));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        at += static_cast<std::size_t>(wrote);
        if (pause.count() > 0) std::this_thread::sleep_for(pause);
    }
    return true;
}

}  // namespace hs::test
