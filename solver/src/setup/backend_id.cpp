// solver/setup/: BackendId's text form, the one place that reads "gpu:<index>".
#include "batchode/solver/setup/backend_id.hpp"

#include <charconv>
#include <ostream>

#include "batchode/checks/invalid_input.hpp"

namespace batchode {

BackendId BackendId::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  constexpr std::string_view gpu_prefix = "gpu:";
  if (text.substr(0, gpu_prefix.size()) == gpu_prefix && text.size() > gpu_prefix.size()) {
    const char* first = text.data() + gpu_prefix.size();
    const char* last = text.data() + text.size();
    int device = -1;
    // from_chars takes no sign, no spaces and no base prefix, and refuses values beyond int.
    const auto [end, error] = std::from_chars(first, last, device);
    if (error == std::errc() && end == last && device >= 0) return gpu(device);
  }
  throw InvalidInput("backend '" + std::string(text) + "': expected \"cpu\" or \"gpu:<device index>\"");
}

std::string to_string(BackendId id) { return id.is_gpu() ? "gpu:" + std::to_string(id.device) : "cpu"; }

BackendId parse_backend(std::string_view text) { return BackendId::parse(text); }

std::ostream& operator<<(std::ostream& out, BackendId id) { return out << to_string(id); }

}  // namespace batchode
