// Error values for malformed input: Error carries a file:line:col position, Expected<T> holds a T
// or an Error. Bugs are asserts; bad input is always one of these.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace support {

/// A diagnostic about bad input. Printed as `file:line:col: error: message`; line and col are
/// 1-based, 0 when unknown (then omitted).
struct Error {
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
template <class T> class Expected {
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

/// The error text of E, or "" when E holds a value: safe in messages that are evaluated either
/// way (e.g. doctest's REQUIRE_MESSAGE under -s).
template <class T> std::string errorText(const Expected<T> &E) { return E ? "" : E.error().str(); }

} // namespace support
