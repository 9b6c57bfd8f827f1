// timing/: MetaValue and Metadata, the key/value annotations of a timed event.
#include "batchode/timing/metadata.hpp"

#include <fmt/format.h>

namespace batchode {

bool MetaValue::numeric(double& out) const noexcept {
  if (const auto* i = std::get_if<std::int64_t>(&value_)) {
    out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&value_)) {
    out = *d;
    return true;
  }
  return false;
}

std::string MetaValue::to_string() const {
  if (is_int()) return fmt::format("{}", as_int());
  if (is_double()) return fmt::format("{}", as_double());
  return as_string();
}

Metadata::Metadata(std::initializer_list<MetaEntry> entries) {
  entries_.reserve(entries.size());
  for (const MetaEntry& entry : entries) set(entry.key, entry.value);
}

// A linear search: an event carries a handful of keys, and their order is kept for printing.
void Metadata::set(std::string key, MetaValue value) {
  for (MetaEntry& entry : entries_) {
    if (entry.key == key) {
      entry.value = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

const MetaValue* Metadata::find(std::string_view key) const noexcept {
  for (const MetaEntry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string Metadata::to_string() const {
  std::string text;
  for (const MetaEntry& entry : entries_) {
    if (!text.empty()) text += ", ";
    if (entry.value.is_string()) {
      text += fmt::format("{}=\"{}\"", entry.key, entry.value.as_string());
    } else {
      text += fmt::format("{}={}", entry.key, entry.value.to_string());
    }
  }
  return text;
}

}  // namespace batchode
