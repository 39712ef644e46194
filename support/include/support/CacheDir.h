// The per-user cache directory every on-disk cache of ptxcast lives in (compiled kernels,
// analyses), and the two rules that keep it bounded: old versions' folders go, and a folder past
// its entry limit loses its oldest entries.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace support {

/// ROOT/Name, ROOT being $PTXCAST_CACHE (`off` or empty: no cache, the result is empty), else
/// $XDG_CACHE_HOME/ptxcast, else $HOME/.cache/ptxcast (empty when neither is set). Name is
/// usually `KIND-VERSION` (`kernels-1a2b...`), VERSION a hash of the sources that produce the
/// entries, so a rebuilt producer never reads another's.
std::string userCacheDir(std::string_view Name);

/// Removes the folders beside Dir whose names start with Prefix, but the Keep most recently
/// written (Dir among them, whatever its age). Best effort: errors are ignored.
void pruneVersions(const std::string &Dir, std::string_view Prefix, size_t Keep);

/// When Dir holds more than MaxEntries files, removes the oldest written until MaxEntries / 2
/// are left (an entry read since is no younger: the cache forgets by age, as a bounded cache
/// must). Best effort: a file another process removed first, or one that cannot be removed, is
/// skipped.
void pruneEntries(const std::string &Dir, size_t MaxEntries);

} // namespace support
