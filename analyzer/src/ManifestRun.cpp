// runManifest: parse the PTX, fill the buffers, run every launch, write the outputs atomically.
#include "analyzer/Manifest.h"

#include "LaunchArgs.h"

#include "ptx/Parser.h"
#include "support/StructLayout.h"

#include <filesystem>
#include <fstream>
#include <memory>

namespace analyzer {
namespace {

namespace fs = std::filesystem;

support::Error err(const Manifest &M, const std::string &Msg) {
  return support::Error(M.path, 0, 0, Msg);
}

support::MaybeError fillBuffer(const Manifest &M, const BufferSpec &B, Buffer &Dst) {
  switch (B.init.kind) {
  case BufferInit::Kind::Zero:
    return std::nullopt;
  case BufferInit::Kind::Random: {
    support::Expected<std::vector<uint8_t>> R = randomBytes(B.init, B.bytes);
    if (!R)
      return err(M, "buffer '" + B.name + "': " + R.error().message);
    Dst.data = std::move(*R);
    return std::nullopt;
  }
  case BufferInit::Kind::File: {
    std::ifstream In(B.init.file, std::ios::binary);
    std::error_code EC;
    uint64_t Size = fs::file_size(B.init.file, EC);
    if (!In || EC)
      return err(M, "buffer '" + B.name + "': cannot read '" + B.init.file + "'");
    if (Size != B.bytes)
      return err(M, "buffer '" + B.name + "' is " + std::to_string(B.bytes) + " bytes but '" +
                        B.init.file + "' has " + std::to_string(Size));
    In.read(reinterpret_cast<char *>(Dst.data.data()), static_cast<std::streamsize>(Size));
    return std::nullopt;
  }
  }
  return std::nullopt;
}

support::MaybeError writeAtomically(const Manifest &M, const std::string &Path, const Buffer &B) {
  std::string Tmp = Path + ".tmp";
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    Out.write(reinterpret_cast<const char *>(B.data.data()),
              static_cast<std::streamsize>(B.data.size()));
    if (!Out)
      return err(M, "cannot write '" + Tmp + "'");
  }
  std::error_code EC;
  fs::rename(Tmp, Path, EC);
  if (EC)
    return err(M, "cannot rename '" + Tmp + "' to '" + Path + "': " + EC.message());
  return std::nullopt;
}

} // namespace

namespace {

/// Argument A's bytes: a scalar's, a buffer's address plus offset, or a struct laid out as C
/// does. `Field` names A in errors.
support::Expected<support::StructLayout>
argBytes(const ArgSpec &A, Device &D, const std::string &Field, const std::string &File) {
  support::StructLayout Out;
  if (A.isStruct) {
    for (size_t K = 0; K < A.fields.size(); ++K) {
      auto F = argBytes(A.fields[K], D, Field + ".struct[" + std::to_string(K) + "]", File);
      if (!F)
        return F.error();
      Out.add(*F);
    }
    return Out;
  }
  KernelArg Arg = KernelArg::raw(A.bits, ptx::typeBits(A.type));
  if (A.isBuffer) {
    const Buffer *B = D.find(A.buffer);
    if (!B)
      return support::Error(File, 0, 0, Field + ": unknown buffer '" + A.buffer + "'");
    if (A.offset > B->bytes())
      return support::Error(File, 0, 0,
                            Field + ": offset " + std::to_string(A.offset) +
                                " is past the end of '" + A.buffer + "'");
    Arg = KernelArg::pointer(B->base + A.offset);
  }
  Out.add(Arg.bytes.data(), Arg.bytes.size(), Arg.bytes.size());
  return Out;
}

} // namespace

support::Expected<LaunchConfig> makeLaunch(const LaunchSpec &S, size_t Index, Device &D,
                                           const std::string &File) {
  LaunchConfig L;
  L.grid = S.grid;
  L.block = S.block;
  L.sharedBytes = S.sharedBytes;
  for (size_t K = 0; K < S.args.size(); ++K) {
    std::string F = "launches[" + std::to_string(Index) + "].args[" + std::to_string(K) + "]";
    auto Bytes = argBytes(S.args[K], D, F, File);
    if (!Bytes)
      return Bytes.error();
    L.args.push_back(KernelArg{Bytes->bytes()});
  }
  return L;
}

support::Expected<ManifestRun> runManifest(const Manifest &M, const RunSettings &Settings) {
  std::vector<std::unique_ptr<Program>> Programs;
  for (const std::string &Path : M.ptx) {
    support::Expected<ptx::Module> Mod = ptx::parseFile(Path);
    if (!Mod)
      return Mod.error();
    support::Expected<Program> P = decodeProgram(*Mod);
    if (!P)
      return P.error();
    Programs.push_back(std::make_unique<Program>(std::move(*P)));
  }
  Device D;
  // The cap is checked on the sum first: zero-filling every buffer up to the one that passes it
  // would hold all of them in memory before the error.
  uint64_t Total = 0;
  for (const BufferSpec &B : M.buffers)
    Total += B.bytes;
  if (Total > D.capacity())
    return err(M, "the buffers total " + std::to_string(Total) +
                      " bytes, above the device memory cap of " + std::to_string(D.capacity()) +
                      " bytes");
  for (const BufferSpec &B : M.buffers) {
    support::Expected<uint64_t> A = D.allocate(B.name, B.bytes);
    if (!A)
      return err(M, A.error().message);
    if (std::optional<support::Error> E = fillBuffer(M, B, *D.find(B.name)))
      return *E;
  }
  ManifestRun Run;
  for (size_t K = 0; K < M.launches.size(); ++K) {
    const LaunchSpec &S = M.launches[K];
    const Program *P = nullptr;
    for (const auto &Q : Programs)
      if (Q->hasKernel(S.kernel) && !P)
        P = Q.get();
    std::string F = "launches[" + std::to_string(K) + "]";
    if (!P)
      return err(M, F + ".kernel: no kernel named '" + S.kernel + "' in the PTX files");
    support::Expected<LaunchConfig> L = makeLaunch(S, K, D, M.path);
    if (!L)
      return L.error();
    RunResult R = runKernel(*P, S.kernel, *L, D, Settings);
    if (R.trap)
      return err(M, F + ": " + R.trap->str());
    Run.launches.push_back(std::move(R.profile));
  }
  for (const BufferSpec &B : M.buffers)
    if (!B.output.empty())
      if (std::optional<support::Error> E = writeAtomically(M, B.output, *D.find(B.name)))
        return *E;
  return Run;
}

} // namespace analyzer
