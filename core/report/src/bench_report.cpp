#include "histoscope/report/bench_report.hpp"

#include <sstream>

namespace hs::report {

namespace {

Json row_json(const BenchRow& r) {
    Json o = Json::object();
    o["input"] = r.input;
    o["width"] = r.width;
    o["height"] = r.height;
    o["image_channels"] = r.image_channels;
    o["depth"] = r.depth;
    o["bytes"] = r.bytes;
    o["channels"] = r.channels;
    o["spec"] = r.spec;
    o["bins"] = r.bins;
    o["kernel"] = r.kernel;
    o["status"] = r.status;
    if (!r.reason.empty()) o["reason"] = r.reason;
    if (r.status == "ok") {
        o["median_ms"] = r.median_ms;
        o["min_ms"] = r.min_ms;
        o["runs"] = r.runs;
        o["input_copies"] = r.input_copies;
        o["gpix_s"] = r.gpix_s;
        o["gb_s"] = r.gb_s;
        o["pct_read_bw"] = r.pct_read_bw;
        o["end_to_end_median_ms"] = r.end_to_end_median_ms;
        if (r.back_to_back_ms > 0) o["back_to_back_ms"] = r.back_to_back_ms;
        if (r.floor_ratio > 0) o["floor_ratio"] = r.floor_ratio;
        if (r.back_to_back_floor_ratio > 0)
            o["back_to_back_floor_ratio"] = r.back_to_back_floor_ratio;
        o["verified"] = r.verified;
    }
    o["floor"] = r.floor;
    return o;
}

}  // namespace

Json bench_json(const BenchContext& c, const std::vector<BenchRow>& rows) {
    Json results = Json::array();
    for (const BenchRow& r : rows) results.push_back(row_json(r));
    return {{"device", c.device},
            {"read_bandwidth_gbs", c.device_read_bandwidth_gbs},
            {"cpu", c.cpu},
            {"host_read_bandwidth_gbs", c.host_read_bandwidth_gbs},
            {"timed_runs", c.timed_runs},
            {"warmup_runs", c.warmup_runs},
            {"rotate_bytes", c.rotate_bytes},
            {"date", c.date},
            {"version", c.version},
            {"results", std::move(results)}};
}

std::string bench_csv(const BenchContext& c, const std::vector<BenchRow>& rows) {
    // The columns are the keys of a row's JSON, then those of the context, in the same order:
    // every line is a whole record, so any CSV reader takes the file as it is.
    const Json full = row_json([] {
        BenchRow r;
        r.reason = "-";
        r.back_to_back_ms = r.floor_ratio = r.back_to_back_floor_ratio = 1;
        return r;
    }());
    Json context = bench_json(c, {});
    context.erase("results");
    std::ostringstream os;
    bool first = true;
    for (const Json* part : std::initializer_list<const Json*>{&full, &context})
        for (const auto& [key, unused] : part->items()) {
            os << (first ? "" : ",") << key;
            first = false;
        }
    os << "\n";
    const auto field = [&](const Json& v) {
        os << (v.is_string() ? csv_field(v.get<std::string>()) : to_text(v, -1));
    };
    for (const BenchRow& r : rows) {
        const Json j = row_json(r);
        first = true;
        for (const auto& [key, unused] : full.items()) {
            os << (first ? "" : ",");
            first = false;
            if (j.contains(key)) field(j.at(key));
        }
        for (const auto& [key, value] : context.items()) {
            os << ",";
            field(value);
        }
        os << "\n";
    }
    return os.str();
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

}  // namespace hs::report
