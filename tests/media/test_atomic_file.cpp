// media::AtomicFile, the one writer of every output: the old file stays until the new one is
// complete, nothing is left behind, links and permissions survive; and media::same_file.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "media_test_support.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

std::string content(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(AtomicFile, ReplacesTheFileOnlyOnCommit) {
    ScratchDir dir;
    const fs::path path = dir.path() / "out.csv";
    std::ofstream(path) << "old";
    {
        media::AtomicFile file(path.string());
        file.stream() << "new content, ";
        file.write("written in two parts");
        EXPECT_EQ(content(path), "old");             // not yet
        EXPECT_EQ(names_in(dir.path()).size(), 2u);  // the temporary file next to it
        const std::string temp = fs::path(file.temporary_path()).filename().string();
        EXPECT_EQ(temp.front(), '.');
        EXPECT_EQ(fs::path(temp).extension(), ".csv");  // for encoders that go by extension
        file.commit();
    }
    EXPECT_EQ(content(path), "new content, written in two parts");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.csv"});
}

TEST(AtomicFile, AnAbandonedWriteLeavesTheOldFileAndNoTemporaryFile) {
    ScratchDir dir;
    const fs::path path = dir.path() / "out.raw";
    std::ofstream(path) << "previous";
    try {
        media::AtomicFile file(path.string());
        file.write(std::string(1 << 20, 'x'));  // past the buffer: on the disk already
        throw std::runtime_error("a failure midway");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(content(path), "previous");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.raw"});
    // A file that did not exist is not created.
    { media::AtomicFile file((dir.path() / "new.raw").string()); }
    EXPECT_FALSE(fs::exists(dir.path() / "new.raw"));
}

TEST(AtomicFile, KeepsPermissionsAndSymbolicLinks) {
    ScratchDir dir;
    const fs::path target = dir.path() / "target.txt";
    const fs::path link = dir.path() / "link.txt";
    std::ofstream(target) << "old";
    ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
    fs::create_symlink(target, link);
    media::write_file_atomically(link.string(), "through the link");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(content(target), "through the link");
    struct stat st {};
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(AtomicFile, DevicesAreWrittenDirectlyAndFailuresNameThePath) {
    media::write_file_atomically("/dev/null", "discarded");  // not replaced by a file
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    EXPECT_EQ(message_of<InputError>([] { media::write_file_atomically("/dev/full", "x"); }),
              "cannot write '/dev/full': No space left on device");
    ScratchDir dir;
    EXPECT_EQ(message_of<InputError>([&] { media::AtomicFile f(dir.path().string()); }),
              "cannot write '" + dir.path().string() + "': Is a directory");
    const std::string missing = (dir.path() / "no" / "such" / "out.png").string();
    EXPECT_EQ(message_of<InputError>([&] { media::AtomicFile f(missing); }),
              "cannot write '" + missing + "': No such file or directory");
}

// A pipe behind a link that names no file (/dev/stdout, /proc/self/fd/N: "pipe:[N]") is
// written through the link, as a device is.
TEST(AtomicFile, APipeBehindALinkIsWrittenDirectly) {
    int ends[2] = {-1, -1};
    ASSERT_EQ(::pipe(ends), 0);
    const std::string link = "/proc/self/fd/" + std::to_string(ends[1]);
    ASSERT_TRUE(fs::is_symlink(link));
    media::write_file_atomically(link, "through the pipe");
    ::close(ends[1]);
    char got[64] = {};
    const ssize_t n = ::read(ends[0], got, sizeof got);
    ::close(ends[0]);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
}

TEST(SameFile, SeesThroughLinksAndIgnoresDevices) {
    ScratchDir dir;
    const fs::path a = dir.path() / "a.png", b = dir.path() / "b.png";
    std::ofstream(a) << "a";
    std::ofstream(b) << "a";
    fs::create_symlink(a, dir.path() / "soft.png");
    fs::create_hard_link(a, dir.path() / "hard.png");
    EXPECT_TRUE(media::same_file(a.string(), a.string()));
    EXPECT_TRUE(media::same_file(a.string(), (dir.path() / "soft.png").string()));
    EXPECT_TRUE(media::same_file(a.string(), (dir.path() / "hard.png").string()));
    EXPECT_FALSE(media::same_file(a.string(), b.string()));  // equal bytes, another file
    EXPECT_FALSE(media::same_file(a.string(), (dir.path() / "missing.png").string()));
    EXPECT_FALSE(media::same_file("/dev/null", "/dev/null"));
}
