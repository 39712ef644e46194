// CFG tests: successors, dominators, post-dominators and natural loops on small hand-checked PTX
// functions (expected values derived by hand in the comments), then on the real test kernels
// against a simple independent reference (iterative set-based dominators).
#include "ptx/Cfg.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using ptx::Cfg;
using Blocks = std::vector<uint32_t>;
constexpr uint32_t None = Cfg::None;

namespace {

/// Wraps a kernel body in a module and parses it; the test fails if it does not parse.
ptx::Module parseKernel(const std::string &Body) {
  std::string Text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u32 p)\n{\n"
                     "  .reg .pred %p<4>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<4>;\n" +
                     Body + "}\n";
  support::Expected<ptx::Module> M = ptx::parseModule(Text, "cfg.ptx");
  if (!M)
    FAIL(M.error().str());
  REQUIRE(M->functions.size() == 1);
  return *M;
}

Cfg cfgOf(const ptx::Module &M) { return ptx::buildCfg(M.functions[0]); }

std::vector<Blocks> succsOf(const Cfg &C) { return C.succs; }

} // namespace

TEST_CASE("cfg: if/else diamond") {
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra ELSE;
  add.s32 %r2, %r1, 1;            // B1
  bra.uni JOIN;
ELSE:                             // B2
  sub.s32 %r2, %r1, 1;
JOIN:                             // B3
  ret;
)");
  REQUIRE(M.functions[0].blocks.size() == 4);
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1, 2}, {3}, {3}, {}});
  CHECK(C.preds == std::vector<Blocks>{{}, {0}, {0}, {1, 2}});
  CHECK(C.idom == Blocks{None, 0, 0, 0});
  CHECK(C.ipdom == Blocks{3, 3, 3, None});
  CHECK(C.loops.empty());
  CHECK(C.loopDepth == Blocks{0, 0, 0, 0});
  CHECK(C.dominates(0, 3));
  CHECK_FALSE(C.dominates(1, 3));
  CHECK(C.postDominates(3, 0));
  CHECK_FALSE(C.postDominates(1, 0));
}

TEST_CASE("cfg: while loop") {
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  mov.u32 %r2, 0;
HEAD:                             // B1
  setp.ge.s32 %p1, %r2, %r1;
  @%p1 bra DONE;
  add.s32 %r2, %r2, 1;            // B2
  bra.uni HEAD;
DONE:                             // B3
  ret;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1}, {2, 3}, {1}, {}});
  CHECK(C.idom == Blocks{None, 0, 1, 1});
  CHECK(C.ipdom == Blocks{1, 3, 1, None});
  REQUIRE(C.loops.size() == 1);
  CHECK(C.loops[0].header == 1);
  CHECK(C.loops[0].blocks == Blocks{1, 2});
  CHECK(C.loops[0].latches == Blocks{2});
  CHECK(C.loops[0].parent == None);
  CHECK(C.loops[0].depth == 1);
  CHECK(C.loopDepth == Blocks{0, 1, 1, 0});
}

TEST_CASE("cfg: nested do-while loops") {
  ptx::Module M = parseKernel(R"(
  mov.u32 %r1, 0;                 // B0
OUTER:                            // B1
  mov.u32 %r2, 0;
INNER:                            // B2
  add.s32 %r2, %r2, 1;
  setp.lt.s32 %p1, %r2, 4;
  @%p1 bra INNER;
  add.s32 %r1, %r1, 1;            // B3
  setp.lt.s32 %p2, %r1, 8;
  @%p2 bra OUTER;
  ret;                            // B4
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1}, {2}, {2, 3}, {1, 4}, {}});
  CHECK(C.idom == Blocks{None, 0, 1, 2, 3});
  CHECK(C.ipdom == Blocks{1, 2, 3, 4, None});
  REQUIRE(C.loops.size() == 2);
  // Outer loop first.
  CHECK(C.loops[0].header == 1);
  CHECK(C.loops[0].blocks == Blocks{1, 2, 3});
  CHECK(C.loops[0].latches == Blocks{3});
  CHECK(C.loops[0].parent == None);
  CHECK(C.loops[0].depth == 1);
  CHECK(C.loops[1].header == 2);
  CHECK(C.loops[1].blocks == Blocks{2});
  CHECK(C.loops[1].latches == Blocks{2}); // self loop
  CHECK(C.loops[1].parent == 0);
  CHECK(C.loops[1].depth == 2);
  CHECK(C.loopDepth == Blocks{0, 1, 2, 1, 0});
}

TEST_CASE("cfg: loop with a break") {
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r9, [p];          // B0
  mov.u32 %r1, 0;
HEAD:                             // B1
  setp.ge.s32 %p1, %r1, %r9;
  @%p1 bra EXIT;
  and.b32 %r3, %r1, 5;            // B2
  setp.eq.s32 %p2, %r3, 5;
  @%p2 bra EXIT;
  add.s32 %r1, %r1, 1;            // B3
  bra.uni HEAD;
EXIT:                             // B4
  ret;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1}, {2, 4}, {3, 4}, {1}, {}});
  CHECK(C.idom == Blocks{None, 0, 1, 2, 1});
  // B2 -> B4 directly, or B2 -> B3 -> B1 -> ...: only B4 is on every path.
  CHECK(C.ipdom == Blocks{1, 4, 4, 1, None});
  REQUIRE(C.loops.size() == 1);
  CHECK(C.loops[0].header == 1);
  CHECK(C.loops[0].blocks == Blocks{1, 2, 3});
  CHECK(C.loops[0].latches == Blocks{3});
  CHECK(C.loopDepth == Blocks{0, 1, 1, 1, 0});
}

TEST_CASE("cfg: early returns") {
  SUBCASE("unguarded ret in one arm") {
    ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra WORK;
  ret;                            // B1
WORK:                             // B2
  add.s32 %r2, %r1, 1;
  ret;
)");
    Cfg C = cfgOf(M);
    CHECK(succsOf(C) == std::vector<Blocks>{{1, 2}, {}, {}});
    CHECK(C.idom == Blocks{None, 0, 0});
    CHECK(C.ipdom == Blocks{None, None, None}); // the arms meet only at the virtual exit
  }
  SUBCASE("guarded ret: its lanes leave, so the fall-through does not post-dominate") {
    ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra SKIP;
  setp.lt.s32 %p2, %r1, 0;        // B1
  @%p2 ret;
  add.s32 %r1, %r1, 1;            // B2
SKIP:                             // B3
  ret;
)");
    REQUIRE(M.functions[0].blocks.size() == 4);
    Cfg C = cfgOf(M);
    CHECK(succsOf(C) == std::vector<Blocks>{{1, 3}, {2}, {3}, {}});
    CHECK(C.idom == Blocks{None, 0, 1, 0});
    CHECK(C.ipdom == Blocks{None, None, 3, None});
    CHECK_FALSE(C.postDominates(2, 1));
  }
}

TEST_CASE("cfg: an unreachable block that is a predecessor (Boost 1.74 pitfall)") {
  // DEAD (B1) branches into L2 (B4) but nothing reaches DEAD. Boost's 3-argument
  // lengauer_tarjan_dominator_tree gives DEAD the entry's DFS number and makes it idom(B4).
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  bra.uni L1;
DEAD:                             // B1
  add.s32 %r1, %r1, 5;
  bra.uni L2;
L1:                               // B2
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra L3;
  add.s32 %r1, %r1, 1;            // B3
L2:                               // B4
  add.s32 %r1, %r1, 2;
L3:                               // B5
  ret;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{2}, {4}, {3, 5}, {4}, {5}, {}});
  CHECK(C.preds[4] == Blocks{1, 3});
  CHECK(C.reachable == std::vector<bool>{true, false, true, true, true, true});
  CHECK(C.idom == Blocks{None, None, 0, 2, 3, 2});
  CHECK(C.ipdom == Blocks{2, 4, 5, 4, 5, None});
  CHECK_FALSE(C.dominates(1, 4));
  CHECK_FALSE(C.dominates(0, 1)); // unreachable blocks are dominated by nothing else
  CHECK(C.dominates(1, 1));
  CHECK(C.loops.empty());
}

TEST_CASE("cfg: an infinite loop joins the exit at its last block") {
  // SPIN (B2) and B3 never reach a ret. Rule: the highest-numbered block that cannot reach the
  // exit (B3) gets a virtual exit edge, so ipdom(B2) = B3 and B0's arms meet only at the exit.
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra SPIN;
  ret;                            // B1
SPIN:                             // B2
  add.s32 %r1, %r1, 1;
  setp.lt.s32 %p2, %r1, 100;
  @%p2 bra SPIN;
  mov.u32 %r1, 0;                 // B3
  bra.uni SPIN;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1, 2}, {}, {2, 3}, {2}});
  CHECK(C.idom == Blocks{None, 0, 0, 2});
  CHECK(C.ipdom == Blocks{None, None, 3, None});
  REQUIRE(C.loops.size() == 1); // two back edges into SPIN: one loop, latches merged
  CHECK(C.loops[0].header == 2);
  CHECK(C.loops[0].blocks == Blocks{2, 3});
  CHECK(C.loops[0].latches == Blocks{2, 3});
  CHECK(C.loopDepth == Blocks{0, 0, 1, 1});
}

TEST_CASE("cfg: loop header placed after its latch (llc layout)") {
  // llc-19 lays out shared_reduce_ll this way: the latch block comes first in source order.
  ptx::Module M = parseKernel(R"(
  mov.u32 %r1, 128;               // B0
  bra.uni STEP;
SYNC:                             // B1
  bar.sync 0;
  shr.u32 %r1, %r1, 1;
  setp.ne.s32 %p2, %r1, 0;
  @%p2 bra STEP;
  bra.uni TAIL;                   // B2
STEP:                             // B3
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra SYNC;
  add.s32 %r3, %r2, %r1;          // B4
  bra.uni SYNC;
TAIL:                             // B5
  ret;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{3}, {2, 3}, {5}, {1, 4}, {1}, {}});
  CHECK(C.idom == Blocks{None, 3, 1, 0, 3, 2});
  CHECK(C.ipdom == Blocks{3, 2, 5, 1, 1, None});
  REQUIRE(C.loops.size() == 1);
  CHECK(C.loops[0].header == 3);
  CHECK(C.loops[0].blocks == Blocks{1, 3, 4});
  CHECK(C.loops[0].latches == Blocks{1});
}

TEST_CASE("cfg: call falls through, exit and trap end paths, guarded trap falls through") {
  support::Expected<ptx::Module> M = ptx::parseModule(R"(.version 8.0
.target sm_90
.address_size 64
.func f()
{
  ret;
}
.visible .entry k(.param .u32 p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [p];          // B0
  call.uni f, ();
  setp.eq.s32 %p1, %r1, 0;        // B1
  @%p1 trap;
  setp.eq.s32 %p2, %r1, 1;        // B2
  @%p2 bra OUT;
  exit;                           // B3
OUT:                              // B4
  ret;
}
)",
                                                      "calls.ptx");
  if (!M)
    FAIL(M.error().str());
  const ptx::Function *F = M->findFunction("k");
  REQUIRE(F);
  REQUIRE(F->blocks.size() == 5);
  Cfg C = ptx::buildCfg(*F);
  CHECK(succsOf(C) == std::vector<Blocks>{{1}, {2}, {3, 4}, {}, {}});
  CHECK(C.idom == Blocks{None, 0, 1, 2, 2});
  // B1's guarded trap leaves to the exit, so nothing post-dominates B0 or B1 but the exit.
  CHECK(C.ipdom == Blocks{1, None, None, None, None});
}

TEST_CASE("cfg: brx.idx branches to every label of its .branchtargets list") {
  ptx::Module M = parseKernel(R"(
  ld.param.u32 %r1, [p];          // B0
  ts: .branchtargets A, B, A;
  brx.idx %r1, ts;
A:                                // B1
  add.s32 %r1, %r1, 1;
  bra.uni END;
B:                                // B2
  add.s32 %r1, %r1, 2;
END:                              // B3
  ret;
)");
  Cfg C = cfgOf(M);
  CHECK(succsOf(C) == std::vector<Blocks>{{1, 2}, {3}, {3}, {}});
  CHECK(C.ipdom[0] == 3);
}

// --- Real kernels (tests/kernels, compiled by nvcc 13 and llc-19) --------------------------------

namespace {

using BlockSets = std::vector<std::set<uint32_t>>;

/// Dominator sets by the textbook iterative data-flow equations, Dom(n) = {n} + the
/// intersection of Dom(p) over n's predecessors, starting from "all blocks" and iterating to a
/// fixed point; only blocks reachable from `Roots` take part. `Preds` gives the edges to follow
/// backwards (forward predecessors for dominators, successors for post-dominators).
BlockSets referenceDominators(const std::vector<Blocks> &Preds, const Blocks &Roots,
                              const std::vector<bool> &Member) {
  const size_t N = Preds.size();
  std::set<uint32_t> All;
  for (uint32_t B = 0; B < N; ++B)
    if (Member[B])
      All.insert(B);
  BlockSets Dom(N, All);
  for (uint32_t R : Roots)
    Dom[R] = {R};
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (uint32_t B = 0; B < N; ++B) {
      if (!Member[B] || std::count(Roots.begin(), Roots.end(), B))
        continue;
      std::set<uint32_t> New = All;
      for (uint32_t P : Preds[B]) {
        if (!Member[P])
          continue;
        std::set<uint32_t> Meet;
        std::set_intersection(New.begin(), New.end(), Dom[P].begin(), Dom[P].end(),
                              std::inserter(Meet, Meet.begin()));
        New = std::move(Meet);
      }
      New.insert(B);
      if (New != Dom[B]) {
        Dom[B] = std::move(New);
        Changed = true;
      }
    }
  }
  return Dom;
}

void checkDominators(const ptx::Function &F, const Cfg &C) {
  const auto N = static_cast<uint32_t>(F.blocks.size());
  BlockSets Dom = referenceDominators(C.preds, {0}, C.reachable);
  for (uint32_t A = 0; A < N; ++A)
    for (uint32_t B = 0; B < N; ++B)
      if (C.reachable[A] && C.reachable[B] && C.dominates(A, B) != (Dom[B].count(A) > 0))
        FAIL_CHECK(F.name << ": dominates(" << A << ", " << B << ") disagrees");
}

void checkPostDominators(const ptx::Function &F, const Cfg &C) {
  const auto N = static_cast<uint32_t>(F.blocks.size());
  // Post-dominators: the "predecessors" in the reversed graph are the successors; the exits
  // (no successors, or ending in ret/exit/trap) are roots that only the virtual exit follows.
  Blocks Exits;
  for (uint32_t B = 0; B < N; ++B) {
    const auto &I = F.blocks[B].instrs;
    bool Ret = !I.empty() &&
               (I.back().opcode == ptx::Opcode::Ret || I.back().opcode == ptx::Opcode::Exit ||
                I.back().opcode == ptx::Opcode::Trap);
    if (C.succs[B].empty() || Ret)
      Exits.push_back(B);
  }
  // A virtual exit vertex N joins the exits, so guarded returns count as a second path.
  std::vector<Blocks> RevPreds = C.succs;
  RevPreds.push_back({});
  for (uint32_t E : Exits)
    RevPreds[E].push_back(N);
  BlockSets PDom = referenceDominators(RevPreds, {N}, std::vector<bool>(N + 1, true));
  for (uint32_t A = 0; A < N; ++A)
    for (uint32_t B = 0; B < N; ++B)
      if (C.postDominates(A, B) != (PDom[B].count(A) > 0))
        FAIL_CHECK(F.name << ": postDominates(" << A << ", " << B << ") disagrees");
}

void checkLoops(const ptx::Function &F, const Cfg &C) {
  const auto N = static_cast<uint32_t>(F.blocks.size());
  // Loops: every back edge is a latch of its header's loop; depths count enclosing loops.
  for (const Cfg::Loop &L : C.loops) {
    for (uint32_t B : L.blocks)
      CHECK(C.dominates(L.header, B));
    for (uint32_t Latch : L.latches)
      CHECK(std::count(C.succs[Latch].begin(), C.succs[Latch].end(), L.header) == 1);
    if (L.parent != None) {
      const Cfg::Loop &P = C.loops[L.parent];
      CHECK(std::includes(P.blocks.begin(), P.blocks.end(), L.blocks.begin(), L.blocks.end()));
      CHECK(L.depth == P.depth + 1);
    }
  }
  for (uint32_t B = 0; B < N; ++B)
    for (uint32_t S : C.succs[B])
      if (C.reachable[B] && C.dominates(S, B)) {
        auto L = std::find_if(C.loops.begin(), C.loops.end(),
                              [&](const Cfg::Loop &L) { return L.header == S; });
        REQUIRE(L != C.loops.end());
        CHECK(std::count(L->latches.begin(), L->latches.end(), B) == 1);
      }
  for (uint32_t B = 0; B < N; ++B) {
    uint32_t Depth = 0;
    for (const Cfg::Loop &L : C.loops)
      Depth += std::binary_search(L.blocks.begin(), L.blocks.end(), B);
    CHECK(C.loopDepth[B] == Depth);
  }
}

/// Parses a compiled test kernel; returns false (and says why) when it was not built.
bool loadKernel(const std::string &File, ptx::Module &Out) {
  std::string Path = std::string(PTXCAST_KERNEL_DIR) + "/" + File;
  if (!std::filesystem::exists(Path)) {
    REQUIRE_MESSAGE(std::string(PTXCAST_NVCC).empty(), Path << " was not built");
    MESSAGE("skipped: " << Path << " (no nvcc)");
    return false;
  }
  support::Expected<ptx::Module> M = ptx::parseFile(Path);
  if (!M)
    FAIL(M.error().str());
  Out = std::move(*M);
  return true;
}

const Cfg::Loop *loopContainingOpcode(const ptx::Function &F, const Cfg &C, ptx::Opcode Op) {
  for (const Cfg::Loop &L : C.loops)
    for (uint32_t B : L.blocks)
      for (const ptx::Instruction &I : F.blocks[B].instrs)
        if (I.opcode == Op)
          return &L;
  return nullptr;
}

} // namespace

TEST_CASE("cfg: every function of every test kernel agrees with the reference") {
  std::vector<std::filesystem::path> Files;
  for (const auto &E : std::filesystem::directory_iterator(PTXCAST_KERNEL_DIR))
    if (E.path().extension() == ".ptx")
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  CHECK(Files.size() >= 3); // the llc-19 kernels at least
  size_t Functions = 0;
  for (const auto &P : Files) {
    CAPTURE(P.filename().string());
    support::Expected<ptx::Module> M = ptx::parseFile(P.string());
    if (!M) {
      FAIL_CHECK(M.error().str());
      continue;
    }
    for (const ptx::Function &F : M->functions)
      if (F.hasBody) {
        CAPTURE(F.name);
        Cfg C = ptx::buildCfg(F);
        checkDominators(F, C);
        checkPostDominators(F, C);
        checkLoops(F, C);
        ++Functions;
      }
  }
  MESSAGE(Functions << " functions checked");
}

TEST_CASE("cfg: facts about the real kernels") {
  for (const char *Arch : {"sm_75", "sm_90"}) {
    CAPTURE(Arch);
    ptx::Module M;
    if (!loadKernel(std::string("matmul.") + Arch + ".ptx", M))
      return;
    const ptx::Function *F = M.findFunction("matmul_tiled");
    REQUIRE(F);
    Cfg C = ptx::buildCfg(*F);
    // The tile loop holds both __syncthreads (bar.sync) and is the outermost loop.
    const Cfg::Loop *Tile = loopContainingOpcode(*F, C, ptx::Opcode::Bar);
    REQUIRE(Tile);
    CHECK(Tile->depth == 1);

    REQUIRE(loadKernel(std::string("divergence.") + Arch + ".ptx", M));
    F = M.findFunction("divergent_branches");
    REQUIRE(F);
    C = ptx::buildCfg(*F);
    uint32_t MaxDepth = 0;
    for (const Cfg::Loop &L : C.loops)
      MaxDepth = std::max(MaxDepth, L.depth);
    CHECK(MaxDepth == 2); // for i < in[g] & 7 { for j < tid % 5 { ... } }

    REQUIRE(loadKernel(std::string("counted.") + Arch + ".ptx", M));
    F = M.findFunction("straight_line");
    REQUIRE(F);
    C = ptx::buildCfg(*F);
    CHECK(F->blocks.size() == 1);
    CHECK(C.loops.empty());
    F = M.findFunction("counted_loop");
    REQUIRE(F);
    C = ptx::buildCfg(*F);
    REQUIRE(C.loops.size() == 1); // #pragma unroll 1: one self-looping block
    CHECK(C.loops[0].blocks.size() == 1);
    F = M.findFunction("divergent_split");
    REQUIRE(F);
    C = ptx::buildCfg(*F);
    CHECK(C.loops.empty());
    // The entry's branch reconverges at the block holding the final ret.
    REQUIRE(C.ipdom[0] != None);
    CHECK(F->blocks[C.ipdom[0]].instrs.back().opcode == ptx::Opcode::Ret);
  }
}
