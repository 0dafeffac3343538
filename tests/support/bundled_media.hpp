#pragma once
// The bundled photos and every frame of the bundled clips, for suites that run on a GPU host
// without OpenCV: decoded with hs::media when the build has OpenCV, else read from the raw dumps
// that `scripts/gpu.sh check` writes with Python cv2 (NAME.WxHxC.TYPE.raw, every frame of a clip
// back to back) into the folders named by $HS_RAW_PHOTOS and $HS_RAW_CLIPS. Empty when neither
// is there.

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

namespace hs::test {

struct BundledMedia {
    std::string name;  // the bundled file's name
    std::vector<Image> frames;
};

// Every NAME.WxHxC.TYPE.raw in the folder named by $variable.
inline std::vector<BundledMedia> raw_dumps(const char* variable) {
    std::vector<BundledMedia> out;
    const char* dir = std::getenv(variable);
    if (dir == nullptr) return out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        const auto end = file.rfind(".raw");
        if (end == std::string::npos || end == 0) continue;
        const auto type_dot = file.rfind('.', end - 1);
        const auto dims_dot = file.rfind('.', type_dot - 1);
        if (type_dot == std::string::npos || dims_dot == std::string::npos) continue;
        const std::string format = file.substr(dims_dot + 1, type_dot - dims_dot - 1) + ":" +
                                   file.substr(type_dot + 1, end - type_dot - 1);
        out.push_back(
            {file.substr(0, dims_dot),
             media::read_raw(entry.path().string(), media::parse_raw_format(format)).frames});
    }
    return out;
}

inline std::vector<BundledMedia> bundled_photos() {
    if (!media::have_opencv()) return raw_dumps("HS_RAW_PHOTOS");
    std::vector<BundledMedia> out;
    for (const auto* names : {&kPhotos8, &kPhotos16})
        for (const auto& name : *names) {
            BundledMedia m{name, {}};
            m.frames.push_back(std::move(media::read_image(sample(name)).image));
            out.push_back(std::move(m));
        }
    return out;
}

inline const std::vector<std::string> kClips{"tree.avi", "Megamind.avi", "starry_pan_4k.mp4"};

inline std::vector<BundledMedia> bundled_clips() {
    if (!media::have_opencv()) return raw_dumps("HS_RAW_CLIPS");
    std::vector<BundledMedia> out;
    for (const auto& name : kClips) {
        media::VideoReader video(sample(name));
        BundledMedia m{name, {}};
        while (auto f = video.read()) m.frames.push_back(std::move(*f));
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace hs::test
