// PtxSections: per-kernel sections of NVPTX output (PtxSections.h).
#include "kernels/PtxSections.h"

namespace corpus::kernels {

namespace {

/// The first kernel of a module is printed with the module's variables: its `// .globl` line,
/// a note `// X has been demoted` per variable, and a blank line. Drops the notes and the blank
/// line, so the section reads the same whichever kernels were compiled with it.
std::string withoutNotes(std::string_view First) {
  constexpr std::string_view Demoted = " has been demoted";
  const size_t Body = First.find('\n') + 1; // after the `// .globl` line
  size_t At = Body;
  for (size_t End; First.substr(At).starts_with("// "); At = End + 1) {
    End = First.find('\n', At);
    if (End == First.npos || !First.substr(At, End - At).ends_with(Demoted))
      break;
  }
  if (First.substr(At).starts_with("\n"))
    ++At;
  return std::string(First.substr(0, Body)).append(First.substr(At));
}

} // namespace

std::string renumberLabels(std::string_view Body, size_t From, size_t To) {
  if (From == To)
    return std::string(Body);
  const std::string Old = "$L__BB" + std::to_string(From) + "_";
  const std::string New = "$L__BB" + std::to_string(To) + "_";
  std::string Out;
  Out.reserve(Body.size() + Body.size() / 64);
  size_t At = 0;
  for (size_t Hit = Body.find(Old); Hit != std::string_view::npos; Hit = Body.find(Old, At)) {
    Out.append(Body.substr(At, Hit - At)).append(New);
    At = Hit + Old.size();
  }
  return Out.append(Body.substr(At));
}

std::optional<std::vector<CompiledKernel>> splitPtx(std::string_view Ptx, size_t Kernels) {
  constexpr std::string_view Globl = "\n\t// .globl\t";
  size_t Cut = Ptx.find(Globl);
  if (Cut == std::string_view::npos)
    return std::nullopt;
  std::string Header(Ptx.substr(0, Cut + 1));
  std::vector<CompiledKernel> Out;
  for (size_t K = 0; K < Kernels; ++K) {
    if (Cut == std::string_view::npos)
      return std::nullopt;
    size_t Next = Ptx.find(Globl, Cut + 1);
    std::string_view Section = Ptx.substr(Cut + 1, Next == Ptx.npos ? Next : Next - Cut);
    std::string Body = K == 0 ? withoutNotes(Section) : std::string(Section);
    Out.push_back({Header, renumberLabels(Body, K, 0)});
    Cut = Next;
  }
  if (Cut != std::string_view::npos)
    return std::nullopt;
  return Out;
}

} // namespace corpus::kernels
