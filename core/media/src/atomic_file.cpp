// AtomicFile: a temporary file in the target's folder, renamed over the target once complete.
// POSIX calls throughout: the C++ library has no exclusive create, fsync or fchmod.

#include "histoscope/media/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <random>
#include <system_error>

#include "formats.hpp"
#include "histoscope/core/error.hpp"

namespace hs::media {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const std::string& path, int error) {
    throw InputError("cannot write " + detail::quoted(path) + ": " +
                     std::error_code(error, std::generic_category()).message());
}

// write(2) until everything is out; the errno of a failure, else 0.
int write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

// A buffer in front of a file descriptor that remembers the first error instead of throwing
// from inside the stream.
class FdBuffer : public std::streambuf {
  public:
    void attach(int fd) {
        fd_ = fd;
        setp(buffer_.data(), buffer_.data() + buffer_.size());
    }
    int error() const { return error_; }
    // Writes out what is buffered; false after an error.
    bool drain() {
        if (error_ == 0 && pbase() != pptr())
            error_ = write_all(fd_, pbase(), static_cast<std::size_t>(pptr() - pbase()));
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return error_ == 0;
    }

  protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        const auto size = static_cast<std::size_t>(n);
        if (size <= static_cast<std::size_t>(epptr() - pptr())) {
            traits_type::copy(pptr(), s, size);
            pbump(static_cast<int>(n));
            return n;
        }
        if (!drain()) return 0;
        error_ = write_all(fd_, s, size);
        return error_ == 0 ? n : 0;
    }
    int sync() override { return drain() ? 0 : -1; }

  private:
    int fd_ = -1;
    int error_ = 0;
    std::array<char, 1 << 16> buffer_{};
};

// ".NAME.XXXXXX.EXT" next to `target`.
std::string temporary_name(const fs::path& target) {
    static constexpr char kLetters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937 rng{std::random_device{}() ^ static_cast<unsigned>(::getpid())};
    std::string random(6, 'x');
    for (char& c : random) c = kLetters[rng() % (sizeof kLetters - 1)];
    const std::string stem = target.stem().string();
    return (target.parent_path() / ("." + stem + "." + random + target.extension().string()))
        .string();
}

}  // namespace

struct AtomicFile::Impl {
    std::string path;    // as given
    std::string target;  // the regular file replaced (a symbolic link resolved)
    std::string temp;    // the temporary file, or `target` when written directly
    int fd = -1;
    bool direct = false;
    bool committed = false;
    FdBuffer buffer;
    std::ostream out{&buffer};

    void close_fd() {
        if (fd >= 0) static_cast<void>(::close(fd));
        fd = -1;
    }
};

AtomicFile::AtomicFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
    Impl& f = *impl_;
    f.path = path;
    if (path.empty()) cannot_write(path, ENOENT);
    const fs::path given(path);
    fs::path target = given;
    // What the path names in the end, through its links: a device, FIFO, pipe or socket is
    // written through the path as given, which also reaches a pipe behind /dev/stdout (whose
    // link, "pipe:[N]", names no file).
    struct stat existing {};
    bool exists = ::stat(path.c_str(), &existing) == 0;
    std::error_code ec;
    if ((!exists || S_ISREG(existing.st_mode)) && fs::is_symlink(given, ec)) {
        target = fs::weakly_canonical(given, ec);
        if (ec) cannot_write(path, ec.value());
        exists = ::stat(target.c_str(), &existing) == 0;
    }
    f.target = target.string();

    if (exists && S_ISDIR(existing.st_mode)) cannot_write(path, EISDIR);
    if (exists && !S_ISREG(existing.st_mode)) {
        // A device, FIFO or socket: nothing to replace, and renaming over it would remove it.
        f.direct = true;
        f.temp = f.target;
        if (S_ISFIFO(existing.st_mode)) {
            // Opening a FIFO waits for a reader: not forever.
            f.fd = detail::open_fifo_for_writing(f.target);
        } else {
            f.fd = ::open(f.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (f.fd < 0) cannot_write(path, errno);
        }
    } else {
        for (int attempt = 0; f.fd < 0; ++attempt) {
            f.temp = temporary_name(target);
            f.fd = ::open(f.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (f.fd < 0 && (errno != EEXIST || attempt == 100)) cannot_write(path, errno);
        }
        // The new file replaces the old one with the old one's permissions; a new file gets
        // the usual 0666 less the umask, as open() applied it.
        if (exists && ::fchmod(f.fd, existing.st_mode & 07777) != 0) {
            const int error = errno;
            f.close_fd();
            static_cast<void>(::unlink(f.temp.c_str()));
            cannot_write(path, error);
        }
    }
    f.buffer.attach(f.fd);
}

AtomicFile::~AtomicFile() {
    Impl& f = *impl_;
    if (f.committed) return;
    f.close_fd();
    if (!f.direct) static_cast<void>(::unlink(f.temp.c_str()));
}

const std::string& AtomicFile::path() const {
    return impl_->path;
}

const std::string& AtomicFile::temporary_path() const {
    return impl_->temp;
}

std::ostream& AtomicFile::stream() {
    return impl_->out;
}

void AtomicFile::write(std::string_view bytes) {
    Impl& f = *impl_;
    f.out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.out) cannot_write(f.path, f.buffer.error() != 0 ? f.buffer.error() : EIO);
}

bool AtomicFile::seekable() const {
    return !impl_->direct;
}

std::int64_t AtomicFile::seek(std::int64_t offset, int whence) {
    Impl& f = *impl_;
    if (f.direct) cannot_write(f.path, ESPIPE);
    if (!f.buffer.drain()) cannot_write(f.path, f.buffer.error());
    const off_t at = ::lseek(f.fd, static_cast<off_t>(offset), whence);
    if (at < 0) cannot_write(f.path, errno);
    return static_cast<std::int64_t>(at);
}

void AtomicFile::commit() {
    Impl& f = *impl_;
    if (f.committed) return;
    int error = f.buffer.drain() ? 0 : f.buffer.error();
    if (error == 0 && !f.out) error = EIO;
    // fsync before rename: after a crash the name must not point at a file whose data never
    // reached the disk. Devices and FIFOs may not support it.
    if (error == 0 && ::fsync(f.fd) != 0 && !(f.direct && (errno == EINVAL || errno == EROFS)))
        error = errno;
    const int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error == 0 && !f.direct && ::rename(f.temp.c_str(), f.target.c_str()) != 0) error = errno;
    if (error != 0) {
        if (!f.direct) static_cast<void>(::unlink(f.temp.c_str()));
        f.committed = true;  // nothing left to discard
        cannot_write(f.path, error);
    }
    f.committed = true;
    if (!f.direct) {
        // The rename itself reaches the disk with the folder's next sync; ask for it now.
        const std::string folder = fs::path(f.target).parent_path().string();
        const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
        if (dir >= 0) {
            static_cast<void>(::fsync(dir));
            static_cast<void>(::close(dir));
        }
    }
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
    AtomicFile file(path);
    file.write(bytes);
    file.commit();
}

bool same_file(const std::string& a, const std::string& b) {
    const auto identity = [](const std::string& p, struct stat& st) {
        return p == "-" ? ::fstat(STDIN_FILENO, &st) == 0 : ::stat(p.c_str(), &st) == 0;
    };
    // Only regular files can be destroyed by writing: /dev/null as both is no conflict.
    struct stat sa {
    }, sb{};
    return identity(a, sa) && identity(b, sb) && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace hs::media
