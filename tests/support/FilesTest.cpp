// support/Files.h: whole-file reads, and atomic writes that replace a file whole and leave no
// temporary behind, with errors that name the file.
#include "support/Files.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// A fresh, empty folder for one test case.
fs::path scratch(const std::string &Name) {
  fs::path Dir = fs::temp_directory_path() /
                 ("ptxcast-support-" + Name + "-" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  return Dir;
}

} // namespace

TEST_CASE("support files: an atomic write replaces the file whole and leaves nothing else") {
  fs::path Dir = scratch("write");
  const std::string Path = (Dir / "out.csv").string();
  REQUIRE(!support::writeFileAtomically(Path, "first\n"));
  REQUIRE(!support::writeFileAtomically(Path, std::string(100000, 'x')));
  auto Text = support::readFile(Path);
  REQUIRE(Text);
  CHECK(*Text == std::string(100000, 'x'));
  size_t Files = 0;
  for ([[maybe_unused]] const fs::directory_entry &E : fs::directory_iterator(Dir))
    ++Files;
  CHECK(Files == 1); // no temporary file left over
  fs::remove_all(Dir);
}

TEST_CASE("support files: bytes round-trip, including zeros") {
  fs::path Dir = scratch("bytes");
  const std::string Path = (Dir / "b.bin").string();
  const std::string Bytes("a\0b\0\xff", 5);
  REQUIRE(!support::writeFileAtomically(Path, Bytes));
  auto Back = support::readFile(Path);
  REQUIRE(Back);
  CHECK(*Back == Bytes);
  fs::remove_all(Dir);
}

TEST_CASE("support files: failures are errors naming the file") {
  fs::path Dir = scratch("fail");
  const std::string Missing = (Dir / "none" / "x.csv").string();
  auto E = support::writeFileAtomically(Missing, "x");
  REQUIRE(E);
  CHECK(E->str() == Missing + ": error: cannot write file");
  CHECK(!fs::exists(Dir / "none"));
  auto R = support::readFile(Missing);
  REQUIRE(!R);
  CHECK(R.error().str() == Missing + ": error: cannot open file");
  fs::remove_all(Dir);
}

TEST_CASE("support files: concurrent writers of one path leave one whole file") {
  fs::path Dir = scratch("race");
  const std::string Path = (Dir / "entry.txt").string();
  std::vector<std::thread> Writers;
  for (char C : std::string("abcdefgh"))
    Writers.emplace_back([&Path, C] {
      for (int K = 0; K < 20; ++K)
        (void)support::writeFileAtomically(Path, std::string(50000, C)); // checked below
    });
  for (std::thread &T : Writers)
    T.join();
  auto Text = support::readFile(Path);
  REQUIRE(Text);
  REQUIRE(Text->size() == 50000);
  CHECK(*Text == std::string(50000, Text->front())); // one writer's bytes, not a mix
  size_t Files = 0;
  for ([[maybe_unused]] const fs::directory_entry &E : fs::directory_iterator(Dir))
    ++Files;
  CHECK(Files == 1);
  fs::remove_all(Dir);
}
