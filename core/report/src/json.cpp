#include "histoscope/report/json.hpp"

#include <iostream>

namespace hs::report {

namespace {

class Printer {
  public:
    explicit Printer(int indent) : indent_(indent) {}

    void value(const Json& v, int depth) {
        if (v.is_object()) {
            out_ += '{';
            bool first = true;
            for (const auto& [key, item] : v.items()) {
                if (!first) out_ += indent_ < 0 ? ", " : ",";
                first = false;
                newline(depth + 1);
                scalar(Json(key));
                out_ += ": ";
                value(item, depth + 1);
            }
            if (!v.empty()) newline(depth);
            out_ += '}';
        } else if (v.is_array()) {
            bool scalars = true;
            for (const auto& e : v) scalars = scalars && !e.is_structured();
            out_ += '[';
            bool first = true;
            for (const auto& e : v) {
                if (!first) out_ += scalars ? ", " : ",";
                first = false;
                if (!scalars) newline(depth + 1);
                value(e, depth + 1);
            }
            if (!scalars && !v.empty()) newline(depth);
            out_ += ']';
        } else {
            scalar(v);
        }
    }

    std::string take() { return std::move(out_); }
    bool replaced() const { return replaced_; }

  private:
    void newline(int depth) {
        if (indent_ < 0) return;  // one line
        out_ += '\n';
        out_.append(static_cast<std::size_t>(indent_ * depth), ' ');
    }
    // nlohmann writes numbers (doubles: the shortest text that round-trips; NaN and infinities
    // as null) and escapes strings; its strict mode refuses invalid UTF-8.
    void scalar(const Json& v) {
        try {
            out_ += v.dump();
        } catch (const Json::type_error&) {
            out_ += v.dump(-1, ' ', false, Json::error_handler_t::replace);
            replaced_ = true;
        }
    }

    int indent_;
    std::string out_;
    bool replaced_ = false;
};

}  // namespace

std::string to_text(const Json& value, int indent) {
    Printer printer(indent);
    printer.value(value, 0);
    if (printer.replaced())
        std::cerr << "note: a string (such as a file name) is not valid UTF-8; the JSON holds "
                     "U+FFFD in place of its invalid bytes\n";
    std::string out = printer.take();
    if (indent >= 0) out += '\n';
    return out;
}

}  // namespace hs::report
