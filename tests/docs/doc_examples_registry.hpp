// tests/docs/: the registry of the docs' C++ examples. scripts/doc_examples.py --emit-cpp writes one
// translation unit per page (README.md, docs/guide/*.md); each program of a page registers its
// `int main` (renamed doc_main) under the page and line of its first block, "docs/guide/x.md:57",
// with a digest of its text (the script checks that the program it runs is the page's);
// doc_examples_main.cpp runs one by that name. Declarations without a main register nullptr:
// compiled, nothing to run.
#pragma once

#include <functional>

namespace doc_examples {

bool add_entry(const char* key, const char* digest, std::function<int()> run);

inline bool add(const char* key, const char* digest, std::nullptr_t) {
  return add_entry(key, digest, nullptr);
}
inline bool add(const char* key, const char* digest, int (*main)()) { return add_entry(key, digest, main); }
inline bool add(const char* key, const char* digest, int (*main)(int, char**)) {
  return add_entry(key, digest, [main] {
    static char name[] = "doc_example";
    char* argv[] = {name, nullptr};
    return main(1, argv);
  });
}

}  // namespace doc_examples
