// histoscope-cli equalize with --kernel gpu, end to end on raw frames (no OpenCV needed, so
// these run on the GPU host): the written .raw output equals the CPU reference byte for byte,
// --repeat reports median stages, --timing --format json names the GPU stages, and a machine
// without a device answers --kernel gpu with exit code 4 and one error line.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "histoscope/core/equalize.hpp"
#include "histoscope/cuda/register.hpp"
#include "run_command.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

std::string cli() {
    return std::string("'") + HS_CLI_PATH + "'";
}

std::string q(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}

// The packed bytes of `img` (what a .raw file holds on a little-endian machine).
std::string bytes_of(const Image& img) {
    const ImageView v = img.view();
    std::string out;
    for (int y = 0; y < v.height; ++y)
        out.append(reinterpret_cast<const char*>(v.row(y)), v.row_bytes());
    return out;
}

void write_file(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string raw_format(const Image& img) {
    return std::to_string(img.width()) + "x" + std::to_string(img.height()) + "x" +
           std::to_string(img.channels()) + ":" +
           (img.type() == SampleType::U8 ? "u8" : "u16:" + std::to_string(img.bit_depth()));
}

bool one_error_line(const std::string& err) {
    return err.rfind("error: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

}  // namespace

TEST(CudaHost, EqualizeCliWritesRawRepeatsAndRefusesAMissingGpu) {
    const auto dir = test::temp_dir("eqcli");
    const Image img = test::gaussian(37, 19, 3, SampleType::U8, 8, 30.0);
    write_file(dir / "in.raw", bytes_of(img));
    const auto r =
        test::run_command(cli() + " equalize --raw " + raw_format(img) + " " + q(dir / "in.raw") +
                          " -o " + q(dir / "out.raw") + " --repeat 3 --timing --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EqualizeRequest req;
    req.image = img.view();
    EXPECT_EQ(test::slurp(dir / "out.raw"), bytes_of(equalize_reference(req)));
    EXPECT_NE(r.out.find("\"repeat\": 3"), std::string::npos) << r.out;
    // The cpu equalizer's global equalization: two passes over the pixels, timed as such.
    for (const char* stage :
         {"\"histogram\"", "\"lut\"", "\"apply\"", "\"engine_total\"", "\"write\""})
        EXPECT_NE(r.out.find(stage), std::string::npos) << stage << " in " << r.out;

    const auto bad =
        test::run_command(cli() + " equalize --raw " + raw_format(img) + " " + q(dir / "in.raw") +
                          " -o " + q(dir / "o.raw") + " --repeat 0");
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_TRUE(one_error_line(bad.err)) << bad.err;

    if (!cuda::device_available()) {
        const auto gpu =
            test::run_command(cli() + " equalize --raw " + raw_format(img) + " " +
                              q(dir / "in.raw") + " -o " + q(dir / "g.raw") + " --kernel gpu");
        EXPECT_EQ(gpu.exit_code, 4) << gpu.err;
        EXPECT_TRUE(one_error_line(gpu.err)) << gpu.err;
        EXPECT_FALSE(std::filesystem::exists(dir / "g.raw"));
    }
    std::filesystem::remove_all(dir);
}

TEST(GpuEqualizeCli, GpuKernelWritesWhatCpuWritesAndTimesItsStages) {
    if (!cuda::device_available())
        GTEST_SKIP() << "no CUDA device: " << cuda::query_devices().error;
    const auto dir = test::temp_dir("eqcli");
    const Image rgb = test::gaussian(301, 77, 3, SampleType::U8, 8, 25.0);
    const Image ref = test::uniform(64, 64, 3, SampleType::U8, 8, 3);
    const Image deep = test::gaussian(123, 45, 1, SampleType::U16, 12, 300.0);
    write_file(dir / "rgb.raw", bytes_of(rgb));
    write_file(dir / "ref.raw", bytes_of(ref));
    write_file(dir / "deep.raw", bytes_of(deep));
    const std::string rgb_in = " --raw " + raw_format(rgb) + " " + q(dir / "rgb.raw");
    const std::string deep_in = " --raw " + raw_format(deep) + " " + q(dir / "deep.raw");
    const std::vector<std::string> cases{
        rgb_in,
        rgb_in + " --space rgb --strength 0.37",
        rgb_in + " --mode clahe --clip 3 --tiles 7x5",
        rgb_in + " --mode match --reference " + q(dir / "ref.raw") + " --reference-raw " +
            raw_format(ref),
        deep_in + " --mode clahe",
        deep_in,
    };
    for (const std::string& args : cases) {
        SCOPED_TRACE(args);
        const auto cpu = test::run_command(cli() + " equalize" + args + " -o " + q(dir / "c.raw"));
        ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
        const auto gpu = test::run_command(cli() + " equalize" + args + " -o " + q(dir / "g.raw") +
                                           " --kernel gpu --repeat 2 --timing --format json");
        ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
        EXPECT_EQ(test::slurp(dir / "g.raw"), test::slurp(dir / "c.raw"));
        EXPECT_NE(gpu.out.find("\"kernel\": \"gpu\""), std::string::npos) << gpu.out;
        for (const char* stage :
             {"\"upload\"", "\"histogram\"", "\"lut\"", "\"apply\"", "\"download\""})
            EXPECT_NE(gpu.out.find(stage), std::string::npos) << stage << " in " << gpu.out;
    }
    std::filesystem::remove_all(dir);
}
