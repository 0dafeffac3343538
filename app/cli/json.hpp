#pragma once
// A small JSON value with a writer and a reader: enough for the CLI's machine-readable
// output and for the tests that read it back. Integers are kept as 64-bit integers so
// counts round-trip exactly.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hs::cli {

class Json {
  public:
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order

    Json() = default;  // null
    Json(std::nullptr_t) {}
    Json(bool b) : v_(b) {}
    Json(int i) : v_(static_cast<std::int64_t>(i)) {}
    Json(std::int64_t i) : v_(i) {}
    Json(std::uint64_t u) : v_(u) {}
    Json(double d) : v_(d) {}
    Json(const char* s) : v_(std::string(s)) {}
    Json(std::string s) : v_(std::move(s)) {}
    Json(std::string_view s) : v_(std::string(s)) {}
    Json(Array a) : v_(std::move(a)) {}
    Json(Object o) : v_(std::move(o)) {}

    static Json object() { return Json(Object{}); }
    static Json array() { return Json(Array{}); }

    bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
    bool is_number() const;
    bool is_string() const { return std::holds_alternative<std::string>(v_); }
    bool is_array() const { return std::holds_alternative<Array>(v_); }
    bool is_object() const { return std::holds_alternative<Object>(v_); }
    bool is_bool() const { return std::holds_alternative<bool>(v_); }

    // Object access: set() appends or replaces; at() throws std::out_of_range when missing.
    Json& set(const std::string& key, Json value);
    const Json& at(const std::string& key) const;
    bool contains(const std::string& key) const;
    // Array access.
    void push(Json value);
    const Json& operator[](std::size_t i) const;
    std::size_t size() const;

    std::int64_t as_int() const;
    std::uint64_t as_uint() const;
    double as_double() const;
    bool as_bool() const;
    const std::string& as_string() const;
    const Array& as_array() const;
    const Object& as_object() const;

    // Pretty-printed, ending in a newline; arrays of scalars stay on one line so 65536 counts
    // remain readable. A negative indent prints everything on one line, without the newline.
    std::string dump(int indent = 2) const;
    // Throws std::runtime_error with the offset of the first problem.
    static Json parse(std::string_view text);

  private:
    void dump_to(std::string& out, int indent, int depth) const;
    std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Array,
                 Object>
        v_;
};

}  // namespace hs::cli
