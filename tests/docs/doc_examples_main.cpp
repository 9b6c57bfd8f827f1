// tests/docs/: doc_examples_cpp, every C++ example of the docs in one program (scripts/doc_examples.py
// writes the pages' translation units at build time and runs this once per example).
//   doc_examples_cpp --list        the examples' names and digests, one per line
//                                  ("docs/guide/x.md:57 3f2a...")
//   doc_examples_cpp NAME          runs one: its main's exit status; an exception escaping it is
//                                  printed and gives 1
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <utility>

#include "doc_examples_registry.hpp"

namespace doc_examples {

namespace {
struct Entry {
  std::string digest;
  std::function<int()> run;
};
std::map<std::string, Entry>& entries() {
  static std::map<std::string, Entry> all;
  return all;
}
}  // namespace

bool add_entry(const char* key, const char* digest, std::function<int()> run) {
  entries()[key] = Entry{digest, std::move(run)};
  return true;
}

}  // namespace doc_examples

int main(int argc, char** argv) {
  const auto& entries = doc_examples::entries();
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [key, entry] : entries) std::printf("%s %s\n", key.c_str(), entry.digest.c_str());
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: doc_examples_cpp --list | PAGE:LINE\n");
    return 2;
  }
  const auto found = entries.find(argv[1]);
  if (found == entries.end()) {
    std::fprintf(stderr, "doc_examples_cpp: no example %s (rebuild after changing the docs)\n", argv[1]);
    return 2;
  }
  if (!found->second.run) return 0;  // declarations only: compiled, nothing to run
  try {
    return found->second.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "doc_examples_cpp: %s threw: %s\n", argv[1], e.what());
    return 1;
  }
}
