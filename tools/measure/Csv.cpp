// CSV rendering and atomic (temp + rename) file writes.
#include "Csv.h"

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace measure {

std::string csvField(const std::string &F) {
  if (F.find_first_of(",\"\r\n") == std::string::npos)
    return F;
  std::string Q = "\"";
  for (char C : F) {
    if (C == '"')
      Q += '"';
    Q += C;
  }
  return Q + "\"";
}

static void appendRow(std::string &Out, const std::vector<std::string> &Fields) {
  for (size_t I = 0; I < Fields.size(); ++I) {
    if (I)
      Out += ',';
    Out += csvField(Fields[I]);
  }
  Out += '\n';
}

std::string CsvTable::render() const {
  std::string Out;
  for (const auto &[Key, Value] : meta) {
    assert(Value.find('\n') == std::string::npos && "metadata values are single lines");
    Out += "# " + Key + ": " + Value + "\n";
  }
  appendRow(Out, columns);
  for (const auto &Row : rows) {
    assert(Row.size() == columns.size() && "CSV row width differs from the header");
    appendRow(Out, Row);
  }
  return Out;
}

MaybeError writeFileAtomic(const std::string &Path, const std::string &Contents) {
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid());
  std::FILE *F = std::fopen(Tmp.c_str(), "wb");
  if (!F)
    return Error(Path, 0, 0, std::string("cannot write: ") + std::strerror(errno));
  bool Good = std::fwrite(Contents.data(), 1, Contents.size(), F) == Contents.size();
  Good = std::fflush(F) == 0 && Good;
  Good = ::fsync(::fileno(F)) == 0 && Good;
  int SavedErrno = errno;
  Good = std::fclose(F) == 0 && Good;
  if (!Good) {
    std::remove(Tmp.c_str());
    return Error(Path, 0, 0, std::string("cannot write: ") + std::strerror(SavedErrno));
  }
  std::error_code Ec;
  std::filesystem::rename(Tmp, Path, Ec);
  if (Ec) {
    std::remove(Tmp.c_str());
    return Error(Path, 0, 0, "cannot rename the temporary file into place: " + Ec.message());
  }
  return std::nullopt;
}

} // namespace measure
