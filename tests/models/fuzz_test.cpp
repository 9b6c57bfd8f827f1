// tests/models: random mutations of valid model files (characters and tokens deleted, inserted or
// replaced, lines swapped, duplicated or dropped, names and operators swapped in, truncation), from a
// fixed seed so every run and every platform sees the same 2000 files. Each must either parse or throw
// a ModelError that names fuzz.toml and a line and column inside the file: never another exception, a
// crash or a hang (the sanitized build runs this too). Of those that parse, the generated code (with
// and without Jacobian) of a sample of distinct ones is compiled in one translation unit by the host
// compiler, warnings as errors; a failure prints the model that caused it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "batchode/models/codegen.hpp"
#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"
#include "compile_support.hpp"

namespace {

using namespace batchode::models;
namespace support = batchode::models::testing;

/// splitmix64: defined bit for bit (std's distributions are not the same on every library).
class Random {
 public:
  explicit Random(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  template <class C>
  const auto& pick(const C& c) {
    return c[below(c.size())];
  }

 private:
  std::uint64_t s_;
};

const std::vector<std::string> kSeeds = {
    support::read_file(support::data_dir() + "/lorenz.toml"),
    support::read_file(support::data_dir() + "/every_function.toml"),
    R"(name = "van_der_pol"
equations = """
# stiff for large mu
dx = v
dv = mu * (1 - x^2) * v - x
"""
[states]
x = 2
v = 0
[parameters]
mu = 1
)",
    R"(name = "chain"
equations = '''
a = x * y
b = sin(a) + t * a
c = b**2 - a / (1 + t)
dx = c - x
dy = ifelse(a > 0 or b <= 1, b * x, -y) + exp(-t) * y
'''
observables = ["a", "c"]
[states]
x = 0.4
y = -0.7
[constants]
g = 9.81
)",
    "name = \"one_line\"\nequations = \"dx = -k * x + pow(x, 3) / (1 + abs(x))\"\n[states]\nx = 1\n"
    "[parameters]\nk = 0.5\n",
};

const std::vector<std::string> kTokens = {"x",           "y",
                                          "z",           "v",
                                          "q",           "r",
                                          "s",           "k",
                                          "c",           "t",
                                          "mu",          "rho",
                                          "sigma",       "beta",
                                          "a",           "b",
                                          "g",           "dx",
                                          "dy",          "dz",
                                          "dv",          "dq",
                                          "foo",         "_w",
                                          "exp",         "log",
                                          "sqrt",        "pow",
                                          "sin",         "cos",
                                          "tan",         "asin",
                                          "acos",        "atan",
                                          "atan2",       "sinh",
                                          "cosh",        "tanh",
                                          "abs",         "min",
                                          "max",         "floor",
                                          "ifelse",      "and",
                                          "or",          "not",
                                          "+",           "-",
                                          "*",           "/",
                                          "^",           "**",
                                          "(",           ")",
                                          ",",           "=",
                                          "==",          "!=",
                                          "<",           ">",
                                          "<=",          ">=",
                                          "0",           "1",
                                          "2.5",         ".5",
                                          "1e-3",        "2.5E+3",
                                          "1e999",       "1.2.3",
                                          "2x",          "0.0",
                                          "1e",          "#",
                                          "\n",          "\"",
                                          "'''",         "\"\"\"",
                                          "[states]",    "[parameters]",
                                          "[constants]", "name",
                                          "equations",   "observables",
                                          "= 1\n",       "ifelse(x < 1, 2, 3)",
                                          "sin(",        "atan2(x, y)",
                                          "min(x)",      "-(-(",
                                          "nan",         "inf",
                                          "true",        "[1, 2]",
                                          "{}",          "\\",
                                          "\t",          "é",
                                          "\xff",        std::string(1, '\0')};

const std::string kCharacters = "xyzt0123456789.eE+-*/^()<>=!,#_ \n\t\"'[]{}abdkq\\&|$";

std::string mutate(std::string text, Random& rnd) {
  const std::size_t steps = 1 + rnd.below(3);
  for (std::size_t step = 0; step < steps; ++step) {
    const std::size_t at = rnd.below(text.size() + 1);
    std::vector<std::string> lines;
    switch (rnd.below(11)) {
      case 0:  // delete a character
        if (at < text.size()) text.erase(at, 1);
        break;
      case 1:  // insert a character
        text.insert(at, 1, kCharacters[rnd.below(kCharacters.size())]);
        break;
      case 2:  // replace a character
        if (at < text.size()) text[at] = kCharacters[rnd.below(kCharacters.size())];
        break;
      case 3:  // delete a span
        if (at < text.size()) text.erase(at, 1 + rnd.below(10));
        break;
      case 4:  // insert a token
        text.insert(at, rnd.pick(kTokens));
        break;
      case 5: {  // replace a word (a run of letters, digits and '_') with a token
        std::size_t b = at;
        while (b < text.size() && !std::isalnum(static_cast<unsigned char>(text[b])) && text[b] != '_') ++b;
        std::size_t e = b;
        while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
        text.replace(b, e - b, rnd.pick(kTokens));
        break;
      }
      case 10:  // truncate
        text.resize(at);
        break;
      default: {  // line operations: swap, duplicate, delete, or swap an operator
        std::size_t begin = 0;
        while (begin <= text.size()) {
          const std::size_t nl = text.find('\n', begin);
          lines.push_back(text.substr(begin, nl == std::string::npos ? std::string::npos : nl - begin));
          if (nl == std::string::npos) break;
          begin = nl + 1;
        }
        const std::size_t i = rnd.below(lines.size()), j = rnd.below(lines.size());
        const std::size_t kind = rnd.below(4);
        if (kind == 0) {
          std::swap(lines[i], lines[j]);
        } else if (kind == 1) {
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(j), lines[i]);
        } else if (kind == 2) {
          lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          static const std::string ops = "+-*/^<>";
          std::string& line = lines[i];
          for (char& ch : line) {
            if (ops.find(ch) != std::string::npos && rnd.below(2) == 0) ch = ops[rnd.below(ops.size())];
          }
        }
        text.clear();
        for (std::size_t l = 0; l < lines.size(); ++l) text += (l ? "\n" : "") + lines[l];
        break;
      }
    }
  }
  return text;
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

struct Sampled {
  std::string text;
  std::string type;
  Model model;
  bool jacobian;
};

TEST(ModelFuzz, MutatedFilesParseOrFailWithAPlace) {
  const auto start = std::chrono::steady_clock::now();
  // BATCHODE_MODELS_FUZZ_SEED and _CASES run a longer campaign by hand; CI runs the fixed default.
  const char* seed = std::getenv("BATCHODE_MODELS_FUZZ_SEED");
  const char* cases = std::getenv("BATCHODE_MODELS_FUZZ_CASES");
  Random rnd(seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20261123);
  const std::size_t kCases = cases != nullptr ? std::strtoull(cases, nullptr, 10) : 2000;
  constexpr std::size_t kSample = 30;
  std::size_t parsed = 0, refused = 0;
  std::vector<Sampled> sample;
  std::set<std::string> seen_sources;
  for (std::size_t n = 0; n < kCases; ++n) {
    const std::string text = mutate(rnd.pick(kSeeds), rnd);
    try {
      const Model m = parse_model(read_model_toml(text, "fuzz.toml"));
      ++parsed;
      // What the CLI would do with it: describe it, evaluate it, generate it.
      (void)describe_sparsity(m);
      std::vector<double> y, p, f(m.n_states()), J(m.n_states() * m.n_states()), ft(m.n_states());
      for (const NamedValue& s : m.states()) y.push_back(s.value);
      for (const NamedValue& v : m.parameters()) p.push_back(v.value);
      evaluate_rhs(m, 0.5, y.data(), p.data(), f.data());
      evaluate_jacobian(m, 0.5, y.data(), p.data(), J.data(), ft.data());
      const std::string type = "Fuzz" + std::to_string(sample.size());
      const bool jacobian = sample.size() % 2 == 0;
      const std::string source = generate_system(m, {type, jacobian});
      std::string body = source.substr(source.find('\n'));  // without the header naming the type's source
      body.replace(body.find(type), type.size(), "T");
      if (sample.size() < kSample && seen_sources.insert(body).second)
        sample.push_back({text, type, m, jacobian});
    } catch (const ModelError& e) {
      ++refused;
      const SourceLocation& at = e.where();
      EXPECT_EQ(at.source, "fuzz.toml") << e.what() << "\nmodel:\n" << text;
      EXPECT_GE(at.line, 1u) << e.what() << "\nmodel:\n" << text;
      EXPECT_LE(at.line, count_lines(text) + 1) << e.what() << "\nmodel:\n" << text;
      EXPECT_GE(at.column, 1u) << e.what() << "\nmodel:\n" << text;
      EXPECT_FALSE(e.message().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ModelError: " << e.what() << "\nmodel:\n" << text;
    }
    if (HasFailure()) return;  // one model's report, not two thousand
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "  " << kCases << " mutated files: " << parsed << " parsed, " << refused
            << " refused with a place, " << seconds << " s; " << sample.size() << " distinct ones compiled\n";
  EXPECT_GT(parsed, kCases / 20);  // the mutations leave plenty valid...
  EXPECT_GT(refused, kCases / 4);  // ...and break plenty
  ASSERT_GE(sample.size(), 10u);

  support::TempDir dir;
  std::string tu;
  for (const Sampled& s : sample) {
    tu += generate_system(s.model, {s.type, s.jacobian});
    tu += "static_assert(batchode::is_ode_system_v<" + s.type + ", double>);\n";
    tu += "template void " + s.type +
          "::operator()<double>(double, const double*, const double*, double*) const;\n";
    tu += "template void " + s.type +
          "::operator()<batchode::kernels::Dual<double, 3>>(batchode::kernels::Dual<double, 3>, const "
          "batchode::kernels::Dual<double, 3>*, const batchode::kernels::Dual<double, 3>*, "
          "batchode::kernels::Dual<double, 3>*) const;\n";
    if (s.jacobian) {
      tu += "static_assert(batchode::has_analytic_linearization_v<" + s.type + ", double>);\n";
      tu += "template void " + s.type +
            "::jacobian<double>(double, const double*, const double*, double*) const;\n";
      tu += "template void " + s.type +
            "::time_derivative<double>(double, const double*, const double*, double*) const;\n";
    }
  }
  tu = "#include \"batchode/kernels/linalg/jacobian.hpp\"\n#include \"batchode/kernels/core/system.hpp\"\n" + tu;
  support::write_file(dir.file("fuzz.cpp"), tu);
  const support::RunResult r =
      support::compile({dir.file("fuzz.cpp")}, {"-fsyntax-only"}, dir.file("log.txt"));
  if (r.exit_code != 0) {
    std::string models;
    for (const Sampled& s : sample) {
      if (r.output.find(s.type) != std::string::npos) models += "--- " + s.type + " from:\n" + s.text + "\n";
    }
    ADD_FAILURE() << "generated code of parsed models did not compile:\n"
                  << r.output << "\nthe models named in the errors:\n"
                  << models;
  }
}

}  // namespace
