// cli/: `batchode check MODEL.toml`: the model parsed and checked as a solve would (models/), then
// what the runtime compiler would be given: the generated system with its symbolic Jacobian, and the
// Jacobian's sparsity. Compiles nothing, so it answers in milliseconds.
#include <cctype>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "batchode/models/codegen.hpp"
#include "batchode/models/model.hpp"
#include "commands.hpp"

namespace batchode::cli {

namespace {

/// A C++ type name from the model's name: "lorenz" gives "Lorenz", "van der-pol" "Van_der_pol".
std::string type_name_of(const std::string& model_name) {
  std::string name;
  for (char c : model_name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front()))) name = "Model_" + name;
  name.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(name.front())));
  return name;
}

std::string names(const std::vector<models::NamedValue>& values) {
  std::string out;
  for (const models::NamedValue& v : values) out += (out.empty() ? "" : ", ") + v.name;
  return out;
}

/// "1 state", "3 states".
std::string count(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

int check_command(const std::string& model_path, std::ostream& out) {
  const models::Model model = models::load_model(model_path);  // throws ModelError: file:line:col
  models::CodegenOptions codegen;
  codegen.type_name = type_name_of(model.name());
  codegen.jacobian = true;
  out << "// " << model_path << ": model '" << model.name()
      << "' is valid: " << count(model.n_states(), "state") << " (" << names(model.states()) << "), "
      << count(model.n_params(), "parameter") << " (" << names(model.parameters()) << "), "
      << count(model.constants().size(), "constant");
  if (!model.events().empty()) {
    out << ", " << count(model.events().size(), "event") << " (";
    for (std::size_t e = 0; e < model.events().size(); ++e) {
      const models::EventDescription& ev = model.events()[e];
      out << (e ? ", " : "") << ev.name << ": "
          << (model.is_time_event(e) ? std::string("at given times") : ev.direction) << ", " << ev.action
          << ", max " << ev.max;
      // What its assign sets, in written order: states by name, parameters marked (a switch).
      const std::vector<models::EventAssignment>& assigns = model.equations().event_assignments.at(e);
      for (std::size_t k = 0; k < assigns.size(); ++k) {
        const models::EventAssignment& a = assigns[k];
        out << (k ? ", " : ", assigns {")
            << (a.parameter ? "parameter " + model.parameters()[a.index].name : model.states()[a.index].name)
            << (k + 1 == assigns.size() ? "}" : "");
      }
    }
    out << ")";
  }
  out << "\n\n";
  out << models::generate_system(model, codegen) << '\n';
  out << "// Jacobian sparsity\n" << models::describe_sparsity(model) << '\n';
  return 0;
}

}  // namespace batchode::cli
