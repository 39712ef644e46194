// Helpers for interpreter tests: parse + decode PTX text and run one launch on a fresh Device.
#pragma once

#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

namespace interp_test {

/// Parses and decodes `Text` as file "k.ptx"; fails the test on error.
inline analyzer::Program decode(const std::string &Text) {
  support::Expected<ptx::Module> M = ptx::parseModule(Text, "k.ptx");
  if (!M)
    FAIL("parse: " << M.error().str());
  support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
  if (!P)
    FAIL("decode: " << P.error().str());
  return std::move(*P);
}

/// The standard PTX header for test modules.
inline std::string module(const std::string &Body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n" + Body;
}

template <class T> std::vector<T> readBuffer(analyzer::Device &D, const std::string &Name) {
  const analyzer::Buffer *B = D.find(Name);
  REQUIRE(B != nullptr);
  std::vector<T> Out(B->bytes() / sizeof(T));
  std::memcpy(Out.data(), B->data.data(), Out.size() * sizeof(T));
  return Out;
}

template <class T>
uint64_t makeBuffer(analyzer::Device &D, const std::string &Name, const std::vector<T> &Init) {
  support::Expected<uint64_t> A = D.allocate(Name, Init.size() * sizeof(T));
  REQUIRE(A);
  std::memcpy(D.find(Name)->data.data(), Init.data(), Init.size() * sizeof(T));
  return *A;
}

/// Runs `Kernel(.param .u64 out)` of module body `Body` on one CTA of `Threads` threads with
/// `out` a buffer of `N` u32 (0xdeadbeef); fails the test on a trap; returns `out`.
inline std::vector<uint32_t> runOut(const std::string &Body, const std::string &Kernel,
                                    size_t N = 32, uint32_t Threads = 1) {
  analyzer::Program P = decode(module(Body));
  analyzer::Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(N, 0xdeadbeef));
  analyzer::LaunchConfig L;
  L.block = {Threads, 1, 1};
  L.args = {analyzer::KernelArg::pointer(Out)};
  analyzer::RunResult R = analyzer::runKernel(P, Kernel, L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  return readBuffer<uint32_t>(D, "out");
}

inline uint64_t cls(const analyzer::ClassArray &A, ptx::InstrClass C) {
  return A[static_cast<size_t>(C)];
}

} // namespace interp_test
