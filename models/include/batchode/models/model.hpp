// models/: a model parsed and checked (Model), the one entry point that checks a description
// (parse_model) and the one that reads a file too (load_model). A Model holds the expression trees of
// its equations and of their symbolic derivatives; codegen.hpp turns them into C++ and evaluate.hpp
// evaluates them.
//
//   batchode::models::Model lorenz = batchode::models::load_model("lorenz.toml");
//   std::string source = batchode::models::generate_system(lorenz, {"Lorenz", true});
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batchode/models/derivative.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/models/model_error.hpp"
#include "batchode/models/parser.hpp"

namespace batchode::models {

struct ModelData;

/// A model parsed and checked; cheap to copy (copies share the immutable trees).
class Model {
 public:
  /// An empty model (no states, no equations): a placeholder to assign a parsed one to.
  Model();

  const std::string& name() const;
  /// The states, algebraic variables included.
  std::size_t n_states() const;
  /// The algebraic variables ([algebraic]): the last n_algebraic() of the states. Their rows of the
  /// equations (ParsedEquations::rhs) are the residuals of the `0 =` lines, row n_states() -
  /// n_algebraic() + k the one matched to algebraic variable k (its diagonal is structurally nonzero).
  std::size_t n_algebraic() const;
  std::size_t n_params() const;
  /// The differential states in declaration order, then the algebraic variables (value: the initial
  /// guess), so every consumer of states (results, y0, saves, events) sees them as the last states.
  const std::vector<NamedValue>& states() const;
  const std::vector<NamedValue>& parameters() const;
  const std::vector<NamedValue>& constants() const;
  /// The drivers (time-varying inputs), in declaration order (= u's index in generated code).
  const std::vector<DriverDescription>& drivers() const;
  /// The auxiliaries' names in order of definition.
  std::vector<std::string> auxiliary_names() const;
  const std::vector<std::string>& observables() const;
  /// The event functions as written (checked), in order; their trees are equations().events (and
  /// equations().event_times for events at given times), their assign statements'
  /// equations().event_assignments.
  const std::vector<EventDescription>& events() const;
  /// Whether event e happens at given times (its at, or every with start) rather than at a zero
  /// crossing. std::out_of_range when e is not below events().size().
  bool is_time_event(std::size_t e) const;
  /// Event e's times when it has `at` and every one reads no parameter (the same in every run: a solve
  /// can check them against its span), in increasing order (parse_model checked it); nullopt for an
  /// event whose at reads a parameter, for `every` and for a zero crossing. std::out_of_range as
  /// is_time_event.
  std::optional<std::vector<double>> constant_event_times(std::size_t e) const;
  /// The structurally nonzero Jacobian entries (i = equation, j = state), row by row: those whose
  /// simplified symbolic derivative is not the literal 0.
  std::vector<std::pair<std::size_t, std::size_t>> jacobian_nonzeros() const;
  const ModelDescription& description() const;

  /// The trees (for the code generator and the interpreter).
  const ParsedEquations& equations() const;
  const Derivatives& derivatives() const;

 private:
  explicit Model(std::shared_ptr<const ModelData> data);
  friend Model parse_model(const ModelDescription& description);
  std::shared_ptr<const ModelData> data_;
};

/// Checks a description and parses its equations. Throws ModelError at the line and column at fault
/// for: a name that is not an identifier, a reserved word (t, and, or, not, ifelse, pow and the
/// function names) or declared twice (states, algebraic variables, parameters, constants, auxiliaries); a
/// value that is not finite; an empty model name or one with control characters; no states; any mistake in
/// the equations (parser.hpp): unknown symbol, a state without an equation or with two, an empty expression,
/// an unexpected token, unbalanced parentheses, a wrong argument count, an auxiliary used before its
/// definition, an invalid number, a line `d<name> = ...` where `<name>` is not a state and nothing reads the
/// auxiliary (no later line, event or observable); an observable that is not an auxiliary, or listed twice;
/// an event whose name is not an identifier or is used twice, whose direction, action or max is not one of
/// the words or >= 1, whose expression does not parse (at its line and column) or is empty without at or
/// every; an event with at and every, with expr and either, with a direction and either, with every but
/// no start or start but no every, whose times do not parse or read a state, t, a driver or an auxiliary
/// (at the name), whose constant times (reading no parameter) are not finite, whose constant at times do
/// not increase (at the first time not after the constant ones before it) or whose constant every is not
/// > 0; an event whose assign is empty, has a
/// statement that is not `<name> = <expr>`, assigns anything but a differential state or a parameter (each
/// kind named), or one state or parameter twice, or has a right side that does not parse (each inside the
/// assign string), or more than 8 events; an algebraic variable with a d equation, a `0 =` line too many or
/// too few, or one that is not `0 =`, and an algebraic variable that no `0 =` equation can be matched to
/// (none depends on it, or too few: the DAE is not of index 1; at its [algebraic] entry).
Model parse_model(const ModelDescription& description);

/// read_model_file + parse_model.
Model load_model(const std::string& path);

/// The Jacobian's sparsity for people (`batchode check`): counts, then one row per equation with a
/// '*' per structural nonzero and '.' per zero, and the states it depends on; an algebraic row is
/// labelled `[<variable>]` (the variable its residual determines), after a line that names them.
std::string describe_sparsity(const Model& model);

}  // namespace batchode::models
