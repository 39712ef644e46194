// Error values for malformed input: Error carries a file:line:col position, Expected<T> holds a T
// or an Error, MaybeError is what an operation that yields nothing returns. Bugs are asserts; bad
// input is always one of these. All three are [[nodiscard]]: a failure cannot be dropped unseen
// (a caller that means to ignore one says so with a (void) cast and a comment).
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace support {

/// A diagnostic about bad input. Printed as `file:line:col: error: message`; line and col are
/// 1-based, 0 when unknown (then omitted).
struct [[nodiscard]] Error {
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
  std::string message;

  Error() = default;
  explicit Error(std::string Message) : message(std::move(Message)) {}
  Error(std::string File, uint32_t Line, uint32_t Col, std::string Message)
      : file(std::move(File)), line(Line), col(Col), message(std::move(Message)) {}

  std::string str() const {
    std::string S;
    if (!file.empty())
      S += file + ":";
    if (line != 0) {
      S += std::to_string(line) + ":";
      if (col != 0)
        S += std::to_string(col) + ":";
    }
    if (!S.empty())
      S += " ";
    return S + "error: " + message;
  }
};

/// Either a value or an Error. Check with `if (!E)` before `*E`.
template <class T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : V(std::move(Value)) {}
  Expected(Error E) : V(std::move(E)) {}

  explicit operator bool() const { return V.index() == 0; }
  T &operator*() {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(V);
  }
  const T &operator*() const {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(V);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  const Error &error() const {
    assert(!*this && "asking an Expected that holds a value for its error");
    return std::get<1>(V);
  }

private:
  std::variant<T, Error> V;
};

/// What an operation that yields nothing returns: empty on success, else the Error. Tested the
/// way llvm::Error is, `if (auto E = save(Path)) return *E;` (true means failure).
class [[nodiscard]] MaybeError : public std::optional<Error> {
public:
  MaybeError() = default;
  MaybeError(std::nullopt_t) {}
  MaybeError(Error E) : std::optional<Error>(std::move(E)) {}
  MaybeError(std::optional<Error> E) : std::optional<Error>(std::move(E)) {}
};

/// The error text of E, or "" when E holds a value: safe in messages that are evaluated either
/// way (e.g. doctest's REQUIRE_MESSAGE under -s).
template <class T> std::string errorText(const Expected<T> &E) { return E ? "" : E.error().str(); }

} // namespace support
