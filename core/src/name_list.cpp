#include "histoscope/core/name_list.hpp"

#include <algorithm>

#include "histoscope/core/error.hpp"

namespace hs {

std::vector<std::string> expand_all(std::string_view list,
                                    const std::vector<std::string_view>& all) {
    std::vector<std::string> items;
    for (std::size_t start = 0;;) {
        const std::size_t comma = list.find(',', start);
        items.emplace_back(
            list.substr(start, comma == std::string_view::npos ? list.npos : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string& item = items[i];
        if (std::find(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(i), item) !=
            items.begin() + static_cast<std::ptrdiff_t>(i))
            throw UsageError(item == "all" ? std::string("'all' is listed twice")
                                           : "channel '" + item + "' is listed twice");
        const auto add = [&](std::string_view name) {
            if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
        };
        if (item == "all")
            for (std::string_view name : all) add(name);
        else
            add(item);
    }
    return out;
}

}  // namespace hs
