// Reading whole files with errors that name the file and the operating system's
// reason.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "formats.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

[[noreturn]] void cannot(const char* what, const std::string& path, int error) {
    throw InputError(std::string("cannot ") + what + " " + quoted(path) + ": " + reason(error));
}

// Opens a FIFO for reading on a thread of its own, which waits in open() until a writer comes.
// When none comes in time, a writer of ours lets that open() return, and both are closed.
int open_fifo_for_reading(const std::string& path) {
    struct Opening {
        std::mutex mutex;
        std::condition_variable done;
        bool finished = false;
        bool abandoned = false;  // nobody waits any more: the opener closes what it opened
        int fd = -1;
        int error = 0;
    };
    const auto opening = std::make_shared<Opening>();
    std::thread opener([opening, path] {
        int fd = -1;
        do {
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        } while (fd < 0 && errno == EINTR);
        const int error = fd < 0 ? errno : 0;
        const std::lock_guard lock(opening->mutex);
        if (opening->abandoned && fd >= 0) static_cast<void>(::close(fd));
        if (opening->abandoned) fd = -1;
        opening->fd = fd;
        opening->error = error;
        opening->finished = true;
        opening->done.notify_all();
    });
    std::unique_lock lock(opening->mutex);
    if (opening->done.wait_for(lock, std::chrono::seconds(kFifoWaitSeconds),
                               [&] { return opening->finished; })) {
        lock.unlock();
        opener.join();
        if (opening->fd < 0) cannot("read", path, opening->error);
        return opening->fd;
    }
    lock.unlock();
    const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) {
        opener.join();
        static_cast<void>(::close(writer));
    } else {
        // It shares what it uses; it ends when a writer comes, or with the process.
        opener.detach();
    }
    {
        const std::lock_guard done(opening->mutex);
        if (opening->fd >= 0) static_cast<void>(::close(opening->fd));
        opening->fd = -1;
        opening->abandoned = true;
    }
    throw InputError("cannot read " + quoted(path) +
                     ": no program opened the FIFO for writing in " +
                     std::to_string(kFifoWaitSeconds) +
                     " s (start its writer first, or pipe the data into standard input)");
}

}  // namespace

File open_file(const std::string& path) {
    const int fd = open_for_reading(path);
    File f(::fdopen(fd, "rb"));
    if (!f) {
        const int error = errno;
        static_cast<void>(::close(fd));
        cannot("read", path, error);
    }
    return f;
}

int open_for_reading(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) cannot("read", path, EISDIR);
        if (S_ISFIFO(st.st_mode)) return open_fifo_for_reading(path);
    }
    int fd = -1;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) cannot("read", path, errno);
    return fd;
}

int open_fifo_for_writing(const std::string& path) {
    // Non-blocking, opening a FIFO nobody reads fails at once (ENXIO) instead of waiting: tried
    // again until a reader comes or the time is up.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kFifoWaitSeconds);
    for (;;) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0) {
            const int flags = ::fcntl(fd, F_GETFL);
            if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
                const int error = errno;
                static_cast<void>(::close(fd));
                cannot("write", path, error);
            }
            return fd;
        }
        if (errno != ENXIO && errno != EINTR) cannot("write", path, errno);
        if (std::chrono::steady_clock::now() >= deadline)
            throw InputError("cannot write " + quoted(path) +
                             ": no program opened the FIFO for reading in " +
                             std::to_string(kFifoWaitSeconds) + " s (start its reader first)");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

namespace {

std::vector<std::uint8_t> read_up_to(const std::string& path, std::size_t limit) {
    File f = open_file(path);
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
