#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "json.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/register.hpp"
#endif

namespace hs::cli {

int run_kernels(const Context& ctx) {
    const Args args(ctx.args, {{"--format", "-o"}, {}});
    const std::string format = args.value("--format").value_or("text");
    if (format != "text" && format != "json")
        throw UsageError("--format for kernels must be text or json, not '" + format + "'");
    if (!args.positional().empty())
        throw UsageError("kernels takes no argument, got '" + args.positional().front() + "'");

    Json devices = Json::array();
    std::string device_error = "this build has no CUDA engines";
#ifdef HS_HAVE_CUDA
    const cuda::DeviceQuery query = cuda::query_devices();
    device_error = query.error;
    for (const auto& d : query.devices) {
        Json j = Json::object();
        j.set("index", d.index);
        j.set("name", d.name);
        j.set("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
        j.set("sm_count", d.sm_count);
        j.set("global_memory_bytes", static_cast<std::uint64_t>(d.global_memory));
        j.set("l2_bytes", static_cast<std::uint64_t>(d.l2_cache));
        j.set("shared_per_block_optin_bytes", static_cast<std::uint64_t>(d.shared_per_block_optin));
        j.set("peak_bandwidth_gbs", d.peak_bandwidth_gbs());
        devices.push(std::move(j));
    }
#endif

    std::string out;
    if (format == "json") {
        const auto list = [](const auto& engines) {
            Json all = Json::array();
            for (const auto& e : engines) {
                const Availability a = e->availability();
                Json k = Json::object();
                k.set("name", e->name());
                k.set("available", a.available);
                if (!a.available) k.set("reason", a.reason);
                k.set("description", e->description());
                all.push(std::move(k));
            }
            return all;
        };
        Json j = Json::object();
        j.set("kernels", list(ctx.registry.engines()));
        j.set("equalizers", list(ctx.registry.equalizers()));
        if (devices.size() == 0) j.set("device_error", device_error);
        j.set("devices", devices);
        out = j.dump();
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
        for (const auto& d : devices.as_array())
            os << "# GPU " << d.at("index").as_int() << ": " << d.at("name").as_string() << ", sm_"
               << d.at("compute_capability").as_string() << ", " << d.at("sm_count").as_int()
               << " SMs\n";
        out = os.str();
    }
    write_output(args.value("-o").value_or(""), out);
    return 0;
}

}  // namespace hs::cli
