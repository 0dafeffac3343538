#pragma once
// Typed errors shared by every layer. Each carries one readable line; the CLI maps the
// kind to its exit code (2 usage, 3 input, 4 device).

#include <stdexcept>
#include <string>

namespace hs {

enum class ErrorKind { Usage, Input, Device, Unsupported };

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

  private:
    ErrorKind kind_;
};

// A request the caller got wrong (bad option, channel the image lacks, bad spec).
struct UsageError : Error {
    explicit UsageError(const std::string& m) : Error(ErrorKind::Usage, m) {}
};
// Input data that cannot be used (unreadable, corrupt, truncated, wrong size).
struct InputError : Error {
    explicit InputError(const std::string& m) : Error(ErrorKind::Input, m) {}
};
// The GPU failed, is missing or ran out of memory.
struct DeviceError : Error {
    explicit DeviceError(const std::string& m) : Error(ErrorKind::Device, m) {}
};
// An engine was asked for something its capabilities exclude.
struct UnsupportedError : Error {
    explicit UnsupportedError(const std::string& m) : Error(ErrorKind::Unsupported, m) {}
};

}  // namespace hs
