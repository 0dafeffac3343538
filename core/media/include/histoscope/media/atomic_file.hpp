#pragma once
// Writing files so that a reader only ever sees the old content or the complete new one, and
// telling whether two paths name the same file. Needs no OpenCV; shared by the CLI, the media
// writers and the desktop application.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace hs::media {

// A file written through a hidden temporary file next to it (".NAME.XXXXXX.EXT": the same
// folder, so the same file system, and the same extension, for encoders that choose their
// format by it) which replaces the file only in commit(), after everything was written,
// flushed to the disk and closed. A write that fails, an exception, or a process killed
// midway leaves an existing file as it was (and at most the temporary file beside it). A
// replaced file keeps its permission bits; a symbolic link keeps pointing at the replaced
// file. A path naming something that is not a regular file (/dev/null, a FIFO, a terminal)
// is written directly: there is no file to replace.
//
// Every failure throws hs::InputError "cannot write 'PATH': REASON".
class AtomicFile {
  public:
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();  // discards the temporary file unless commit() succeeded
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    const std::string& path() const;
    // The file the bytes go to until commit(): for a writer that opens files by name (a video
    // encoder), which must have closed it before commit().
    const std::string& temporary_path() const;
    // Buffered output into the temporary file; its failures surface in commit().
    std::ostream& stream();
    // The same, throwing at once when the bytes cannot be written (a full disk).
    void write(std::string_view bytes);
    // Whether seek() works: a temporary file does; a device or FIFO written directly does not.
    bool seekable() const;
    // Moves where the next bytes go (lseek's `whence`: SEEK_SET, SEEK_CUR or SEEK_END) after
    // writing out what is buffered, for writers that go back to fill in a header (a video
    // container's index); returns the new position. Throws when it cannot.
    std::int64_t seek(std::int64_t offset, int whence);
    // Flushes, syncs, closes and renames the temporary file over path().
    void commit();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// `bytes` as the whole content of `path`, through AtomicFile.
void write_file_atomically(const std::string& path, std::string_view bytes);

// True when both paths exist and are the same regular file (the same device and inode: also
// through symbolic and hard links). "-" names standard input, so an output onto the file that
// standard input was redirected from is caught too.
bool same_file(const std::string& a, const std::string& b);

}  // namespace hs::media
