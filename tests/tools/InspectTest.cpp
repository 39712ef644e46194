// `ptxcast inspect` end to end: runs the binary on an nvcc-compiled kernel and on bad input and
// checks the JSON shape, totals, register counts and error reporting against the PTX text.
#include "RunPtxcast.h"
#include "ptx/Ir.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

using clitest::readAll;
using clitest::RunResult;
using clitest::runPtxcast;

std::string kernelPath(const std::string &Name) {
  return std::string(PTXCAST_KERNEL_DIR) + "/" + Name;
}

/// The body of `.entry Name` in PTX text, from its opening brace to the closing one.
std::string entryBody(const std::string &Text, const std::string &Name) {
  size_t Start = Text.find(".entry " + Name + "(");
  REQUIRE(Start != std::string::npos);
  size_t Open = Text.find("\n{", Start);
  size_t Close = Text.find("\n}", Open);
  REQUIRE(Close != std::string::npos);
  return Text.substr(Open, Close - Open);
}

/// Instructions in a body, counted from the text: lines ending in ';' that are not directives.
uint64_t countInstructionLines(const std::string &Body) {
  std::istringstream In(Body);
  uint64_t N = 0;
  for (std::string Line; std::getline(In, Line);) {
    size_t First = Line.find_first_not_of(" \t");
    if (First == std::string::npos || Line[First] == '.' || Line.compare(First, 2, "//") == 0)
      continue;
    size_t Last = Line.find_last_not_of(" \t\r");
    N += Line[Last] == ';';
  }
  return N;
}

/// Registers declared by `.reg .T %name<N>;` (N each) and `.reg .T %name;` (1 each).
uint64_t countRegistersInText(const std::string &Body) {
  std::regex Decl(R"(\.reg\s+\.\w+\s+%\w+(<(\d+)>)?\s*;)");
  uint64_t N = 0;
  for (auto It = std::sregex_iterator(Body.begin(), Body.end(), Decl); It != std::sregex_iterator();
       ++It)
    N += (*It)[2].matched ? std::stoull((*It)[2].str()) : 1;
  return N;
}

} // namespace

TEST_CASE("inspect --format json: shape, totals and registers match the PTX text") {
  std::string Path = kernelPath("elementwise.sm_90.ptx");
  if (!std::filesystem::exists(Path)) {
    REQUIRE_MESSAGE(std::string(PTXCAST_NVCC).empty(), Path << " was not built");
    return;
  }
  RunResult R = runPtxcast("inspect " + Path + " --format json");
  REQUIRE(R.status == 0);
  CHECK(R.err.empty());
  nlohmann::json J = nlohmann::json::parse(R.out);
  REQUIRE(J.is_object());
  CHECK(J.size() == 1);
  REQUIRE(J["kernels"].is_array());
  REQUIRE(J["kernels"].size() == 2);
  std::string Text = readAll(Path);
  const char *Names[] = {"saxpy", "bias_relu"};
  for (int K = 0; K < 2; ++K) {
    const nlohmann::json &Kern = J["kernels"][K];
    CAPTURE(Names[K]);
    CHECK(Kern["name"] == Names[K]);
    CHECK(Kern["entry"] == true);
    for (const char *Key :
         {"params", "registers", "estimated_registers_per_thread", "static_shared_bytes",
          "interpreter_unsupported", "blocks", "loops", "max_loop_depth"})
      CHECK(Kern.contains(Key));
    CHECK(Kern.size() == 11);
    CHECK(Kern["interpreter_unsupported"].empty()); // nvcc's plain kernels run
    CHECK(Kern["estimated_registers_per_thread"].get<int>() > 0);
    CHECK(Kern["static_shared_bytes"] == 0);
    const nlohmann::json &Counts = Kern["static_counts"];
    REQUIRE(Counts.size() == ptx::NumInstrClasses + 1);
    uint64_t Sum = 0;
    for (size_t I = 0; I < ptx::NumInstrClasses; ++I) {
      std::string Class(ptx::className(static_cast<ptx::InstrClass>(I)));
      REQUIRE_MESSAGE(Counts.contains(Class), Class);
      Sum += Counts[Class].get<uint64_t>();
    }
    CHECK(Counts["total"].get<uint64_t>() == Sum);
    std::string Body = entryBody(Text, Names[K]);
    CHECK(Counts["total"].get<uint64_t>() == countInstructionLines(Body));
    CHECK(Kern["registers"].get<uint64_t>() == countRegistersInText(Body));
    // A grid-stride loop: at least one loop, none nested.
    CHECK(Kern["loops"].get<int>() >= 1);
    CHECK(Kern["max_loop_depth"] == 1);
    CHECK(Counts["st_global"].get<int>() >= 1);
    CHECK(Counts["ld_param"].get<int>() == (K == 0 ? 4 : 6)); // one ld.param per parameter
  }
  // saxpy(int n, float a, const float *x, float *y)
  const nlohmann::json &P = J["kernels"][0]["params"];
  REQUIRE(P.size() == 4);
  CHECK(P[0] == nlohmann::json({{"name", "saxpy_param_0"}, {"type", "u32"}, {"size", 4}}));
  CHECK(P[1] == nlohmann::json({{"name", "saxpy_param_1"}, {"type", "f32"}, {"size", 4}}));
  CHECK(P[2] == nlohmann::json({{"name", "saxpy_param_2"}, {"type", "u64"}, {"size", 8}}));
  CHECK(P[3] == nlohmann::json({{"name", "saxpy_param_3"}, {"type", "u64"}, {"size", 8}}));
}

TEST_CASE("inspect text output names each function and its totals") {
  std::string Path = kernelPath("devicecall.sm_90.ptx");
  if (!std::filesystem::exists(Path)) {
    REQUIRE_MESSAGE(std::string(PTXCAST_NVCC).empty(), Path << " was not built");
    return;
  }
  RunResult R = runPtxcast("inspect " + Path);
  REQUIRE(R.status == 0);
  CHECK(R.out.find("poly (.func)") != std::string::npos);
  CHECK(R.out.find("call_poly (.entry)") != std::string::npos);
  // The resource estimate is for kernels only: one line, after the kernel's name.
  size_t Resources = R.out.find("resources ");
  CHECK(Resources > R.out.find("call_poly (.entry)"));
  CHECK(R.out.find("resources ", Resources + 1) == std::string::npos);
  CHECK(R.out.find("total") != std::string::npos);
  CHECK(R.out.find("2 function(s) with a body") != std::string::npos);
}

TEST_CASE("inspect on llc-19 output") {
  RunResult R = runPtxcast("inspect " + kernelPath("loop_ll.llc.ptx") + " --format json");
  REQUIRE(R.status == 0);
  nlohmann::json J = nlohmann::json::parse(R.out);
  REQUIRE(J["kernels"].size() == 1);
  CHECK(J["kernels"][0]["name"] == "loop_ll");
  CHECK(J["kernels"][0]["loops"] == 1);
}

TEST_CASE("inspect reports a parse error with its position and exits 1") {
  std::filesystem::path Bad =
      std::filesystem::temp_directory_path() / ("ptxcast_bad_" + std::to_string(getpid()) + ".ptx");
  {
    std::ofstream Out(Bad);
    Out << ".version 8.0\n.target sm_90\n.address_size 64\n"
           ".visible .entry k()\n{\n  frobnicate.u32 %r1, 2;\n  ret;\n}\n";
  }
  RunResult R = runPtxcast("inspect " + Bad.string() + " --format json");
  std::filesystem::remove(Bad);
  CHECK(R.status == 1);
  CHECK(R.out.empty());
  // `file:line:col: error: message` pointing at line 6, column 3 (the unknown opcode).
  CHECK(R.err.rfind(Bad.string() + ":6:3: error: ", 0) == 0);
  CHECK(R.err.find("frobnicate") != std::string::npos);
}

TEST_CASE("inspect on a missing file exits 1 with an error naming it") {
  std::string Missing = "/nonexistent/dir/none.ptx";
  RunResult R = runPtxcast("inspect " + Missing);
  CHECK(R.status == 1);
  CHECK(R.out.empty());
  CHECK(R.err.rfind(Missing + ": error: ", 0) == 0);
}

TEST_CASE("inspect rejects an unknown --format") {
  RunResult R = runPtxcast("inspect " + kernelPath("loop_ll.llc.ptx") + " --format xml");
  CHECK(R.status != 0);
  CHECK(R.out.empty());
  CHECK(R.err.find("xml") != std::string::npos);
}

TEST_CASE("inspect says which kernels the interpreter cannot run, and where") {
  std::filesystem::path Ptx = std::filesystem::temp_directory_path() /
                              ("ptxcast_unsup_" + std::to_string(getpid()) + ".ptx");
  {
    std::ofstream Out(Ptx);
    Out << ".version 8.0\n.target sm_90\n.address_size 64\n"
           ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
           ".visible .entry ok()\n{\n  ret;\n}\n"
           ".visible .entry says()\n{\n  .reg .b32 %r<2>;\n"
           "  { .param .b64 f; .param .b64 a; .param .b32 r;\n"
           "    st.param.b64 [f], 0;\n    st.param.b64 [a], 0;\n"
           "    call.uni (r), vprintf, (f, a);\n  }\n  ret;\n}\n";
  }
  RunResult Text = runPtxcast("inspect " + Ptx.string());
  RunResult Json = runPtxcast("inspect " + Ptx.string() + " --format json");
  std::filesystem::remove(Ptx);
  REQUIRE(Text.status == 0);
  CHECK(Text.out.find("interpreter     runs it") != std::string::npos);
  CHECK(Text.out.find("interpreter     cannot run it (1 instruction(s)):") != std::string::npos);
  CHECK(Text.out.find(Ptx.string() + ":15:5: error: unsupported instruction 'call.uni'") !=
        std::string::npos);
  REQUIRE(Json.status == 0);
  nlohmann::json J = nlohmann::json::parse(Json.out);
  REQUIRE(J["kernels"].size() == 2);
  CHECK(J["kernels"][0]["interpreter_unsupported"].empty());
  CHECK(J["kernels"][1]["interpreter_unsupported"].size() == 1);
}

TEST_CASE("inspect lists where a kernel reads a struct parameter, to write its manifest") {
  std::filesystem::path Ptx = std::filesystem::temp_directory_path() /
                              ("ptxcast_struct_" + std::to_string(getpid()) + ".ptx");
  std::ofstream(Ptx) << ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry s(.param .align 8 .b8 p[24], .param .u32 n)\n{\n"
                        "  .reg .b32 %r<3>;\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<3>;\n"
                        "  ld.param.u64 %rd1, [p+8];\n  ld.param.u32 %r1, [p];\n"
                        "  ld.param.f32 %f1, [p+4];\n  ld.param.u64 %rd2, [p+8];\n"
                        "  ld.param.u32 %r2, [n];\n  ret;\n}\n"
                        ".visible .entry t(.param .align 8 .b8 q[16])\n{\n"
                        "  .reg .b64 %rd<2>;\n  mov.u64 %rd1, q;\n  ret;\n}\n";
  RunResult Text = runPtxcast("inspect " + Ptx.string());
  RunResult Json = runPtxcast("inspect " + Ptx.string() + " --format json");
  std::filesystem::remove(Ptx);
  REQUIRE(Text.status == 0);
  CHECK(Text.out.find("      reads +0 u32, +4 f32, +8 u64\n") != std::string::npos);
  CHECK(Text.out.find("      reads address taken\n") != std::string::npos);
  REQUIRE(Json.status == 0);
  nlohmann::json J = nlohmann::json::parse(Json.out);
  const nlohmann::json &P = J["kernels"][0]["params"];
  REQUIRE(P[0]["reads"].size() == 3);
  CHECK(P[0]["reads"][2] == nlohmann::json{{"offset", 8}, {"type", "u64"}});
  CHECK(P[0]["address_taken"] == false);
  CHECK_FALSE(P[1].contains("reads")); // a scalar parameter
  CHECK(J["kernels"][1]["params"][0]["address_taken"] == true);
}
