// jit/: where batchode keeps what it measures or builds on this machine (the cost model's
// coefficients, compiled models). One function, so the cost model and the compiled-model cache can
// never disagree on the folder.
#pragma once

#include <cstdint>
#include <filesystem>

namespace batchode::jit {

/// The cache folder: $BATCHODE_CACHE_DIR, else $XDG_CACHE_HOME/batchode (an absolute
/// $XDG_CACHE_HOME only, as the XDG spec asks), else $HOME/.cache/batchode, else the home folder of
/// the effective user from the password database + /.cache/batchode. Empty variables count as unset.
/// An empty path when none of these exists. The folder is not created here.
std::filesystem::path cache_directory();

/// The most bytes one kind of compiled artifact (cpu, pch, gpu) may take in the cache folder before
/// the least recently used are deleted: $BATCHODE_CACHE_MAX_SIZE, a whole number of bytes with an
/// optional K, M or G (powers of 1024; 0: no limit), else 2 GiB. Throws InvalidInput naming the
/// variable, its value and the allowed forms otherwise.
std::uintmax_t cache_capacity();

}  // namespace batchode::jit
