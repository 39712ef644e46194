// An on-disk cache of fast-mode analyses, keyed by the lowered workload itself (its manifest and
// PTX text, hashed), so re-ingesting a dataset after a change to the features or the physical
// model costs lowering only (`ptxcast dataset ... --cache DIR`). A change to the lowering changes
// the PTX and so the key; a change to what the analyzer counts needs a new CountingVersion.
#pragma once

#include "analyzer/Counts.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipeline {

class AnalysisCache {
public:
  /// Bump when the analyzer counts the same PTX differently (it is part of the key).
  static constexpr int CountingVersion = 2;
  /// Bump when the file layout changes (KernelProfile gains a counter, say): entries of a format
  /// from OldestFormat on are read (a counter a format lacks is 0), others analysed again.
  /// Format 4 added tensorMacsInt8; format 3 entries, written before any int8 tensor instruction
  /// was lowered, read it as 0.
  static constexpr int FormatVersion = 4;
  static constexpr int OldestFormat = 3;

  explicit AnalysisCache(std::string Dir) : Dir(std::move(Dir)) {}

  /// The key of a workload: a 64-bit FNV-1a hash of the analysis settings tag, the manifest and
  /// every PTX text, as 16 hex digits.
  static std::string key(std::string_view Settings, std::string_view Manifest,
                         const std::vector<std::string_view> &Ptx);

  /// The cached profiles of a key, or nothing: absent, or an entry that cannot be used (a format
  /// outside OldestFormat..FormatVersion or another counting version, or a checksum that does not
  /// match its content: truncated or altered), which a note on stderr names; the caller analyses
  /// again and stores the result.
  std::optional<std::vector<analyzer::KernelProfile>> load(const std::string &Key) const;
  /// Stores the profiles with their checksum, atomically (a temporary file renamed over the
  /// entry, so concurrent writers and readers see a whole entry); best effort: a failure to
  /// write is not an error.
  void store(const std::string &Key, const std::vector<analyzer::KernelProfile> &P) const;

  /// A profile as one line of an entry (kernel name and every counter, no newline): the form
  /// dataset shard files (DatasetShard.h) use too. Resources are not part of it.
  static std::string profileLine(const analyzer::KernelProfile &P);
  /// Reads profileLine's text back, or a line of OldestFormat (a dataset shard written before
  /// tensorMacsInt8: it reads as 0); nothing when it is malformed.
  static std::optional<analyzer::KernelProfile> parseProfileLine(const std::string &Line);

private:
  std::string Dir;
};

} // namespace pipeline
