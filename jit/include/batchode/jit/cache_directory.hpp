// jit/: where batchode keeps what it measures or builds on this machine (the cost model's
// coefficients, compiled models). One function, so the cost model and the compiled-model cache can
// never disagree on the folder.
#pragma once

#include <filesystem>

namespace batchode::jit {

/// The cache folder: $BATCHODE_CACHE_DIR, else $XDG_CACHE_HOME/batchode (an absolute
/// $XDG_CACHE_HOME only, as the XDG spec asks), else $HOME/.cache/batchode, else the home folder of
/// the effective user from the password database + /.cache/batchode. Empty variables count as unset.
/// An empty path when none of these exists. The folder is not created here.
std::filesystem::path cache_directory();

}  // namespace batchode::jit
