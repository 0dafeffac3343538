#include "json.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace hs::cli {

bool Json::is_number() const {
    return std::holds_alternative<std::int64_t>(v_) || std::holds_alternative<std::uint64_t>(v_) ||
           std::holds_alternative<double>(v_);
}

Json& Json::set(const std::string& key, Json value) {
    auto& obj = std::get<Object>(v_);
    for (auto& [k, v] : obj)
        if (k == key) return v = std::move(value);
    obj.emplace_back(key, std::move(value));
    return obj.back().second;
}

const Json& Json::at(const std::string& key) const {
    for (const auto& [k, v] : std::get<Object>(v_))
        if (k == key) return v;
    throw std::out_of_range("JSON object has no key '" + key + "'");
}

bool Json::contains(const std::string& key) const {
    if (!is_object()) return false;
    for (const auto& [k, v] : std::get<Object>(v_))
        if (k == key) return true;
    return false;
}

void Json::push(Json value) {
    std::get<Array>(v_).push_back(std::move(value));
}
const Json& Json::operator[](std::size_t i) const {
    return std::get<Array>(v_).at(i);
}
std::size_t Json::size() const {
    if (is_array()) return std::get<Array>(v_).size();
    if (is_object()) return std::get<Object>(v_).size();
    return 0;
}

std::int64_t Json::as_int() const {
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i;
    if (const auto* u = std::get_if<std::uint64_t>(&v_)) return static_cast<std::int64_t>(*u);
    return static_cast<std::int64_t>(std::get<double>(v_));
}
std::uint64_t Json::as_uint() const {
    if (const auto* u = std::get_if<std::uint64_t>(&v_)) return *u;
    if (const auto* i = std::get_if<std::int64_t>(&v_)) {
        if (*i < 0) throw std::runtime_error("JSON number is negative");
        return static_cast<std::uint64_t>(*i);
    }
    return static_cast<std::uint64_t>(std::get<double>(v_));
}
double Json::as_double() const {
    if (const auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&v_)) return static_cast<double>(*u);
    return std::get<double>(v_);
}
bool Json::as_bool() const {
    return std::get<bool>(v_);
}
const std::string& Json::as_string() const {
    return std::get<std::string>(v_);
}
const Json::Array& Json::as_array() const {
    return std::get<Array>(v_);
}
const Json::Object& Json::as_object() const {
    return std::get<Object>(v_);
}

namespace {

void escape(std::string& out, const std::string& s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

template <typename T>
void append_number(std::string& out, T value) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, end);
}

}  // namespace

std::string Json::dump(int indent) const {
    std::string out;
    dump_to(out, indent, 0);
    if (indent >= 0) out += '\n';
    return out;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
    const auto newline = [&](int d) {
        if (indent < 0) return;  // one line
        out += '\n';
        out.append(static_cast<std::size_t>(indent * d), ' ');
    };
    if (is_null()) {
        out += "null";
    } else if (const auto* b = std::get_if<bool>(&v_)) {
        out += *b ? "true" : "false";
    } else if (const auto* i = std::get_if<std::int64_t>(&v_)) {
        append_number(out, *i);
    } else if (const auto* u = std::get_if<std::uint64_t>(&v_)) {
        append_number(out, *u);
    } else if (const auto* d = std::get_if<double>(&v_)) {
        if (std::isfinite(*d))
            append_number(out, *d);  // shortest representation that round-trips
        else
            out += "null";
    } else if (const auto* s = std::get_if<std::string>(&v_)) {
        escape(out, *s);
    } else if (const auto* a = std::get_if<Array>(&v_)) {
        bool scalars = true;
        for (const auto& e : *a) scalars = scalars && !e.is_array() && !e.is_object();
        out += '[';
        for (std::size_t k = 0; k < a->size(); ++k) {
            if (k) out += scalars ? ", " : ",";
            if (!scalars) newline(depth + 1);
            (*a)[k].dump_to(out, indent, depth + 1);
        }
        if (!scalars && !a->empty()) newline(depth);
        out += ']';
    } else {
        const auto& o = std::get<Object>(v_);
        out += '{';
        for (std::size_t k = 0; k < o.size(); ++k) {
            if (k) out += indent < 0 ? ", " : ",";
            newline(depth + 1);
            escape(out, o[k].first);
            out += ": ";
            o[k].second.dump_to(out, indent, depth + 1);
        }
        if (!o.empty()) newline(depth);
        out += '}';
    }
}

namespace {

class Parser {
  public:
    explicit Parser(std::string_view t) : t_(t) {}

    Json document() {
        Json v = value();
        skip();
        if (p_ != t_.size()) fail("trailing characters");
        return v;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("JSON parse error at offset " + std::to_string(p_) + ": " + what);
    }
    void skip() {
        while (p_ < t_.size() &&
               (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t'))
            ++p_;
    }
    bool eat(char c) {
        skip();
        if (p_ < t_.size() && t_[p_] == c) {
            ++p_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    bool literal(std::string_view word) {
        if (t_.substr(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }

    Json value() {
        skip();
        if (p_ >= t_.size()) fail("unexpected end");
        const char c = t_[p_];
        if (c == '{') return object();
        if (c == '[') return array();
        if (c == '"') return Json(string());
        if (literal("true")) return Json(true);
        if (literal("false")) return Json(false);
        if (literal("null")) return Json();
        return number();
    }

    Json object() {
        expect('{');
        Json o = Json::object();
        if (eat('}')) return o;
        do {
            skip();
            std::string key = string();
            expect(':');
            o.set(key, value());
        } while (eat(','));
        expect('}');
        return o;
    }

    Json array() {
        expect('[');
        Json a = Json::array();
        if (eat(']')) return a;
        do a.push(value());
        while (eat(','));
        expect(']');
        return a;
    }

    std::string string() {
        if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string");
        ++p_;
        std::string s;
        while (p_ < t_.size() && t_[p_] != '"') {
            char c = t_[p_++];
            if (c == '\\') {
                if (p_ >= t_.size()) fail("bad escape");
                const char e = t_[p_++];
                switch (e) {
                    case 'n':
                        c = '\n';
                        break;
                    case 't':
                        c = '\t';
                        break;
                    case 'r':
                        c = '\r';
                        break;
                    case 'b':
                        c = '\b';
                        break;
                    case 'f':
                        c = '\f';
                        break;
                    case 'u': {
                        if (p_ + 4 > t_.size()) fail("bad \\u escape");
                        unsigned code = 0;
                        std::from_chars(t_.data() + p_, t_.data() + p_ + 4, code, 16);
                        p_ += 4;
                        if (code > 0x7F) fail("only ASCII \\u escapes are supported");
                        c = static_cast<char>(code);
                        break;
                    }
                    default:
                        c = e;
                }
            }
            s += c;
        }
        if (p_ >= t_.size()) fail("unterminated string");
        ++p_;
        return s;
    }

    Json number() {
        const std::size_t start = p_;
        bool is_float = false;
        while (p_ < t_.size() &&
               (std::isdigit(static_cast<unsigned char>(t_[p_])) || t_[p_] == '-' ||
                t_[p_] == '+' || t_[p_] == '.' || t_[p_] == 'e' || t_[p_] == 'E')) {
            is_float = is_float || t_[p_] == '.' || t_[p_] == 'e' || t_[p_] == 'E';
            ++p_;
        }
        const char* b = t_.data() + start;
        const char* e = t_.data() + p_;
        if (b == e) fail("unexpected character");
        if (!is_float) {
            if (*b == '-') {
                std::int64_t i = 0;
                if (std::from_chars(b, e, i).ptr == e) return Json(i);
            } else {
                std::uint64_t u = 0;
                if (std::from_chars(b, e, u).ptr == e) return Json(u);
            }
        }
        double d = 0;
        if (std::from_chars(b, e, d).ptr != e) fail("bad number");
        return Json(d);
    }

    std::string_view t_;
    std::size_t p_ = 0;
};

}  // namespace

Json Json::parse(std::string_view text) {
    return Parser(text).document();
}

}  // namespace hs::cli
