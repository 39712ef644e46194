// CSV (RFC 4180) records <-> Dataset: splitting, schema resolution, numeric parsing, writing.
#include "learners/Dataset.h"
#include "support/Files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace learners {
namespace {

using support::Error;
using support::Expected;

/// Cursor over CSV text that tracks the current 1-based line.
struct CsvLexer {
  std::string_view Text;
  std::string_view File;
  size_t Pos = 0;
  uint32_t Line = 1;

  bool atEnd() const { return Pos >= Text.size(); }
  bool atLineEnd() const { return atEnd() || Text[Pos] == '\n' || Text[Pos] == '\r'; }
  void skipLineEnd() {
    if (!atEnd() && Text[Pos] == '\r')
      ++Pos;
    if (!atEnd() && Text[Pos] == '\n')
      ++Pos;
    ++Line;
  }

  // quoted-field := '"' (char | '""' | newline)* '"'
  Expected<std::string> quotedField() {
    uint32_t Start = Line;
    std::string Out;
    ++Pos; // opening quote
    while (true) {
      if (atEnd())
        return Error(std::string(File), Start, 0, "unterminated quoted field");
      char C = Text[Pos++];
      if (C == '"') {
        if (!atEnd() && Text[Pos] == '"') {
          Out += '"';
          ++Pos;
          continue;
        }
        if (!atLineEnd() && Text[Pos] != ',')
          return Error(std::string(File), Line, 0, "unexpected character after closing quote");
        return Out;
      }
      if (C == '\n')
        ++Line;
      Out += C;
    }
  }

  // field := quoted-field | [^,"\r\n]*
  Expected<std::string> field() {
    if (!atEnd() && Text[Pos] == '"')
      return quotedField();
    size_t Start = Pos;
    while (!atLineEnd() && Text[Pos] != ',') {
      if (Text[Pos] == '"')
        return Error(std::string(File), Line, 0, "quote inside an unquoted field");
      ++Pos;
    }
    return std::string(Text.substr(Start, Pos - Start));
  }

  // record := field (',' field)* line-end
  Expected<CsvRecord> record() {
    CsvRecord R;
    R.line = Line;
    while (true) {
      auto F = field();
      if (!F)
        return F.error();
      R.fields.push_back(std::move(*F));
      if (!atEnd() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      skipLineEnd();
      return R;
    }
  }
};

/// Parses a finite double in the whole of S (leading/trailing spaces allowed).
std::optional<double> parseNumber(std::string_view S) {
  while (!S.empty() && S.front() == ' ')
    S.remove_prefix(1);
  while (!S.empty() && S.back() == ' ')
    S.remove_suffix(1);
  if (!S.empty() && S.front() == '+')
    S.remove_prefix(1);
  double V = 0;
  auto [Ptr, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  if (S.empty() || Ec != std::errc() || Ptr != S.data() + S.size() || !std::isfinite(V))
    return std::nullopt;
  return V;
}

/// Where each dataset column comes from in the CSV header.
struct ColumnMap {
  std::vector<size_t> Ids, Features;
  size_t Target = 0;
};

Expected<size_t> findColumn(const std::map<std::string, size_t> &Index, const std::string &Name,
                            std::string_view File, uint32_t Line) {
  auto It = Index.find(Name);
  if (It == Index.end())
    return Error(std::string(File), Line, 0, "no column named '" + Name + "' in the header");
  return It->second;
}

Expected<ColumnMap> resolveColumns(const CsvRecord &Header, std::string_view File,
                                   const CsvSchema &Schema, Dataset &D) {
  std::map<std::string, size_t> Index;
  for (size_t I = 0; I < Header.fields.size(); ++I)
    if (!Index.emplace(Header.fields[I], I).second)
      return Error(std::string(File), Header.line, 0,
                   "duplicate column name '" + Header.fields[I] + "'");
  ColumnMap M;
  auto T = findColumn(Index, Schema.target, File, Header.line);
  if (!T)
    return T.error();
  M.Target = *T;
  for (const auto &Name : Schema.idColumns) {
    auto C = findColumn(Index, Name, File, Header.line);
    if (!C)
      return C.error();
    M.Ids.push_back(*C);
  }
  for (const auto &Name : Schema.ignoreColumns)
    if (auto C = findColumn(Index, Name, File, Header.line); !C)
      return C.error();
  if (!Schema.featureColumns.empty()) {
    for (const auto &Name : Schema.featureColumns) {
      auto C = findColumn(Index, Name, File, Header.line);
      if (!C)
        return C.error();
      M.Features.push_back(*C);
    }
  } else {
    auto Listed = [&](const std::string &Name) {
      auto In = [&](const std::vector<std::string> &V) {
        return std::find(V.begin(), V.end(), Name) != V.end();
      };
      return Name == Schema.target || In(Schema.idColumns) || In(Schema.ignoreColumns);
    };
    for (size_t I = 0; I < Header.fields.size(); ++I)
      if (!Listed(Header.fields[I]))
        M.Features.push_back(I);
  }
  D.targetName = Schema.target;
  for (size_t C : M.Ids)
    D.idNames.push_back(Header.fields[C]);
  for (size_t C : M.Features)
    D.featureNames.push_back(Header.fields[C]);
  return M;
}

Expected<double> numericField(const CsvRecord &R, size_t Col, const std::string &Name,
                              std::string_view File) {
  auto V = parseNumber(R.fields[Col]);
  if (!V)
    return Error(std::string(File), R.line, 0,
                 "column '" + Name + "' needs a finite number, got '" + R.fields[Col] + "'");
  return *V;
}

std::string quoteField(const std::string &S) {
  if (S.find_first_of(",\"\r\n") == std::string::npos)
    return S;
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}

std::string formatNumber(double V) {
  char Buf[64];
  auto [Ptr, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  assert(Ec == std::errc() && "to_chars buffer too small");
  return std::string(Buf, Ptr);
}

/// Schema with the defaults filled in: the target (last column when unnamed) and, with
/// inferIds, every other non-numeric column not listed as a feature as an identifier.
CsvSchema completeSchema(const std::vector<CsvRecord> &Records, CsvSchema Schema) {
  const CsvRecord &Header = Records.front();
  if (Schema.target.empty() && !Header.fields.empty())
    Schema.target = Header.fields.back();
  if (!Schema.inferIds)
    return Schema;
  auto Listed = [&](const std::string &Name) {
    auto In = [&](const std::vector<std::string> &V) {
      return std::find(V.begin(), V.end(), Name) != V.end();
    };
    return Name == Schema.target || In(Schema.idColumns) || In(Schema.ignoreColumns) ||
           In(Schema.featureColumns);
  };
  for (size_t C = 0; C < Header.fields.size(); ++C) {
    if (Listed(Header.fields[C]))
      continue;
    for (size_t R = 1; R < Records.size(); ++R)
      if (C < Records[R].fields.size() && !parseNumber(Records[R].fields[C])) {
        Schema.idColumns.push_back(Header.fields[C]);
        break;
      }
  }
  return Schema;
}

} // namespace

Expected<std::vector<CsvRecord>> splitCsv(std::string_view Text, std::string_view File) {
  CsvLexer Lex{Text, File};
  if (Text.size() >= 3 && Text.substr(0, 3) == "\xEF\xBB\xBF")
    Lex.Pos = 3; // UTF-8 byte order mark
  std::vector<CsvRecord> Records;
  while (!Lex.atEnd()) {
    if (Lex.atLineEnd()) { // blank line
      Lex.skipLineEnd();
      continue;
    }
    auto R = Lex.record();
    if (!R)
      return R.error();
    Records.push_back(std::move(*R));
  }
  return Records;
}

Expected<Dataset> parseCsv(std::string_view Text, std::string_view File, const CsvSchema &Schema) {
  auto Records = splitCsv(Text, File);
  if (!Records)
    return Records.error();
  if (Records->empty())
    return Error(std::string(File), 0, 0, "empty file: expected a header line");
  Dataset D;
  const CsvRecord &Header = Records->front();
  auto Map = resolveColumns(Header, File, completeSchema(*Records, Schema), D);
  if (!Map)
    return Map.error();
  std::vector<double> Row(Map->Features.size());
  for (size_t I = 1; I < Records->size(); ++I) {
    const CsvRecord &R = (*Records)[I];
    if (R.fields.size() != Header.fields.size())
      return Error(std::string(File), R.line, 0,
                   "expected " + std::to_string(Header.fields.size()) + " fields, got " +
                       std::to_string(R.fields.size()));
    for (size_t F = 0; F < Map->Features.size(); ++F) {
      auto V = numericField(R, Map->Features[F], D.featureNames[F], File);
      if (!V)
        return V.error();
      Row[F] = *V;
    }
    auto Y = numericField(R, Map->Target, D.targetName, File);
    if (!Y)
      return Y.error();
    std::vector<std::string> Ids;
    for (size_t C : Map->Ids)
      Ids.push_back(R.fields[C]);
    D.addRow(std::move(Ids), Row, *Y);
  }
  if (D.features.cols() == 0 && !D.featureNames.empty())
    D.features = Matrix(0, D.featureNames.size());
  return D;
}

Expected<Dataset> readCsvFile(const std::string &Path, const CsvSchema &Schema) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  return parseCsv(*Text, Path, Schema);
}

Expected<Dataset> readCsvFiles(const std::vector<std::string> &Paths, const CsvSchema &Schema) {
  if (Paths.empty())
    return Error("no dataset files given");
  Dataset All;
  for (size_t I = 0; I < Paths.size(); ++I) {
    auto D = readCsvFile(Paths[I], Schema);
    if (!D)
      return D.error();
    if (I == 0) {
      All = std::move(*D);
      continue;
    }
    if (auto E = All.append(*D))
      return Error(Paths[I], 1, 0, "columns differ from " + Paths[0]);
  }
  return All;
}

std::string writeCsv(const Dataset &D) {
  std::string Out;
  auto Cell = [&](const std::string &S, bool First) {
    if (!First)
      Out += ',';
    Out += S;
  };
  bool First = true;
  for (const auto &Name : D.idNames)
    Cell(quoteField(Name), std::exchange(First, false));
  for (const auto &Name : D.featureNames)
    Cell(quoteField(Name), std::exchange(First, false));
  Cell(quoteField(D.targetName), First);
  Out += '\n';
  for (size_t R = 0; R < D.size(); ++R) {
    First = true;
    for (const auto &S : D.ids[R])
      Cell(quoteField(S), std::exchange(First, false));
    for (double V : D.features.row(R))
      Cell(formatNumber(V), std::exchange(First, false));
    Cell(formatNumber(D.target[R]), First);
    Out += '\n';
  }
  return Out;
}

} // namespace learners
