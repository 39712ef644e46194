// Dataset CSV reading and writing (learners/Dataset.h): RFC 4180 quoting, schema, error lines.
#include "learners/Dataset.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

using namespace learners;

namespace {
CsvSchema schema() {
  CsvSchema S;
  S.target = "ms";
  S.idColumns = {"gpu", "kernel"};
  return S;
}
} // namespace

TEST_CASE("csv: quoted fields with commas, quotes and newlines") {
  auto R = splitCsv("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",x,\n", "t.csv");
  REQUIRE(R);
  REQUIRE(R->size() == 2);
  CHECK((*R)[0].fields == std::vector<std::string>{"a", "b,c", "say \"hi\""});
  CHECK((*R)[1].line == 2);
  CHECK((*R)[1].fields == std::vector<std::string>{"multi\nline", "x", ""});
}

TEST_CASE("csv: schema splits ids, features (header order) and target") {
  auto D = parseCsv("gpu,x1,kernel,ms,x2\nt4,1,\"k<1, 2>\",0.5,2\nv100,3,k2,0.25,4\n", "t.csv",
                    schema());
  REQUIRE(D);
  CHECK(D->idNames == std::vector<std::string>{"gpu", "kernel"});
  CHECK(D->featureNames == std::vector<std::string>{"x1", "x2"});
  CHECK(D->targetName == "ms");
  REQUIRE(D->size() == 2);
  CHECK(D->ids[0][1] == "k<1, 2>");
  CHECK(D->features(1, 0) == 3.0);
  CHECK(D->features(1, 1) == 4.0);
  CHECK(D->target == std::vector<double>{0.5, 0.25});
}

TEST_CASE("csv: explicit feature list fixes the order, ignored columns are dropped") {
  CsvSchema S = schema();
  S.featureColumns = {"x2", "x1"};
  auto D = parseCsv("gpu,x1,kernel,ms,x2\nt4,1,k,0.5,2\n", "t.csv", S);
  REQUIRE(D);
  CHECK(D->featureNames == std::vector<std::string>{"x2", "x1"});
  CHECK(D->features(0, 0) == 2.0);
  S.featureColumns.clear();
  S.ignoreColumns = {"x2"};
  auto E = parseCsv("gpu,x1,kernel,ms,x2\nt4,1,k,0.5,2\n", "t.csv", S);
  REQUIRE(E);
  CHECK(E->featureNames == std::vector<std::string>{"x1"});
}

TEST_CASE("csv: write then read gives the same dataset, ids-features-target order") {
  auto D =
      parseCsv("x,gpu,ms,kernel\n0.1,t4,1e-3,\"a \"\"q\"\", b\"\n2.5,p4,3,k\n", "t.csv", schema());
  REQUIRE(D);
  std::string Text = writeCsv(*D);
  CHECK(Text == "gpu,kernel,x,ms\nt4,\"a \"\"q\"\", b\",0.1,0.001\np4,k,2.5,3\n");
  auto Back = parseCsv(Text, "back.csv", schema());
  REQUIRE(Back);
  CHECK(Back->ids == D->ids);
  CHECK(Back->features.values() == D->features.values());
  CHECK(Back->target == D->target);
}

TEST_CASE("csv: errors carry file and line") {
  auto Ragged = parseCsv("gpu,kernel,x,ms\nt4,k,1,2\nt4,k,1\n", "data.csv", schema());
  REQUIRE(!Ragged);
  CHECK(Ragged.error().str() == "data.csv:3: error: expected 4 fields, got 3");

  auto Text = parseCsv("gpu,kernel,x,ms\nt4,k,1,2\n\nt4,k,abc,2\n", "data.csv", schema());
  REQUIRE(!Text);
  CHECK(Text.error().str() == "data.csv:4: error: column 'x' needs a finite number, got 'abc'");

  auto Nan = parseCsv("gpu,kernel,x,ms\nt4,k,1,nan\n", "data.csv", schema());
  REQUIRE(!Nan);
  CHECK(Nan.error().str() == "data.csv:2: error: column 'ms' needs a finite number, got 'nan'");

  auto Unterminated = parseCsv("gpu,kernel,x,ms\nt4,\"k,1,2\n", "data.csv", schema());
  REQUIRE(!Unterminated);
  CHECK(Unterminated.error().str() == "data.csv:2: error: unterminated quoted field");

  auto Missing = parseCsv("gpu,kernel,x\nt4,k,1\n", "data.csv", schema());
  REQUIRE(!Missing);
  CHECK(Missing.error().str() == "data.csv:1: error: no column named 'ms' in the header");
}

TEST_CASE("dataset: subset and feature selection") {
  auto D = parseCsv("gpu,kernel,a,b,ms\ng,k0,1,10,0.1\ng,k1,2,20,0.2\ng,k2,3,30,0.3\n", "t.csv",
                    schema());
  REQUIRE(D);
  std::vector<size_t> Rows = {2, 0};
  Dataset S = D->subset(Rows);
  CHECK(S.target == std::vector<double>{0.3, 0.1});
  CHECK(S.ids[0][1] == "k2");
  std::vector<std::string> Names = {"b"};
  auto B = D->selectFeatures(Names);
  REQUIRE(B);
  CHECK(B->features.values() == std::vector<double>{10, 20, 30});
  std::vector<std::string> Bad = {"zz"};
  CHECK(!D->selectFeatures(Bad));
}

TEST_CASE("csv: several files with one schema are concatenated, differing columns fail") {
  auto Write = [](const std::string &Path, const std::string &Text) {
    std::ofstream(Path, std::ios::binary) << Text;
  };
  Write("learners_csv_a.csv", "gpu,kernel,x,ms\nt4,k,1,2\n");
  Write("learners_csv_b.csv", "x,ms,kernel,gpu\n3,4,k2,p4\n");
  Write("learners_csv_c.csv", "gpu,kernel,y,ms\nt4,k,1,2\n");
  auto D = readCsvFiles({"learners_csv_a.csv", "learners_csv_b.csv"}, schema());
  REQUIRE(D);
  CHECK(D->size() == 2);
  CHECK(D->ids[1] == std::vector<std::string>{"p4", "k2"});
  CHECK(D->features(1, 0) == 3.0);
  auto Bad = readCsvFiles({"learners_csv_a.csv", "learners_csv_c.csv"}, schema());
  REQUIRE(!Bad);
  CHECK(Bad.error().str() == "learners_csv_c.csv:1: error: columns differ from learners_csv_a.csv");
  for (const char *P : {"learners_csv_a.csv", "learners_csv_b.csv", "learners_csv_c.csv"})
    std::remove(P);
}

TEST_CASE("csv: inferred identifiers and the default target (the last column)") {
  CsvSchema S;
  S.inferIds = true;
  S.idColumns = {"kernel"}; // listed ones come first, inferred ones follow in header order
  auto D = parseCsv("gpu,x1,kernel,op,x2,ms\nt4,1,k1,conv,2,0.5\nv100,3,k2,7,4,0.25\n", "t.csv", S);
  REQUIRE_MESSAGE(D, support::errorText(D));
  CHECK(D->idNames == std::vector<std::string>{"kernel", "gpu", "op"});
  CHECK(D->featureNames == std::vector<std::string>{"x1", "x2"});
  CHECK(D->targetName == "ms");
  CHECK(D->ids[1] == std::vector<std::string>{"k2", "v100", "7"});
  CHECK(D->target == std::vector<double>{0.5, 0.25});
  // Without inference a non-numeric column is still an error naming it.
  S.inferIds = false;
  S.idColumns.clear();
  auto Strict = parseCsv("gpu,x1,ms\nt4,1,0.5\n", "t.csv", S);
  REQUIRE(!Strict);
  CHECK(Strict.error().str() == "t.csv:2: error: column 'gpu' needs a finite number, got 't4'");
}
