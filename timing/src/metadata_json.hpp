// timing/src (private): an occurrence's metadata as JSON fields, for the logger's JSON and its trace.
#pragma once

#include <variant>

#include "batchode/timing/json_writer.hpp"
#include "batchode/timing/metadata.hpp"

namespace batchode::detail {

/// Writes each entry of `metadata` as a field of the JSON object `json` has open.
inline void write_metadata_fields(JsonWriter& json, const Metadata& metadata) {
  for (const MetaEntry& entry : metadata) {
    json.key(entry.key);
    std::visit([&](const auto& held) { json.value(held); }, entry.value.storage());
  }
}

}  // namespace batchode::detail
