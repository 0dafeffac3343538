#include <sstream>

#include "commands.hpp"
#include "json.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/register.hpp"
#endif

namespace hs::cli {

int run_kernels(const Context& ctx, const KernelsCommand& cmd) {
    const std::string& format = cmd.output.format.value;

    Json devices = Json::array();
    std::string device_error = "this build has no CUDA engines";
#ifdef HS_HAVE_CUDA
    const cuda::DeviceQuery query = cuda::query_devices();
    device_error = query.error;
    for (const auto& d : query.devices) {
        Json j = Json::object();
        j["index"] = d.index;
        j["name"] = d.name;
        j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
        j["sm_count"] = d.sm_count;
        j["global_memory_bytes"] = static_cast<std::uint64_t>(d.global_memory);
        j["l2_bytes"] = static_cast<std::uint64_t>(d.l2_cache);
        j["shared_per_block_optin_bytes"] = static_cast<std::uint64_t>(d.shared_per_block_optin);
        j["peak_bandwidth_gbs"] = d.peak_bandwidth_gbs();
        devices.push_back(std::move(j));
    }
#endif

    std::string out;
    if (format == "json") {
        const auto list = [](const auto& engines) {
            Json all = Json::array();
            for (const auto& e : engines) {
                const Availability a = e->availability();
                Json k = Json::object();
                k["name"] = e->name();
                k["available"] = a.available;
                if (!a.available) k["reason"] = a.reason;
                k["description"] = e->description();
                all.push_back(std::move(k));
            }
            return all;
        };
        Json j = Json::object();
        j["kernels"] = list(ctx.registry.engines());
        j["equalizers"] = list(ctx.registry.equalizers());
        if (devices.size() == 0) j["device_error"] = device_error;
        j["devices"] = devices;
        out = to_text(j);
    } else {
        std::ostringstream os;
        const auto list = [&os](const auto& engines) {
            for (const auto& e : engines) {
                const Availability a = e->availability();
                os << e->name() << "\t" << (a.available ? "available" : "unavailable") << "\t"
                   << e->description();
                if (!a.available) os << " (" << a.reason << ")";
                os << "\n";
            }
        };
        list(ctx.registry.engines());
        os << "# equalizers (equalize --kernel NAME):\n";
        list(ctx.registry.equalizers());
        if (devices.size() == 0) os << "# GPU: none (" << device_error << ")\n";
        for (const auto& d : devices)
            os << "# GPU " << d.at("index").get<int>() << ": " << d.at("name").get<std::string>()
               << ", sm_" << d.at("compute_capability").get<std::string>() << ", "
               << d.at("sm_count").get<int>() << " SMs\n";
        out = os.str();
    }
    write_output(cmd.output.path, out);
    return 0;
}

}  // namespace hs::cli
