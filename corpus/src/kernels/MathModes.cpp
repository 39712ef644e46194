// Math modes (`--math`): names, what each needs of the data type and the architecture, and which
// tensor-core kernels an architecture gets (KernelGen.h).
#include "corpus/KernelGen.h"
#include "kernels/Specs.h"

#include <cassert>

namespace corpus {

const char *mathModeName(MathMode M) {
  static constexpr const char *Names[] = {"simt", "tf32", "f16", "bf16", "auto", "int8"};
  return Names[static_cast<unsigned>(M)];
}

std::optional<MathMode> parseMathMode(std::string_view Name) {
  for (MathMode M : {MathMode::Simt, MathMode::Tf32, MathMode::F16, MathMode::Bf16, MathMode::Auto,
                     MathMode::Int8})
    if (Name == mathModeName(M))
      return M;
  return std::nullopt;
}

std::optional<std::string> mathModeError(MathMode M, DType T, std::string_view Arch) {
  if (M == MathMode::Simt || M == MathMode::Auto)
    return std::nullopt;
  const std::string Mode = mathModeName(M);
  if (T == DType::I8 && M != MathMode::Int8)
    return "--math " + Mode + " does not take int8 data (int8: auto, int8 or simt)";
  if (T != DType::I8 && M == MathMode::Int8)
    return "--math int8 needs --dtype int8";
  if (T == DType::F16 && M != MathMode::F16)
    return "--math " + Mode + " needs f32 data (f16 data would be rounded twice); use --math f16";
  const unsigned Sm = kernels::smVersion(Arch);
  const unsigned Needs = M == MathMode::F16 ? 70 : M == MathMode::Int8 ? 75 : 80;
  if (Sm != 0 && Sm < Needs) {
    std::string Why = M == MathMode::F16    ? "f16 tensor cores need sm_70"
                      : M == MathMode::Int8 ? "int8 tensor cores need sm_75"
                                            : Mode + " mma needs sm_80";
    return "--math " + Mode + " is not available on " + std::string(Arch) + ": " + Why;
  }
  return std::nullopt;
}

MmaArch mmaArchFor(std::string_view Arch) {
  const unsigned Sm = kernels::smVersion(Arch);
  if (Sm != 0 && Sm < 75)
    return MmaArch::Sm70;
  return Sm == 75 ? MmaArch::Sm75 : MmaArch::Sm80;
}

const char *mmaArchName(MmaArch A) {
  static constexpr const char *Names[] = {"sm_80", "sm_75", "sm_70"};
  return Names[static_cast<unsigned>(A)];
}

namespace kernels {

unsigned smVersion(std::string_view Arch) {
  if (Arch.size() != 5 || Arch.substr(0, 3) != "sm_" || Arch[3] < '1' || Arch[3] > '9' ||
      Arch[4] < '0' || Arch[4] > '9')
    return 0;
  return unsigned(Arch[3] - '0') * 10 + unsigned(Arch[4] - '0');
}

std::optional<std::string> mmaArchError(MathMode M, MmaArch A, std::string_view Arch) {
  if (M == MathMode::Simt)
    return std::nullopt;
  assert(M != MathMode::Auto && "a kernel's math mode is resolved");
  if (smVersion(Arch) >= smVersion(mmaArchName(A)))
    return std::nullopt;
  return std::string("the ") + mmaArchName(A) + " tensor-core kernel cannot run on " +
         std::string(Arch) + "; lower for " + std::string(Arch) + " to get its own kernels";
}

} // namespace kernels
} // namespace corpus
