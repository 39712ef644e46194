// Control-flow graph, dominators, post-dominators and natural loops of a PTX function.
#include "ptx/Cfg.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <boost/graph/reverse_graph.hpp>

#include <algorithm>
#include <cassert>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace ptx {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using LabelMap = std::unordered_map<std::string_view, uint32_t>;

LabelMap labelsOf(const Function &F) {
  LabelMap Labels;
  for (uint32_t B = 0; B < F.blocks.size(); ++B)
    if (!F.blocks[B].label.empty())
      Labels.emplace(F.blocks[B].label, B);
  return Labels;
}

void addTarget(const LabelMap &Labels, const std::string &Name, std::vector<uint32_t> &Out) {
  auto It = Labels.find(Name);
  assert(It != Labels.end() && "branch to a label the function does not define");
  if (It != Labels.end())
    Out.push_back(It->second);
}

/// The labels `brx.idx %r, T` may jump to: those of the `T: .branchtargets L1, L2, ...;`
/// declaration in the function body (PTX ISA 9.7.12.3).
void addIndirectTargets(const Function &F, const LabelMap &Labels, const Instruction &I,
                        std::vector<uint32_t> &Out) {
  assert(I.operands.size() >= 2 && "brx.idx needs an index and a target list");
  if (I.operands.size() < 2)
    return;
  const std::string &ListName = I.operands[1].name;
  auto It = std::find_if(F.branchTargets.begin(), F.branchTargets.end(),
                         [&](const BranchTargets &T) { return T.name == ListName; });
  assert(It != F.branchTargets.end() && "brx.idx names no .branchtargets list");
  if (It == F.branchTargets.end())
    return;
  for (const std::string &Label : It->labels)
    addTarget(Labels, Label, Out);
}

bool isReturn(Opcode Op) { return Op == Opcode::Ret || Op == Opcode::Exit || Op == Opcode::Trap; }

/// Successors of block B, from its last instruction (see buildCfg's contract in Cfg.h).
std::vector<uint32_t> successorsOf(const Function &F, const LabelMap &Labels, uint32_t B) {
  std::vector<uint32_t> Out;
  const bool HasNext = B + 1 < F.blocks.size();
  const std::vector<Instruction> &Instrs = F.blocks[B].instrs;
  if (Instrs.empty()) {
    if (HasNext)
      Out.push_back(B + 1);
    return Out;
  }
  const Instruction &Last = Instrs.back();
  const bool Guarded = Last.guard.has_value();
  bool FallsThrough = true;
  switch (Last.opcode) {
  case Opcode::Bra:
    if (!Last.operands.empty() && Last.operands[0].kind == Operand::Kind::Symbol)
      addTarget(Labels, Last.operands[0].name, Out);
    FallsThrough = Guarded;
    break;
  case Opcode::Brx:
    addIndirectTargets(F, Labels, Last, Out);
    FallsThrough = Guarded;
    break;
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
    FallsThrough = Guarded;
    break;
  default:
    break;
  }
  if (FallsThrough && HasNext)
    Out.push_back(B + 1);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

/// Immediate dominators of `G` from `Entry` (None for the entry and for vertices it does not
/// reach). Uses the full Lengauer-Tarjan overload with DFS numbers pre-filled with the maximum:
/// Boost 1.74's short overload zero-fills them and then mistakes unreachable predecessors for
/// the entry (docs: toolchain.md, pitfall 1).
template <class G> std::vector<uint32_t> immediateDominators(const G &Gr, Vertex Entry) {
  using Traits = boost::graph_traits<G>;
  using SizeT = typename Traits::vertices_size_type;
  const SizeT N = boost::num_vertices(Gr);
  auto Index = boost::get(boost::vertex_index, Gr);
  std::vector<SizeT> DfNum(N, std::numeric_limits<SizeT>::max());
  std::vector<Vertex> Parent(N, Traits::null_vertex());
  std::vector<Vertex> ByDfNum(N, Traits::null_vertex());
  std::vector<Vertex> IDom(N, Traits::null_vertex());
  boost::lengauer_tarjan_dominator_tree(
      Gr, Entry, Index, boost::make_iterator_property_map(DfNum.begin(), Index),
      boost::make_iterator_property_map(Parent.begin(), Index), ByDfNum,
      boost::make_iterator_property_map(IDom.begin(), Index));
  std::vector<uint32_t> Result(N, Cfg::None);
  for (SizeT V = 0; V < N; ++V)
    if (IDom[V] != Traits::null_vertex())
      Result[V] = static_cast<uint32_t>(IDom[V]);
  return Result;
}

/// Blocks from which `Exit` (vertex N of `G`) is reachable, by a backward search.
std::vector<bool> reachesExit(const Graph &G, uint32_t Exit) {
  std::vector<bool> Seen(boost::num_vertices(G), false);
  std::vector<uint32_t> Work{Exit};
  Seen[Exit] = true;
  while (!Work.empty()) {
    uint32_t V = Work.back();
    Work.pop_back();
    for (auto [It, End] = boost::in_edges(V, G); It != End; ++It) {
      auto S = static_cast<uint32_t>(boost::source(*It, G));
      if (!Seen[S]) {
        Seen[S] = true;
        Work.push_back(S);
      }
    }
  }
  return Seen;
}

/// Immediate post-dominators. Every block without successors, and every block ending in a
/// guarded ret/exit/trap (its lanes may leave there), joins a virtual exit X. Blocks
/// that cannot reach X (infinite loops) are joined to X too, one at a time: the highest-numbered
/// block that still cannot reach X gets an edge to X (for a source-order loop that is its last
/// block, the latch), until every block reaches X. So a branch with one side in an infinite
/// loop post-dominates to the exit, and postDominates is defined for every block.
std::vector<uint32_t> immediatePostDominators(const Cfg &C, const std::vector<bool> &EndsInReturn) {
  const auto N = static_cast<uint32_t>(C.succs.size());
  Graph G(N + 1);
  for (uint32_t B = 0; B < N; ++B) {
    for (uint32_t S : C.succs[B])
      boost::add_edge(B, S, G);
    if (C.succs[B].empty() || EndsInReturn[B])
      boost::add_edge(B, N, G);
  }
  for (;;) {
    std::vector<bool> Reaches = reachesExit(G, N);
    uint32_t Stuck = Cfg::None;
    for (uint32_t B = 0; B < N; ++B)
      if (!Reaches[B])
        Stuck = B;
    if (Stuck == Cfg::None)
      break;
    boost::add_edge(Stuck, N, G);
  }
  std::vector<uint32_t> IPDom = immediateDominators(boost::make_reverse_graph(G), N);
  IPDom.pop_back();
  for (uint32_t &P : IPDom)
    if (P == N)
      P = Cfg::None;
  return IPDom;
}

void fillEdges(const Function &F, Cfg &C) {
  const auto N = static_cast<uint32_t>(F.blocks.size());
  LabelMap Labels = labelsOf(F);
  C.succs.resize(N);
  C.preds.assign(N, {});
  for (uint32_t B = 0; B < N; ++B) {
    C.succs[B] = successorsOf(F, Labels, B);
    for (uint32_t S : C.succs[B])
      C.preds[S].push_back(B); // B ascends, so each preds list stays sorted and unique
  }
}

void fillDominators(Cfg &C) {
  const auto N = static_cast<uint32_t>(C.succs.size());
  Graph G(N);
  for (uint32_t B = 0; B < N; ++B)
    for (uint32_t S : C.succs[B])
      boost::add_edge(B, S, G);
  C.idom = immediateDominators(G, 0);
  C.reachable.assign(N, false);
  for (uint32_t B = 0; B < N; ++B)
    C.reachable[B] = B == 0 || C.idom[B] != Cfg::None;
}

/// The body of the natural loop with `Header` and `Latches`: the header plus every block that
/// reaches a latch without passing through the header (reverse search over predecessors).
std::vector<uint32_t> loopBody(const Cfg &C, uint32_t Header,
                               const std::vector<uint32_t> &Latches) {
  std::vector<bool> In(C.succs.size(), false);
  In[Header] = true;
  std::vector<uint32_t> Work;
  for (uint32_t L : Latches)
    if (!In[L]) {
      In[L] = true;
      Work.push_back(L);
    }
  while (!Work.empty()) {
    uint32_t B = Work.back();
    Work.pop_back();
    for (uint32_t P : C.preds[B])
      if (C.reachable[P] && !In[P]) {
        In[P] = true;
        Work.push_back(P);
      }
  }
  std::vector<uint32_t> Body;
  for (uint32_t B = 0; B < In.size(); ++B)
    if (In[B])
      Body.push_back(B);
  return Body;
}

void fillLoops(Cfg &C) {
  const auto N = static_cast<uint32_t>(C.succs.size());
  std::vector<std::vector<uint32_t>> LatchesOf(N);
  for (uint32_t B = 0; B < N; ++B)
    for (uint32_t S : C.succs[B])
      if (C.reachable[B] && C.dominates(S, B))
        LatchesOf[S].push_back(B); // B ascends: sorted
  for (uint32_t H = 0; H < N; ++H)
    if (!LatchesOf[H].empty())
      C.loops.push_back({H, loopBody(C, H, LatchesOf[H]), LatchesOf[H], Cfg::None, 1});
  // Natural loops with different headers are nested or disjoint, so an enclosing loop is
  // strictly larger: sorting by size puts outer loops first.
  std::stable_sort(C.loops.begin(), C.loops.end(), [](const Cfg::Loop &A, const Cfg::Loop &B) {
    return A.blocks.size() > B.blocks.size();
  });
  C.loopDepth.assign(N, 0);
  for (uint32_t L = 0; L < C.loops.size(); ++L) {
    Cfg::Loop &Loop = C.loops[L];
    for (uint32_t P = L; P-- > 0;) // the innermost enclosing loop is the latest one found
      if (std::binary_search(C.loops[P].blocks.begin(), C.loops[P].blocks.end(), Loop.header)) {
        Loop.parent = P;
        Loop.depth = C.loops[P].depth + 1;
        break;
      }
    for (uint32_t B : Loop.blocks)
      C.loopDepth[B] = std::max(C.loopDepth[B], Loop.depth);
  }
}

} // namespace

bool Cfg::dominates(uint32_t A, uint32_t B) const {
  assert(A < idom.size() && B < idom.size() && "block index out of range");
  if (A == B)
    return true;
  if (!reachable[A] || !reachable[B])
    return false;
  for (uint32_t X = idom[B]; X != None; X = idom[X])
    if (X == A)
      return true;
  return false;
}

bool Cfg::postDominates(uint32_t A, uint32_t B) const {
  assert(A < ipdom.size() && B < ipdom.size() && "block index out of range");
  if (A == B)
    return true;
  for (uint32_t X = ipdom[B]; X != None; X = ipdom[X])
    if (X == A)
      return true;
  return false;
}

Cfg buildCfg(const Function &F) {
  assert(F.hasBody && "building the CFG of a function without a body");
  Cfg C;
  if (F.blocks.empty())
    return C;
  fillEdges(F, C);
  fillDominators(C);
  std::vector<bool> EndsInReturn(F.blocks.size(), false);
  for (uint32_t B = 0; B < F.blocks.size(); ++B)
    EndsInReturn[B] = !F.blocks[B].instrs.empty() && isReturn(F.blocks[B].instrs.back().opcode);
  C.ipdom = immediatePostDominators(C, EndsInReturn);
  fillLoops(C);
  return C;
}

} // namespace ptx
