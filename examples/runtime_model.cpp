// examples/runtime_model: a model written as equations in a string, compiled at run time (no GPU
// compiler, no rebuild of this program: change the text and run again), swept over a parameter and
// solved on every core. The first run compiles the model (a few seconds); later runs load it from the
// cache ($BATCHODE_CACHE_DIR, else ~/.cache/batchode) in milliseconds.
//
//   runtime_model [mu_max]      (default 5): Van der Pol, mu in [0.1, mu_max], 8 runs
#include <batchode/batchode.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char** argv) {
  const double mu_max = argc > 1 ? std::atof(argv[1]) : 5.0;
  try {
    batchode::models::ModelDescription text;
    text.name = "van_der_pol";
    text.equations =
        "dx = v\n"
        "dv = mu * (1 - x^2) * v - x\n";
    text.states = {{"x", 2.0}, {"v", 0.0}};
    text.parameters = {{"mu", 1.0}};
    // Parsed and checked here: a mistake in the text throws models::ModelError naming line and column.
    batchode::RuntimeModel<double> vdp(batchode::models::parse_model(text));

    const batchode::Batch<double> batch =
        batchode::GridBuilder<double>(vdp.default_y0(), vdp.default_params())
            .names(vdp.state_names(), vdp.parameter_names())
            .param("mu", batchode::linspace<double>(0.1, mu_max, 8))
            .build(batchode::GridKind::combinatorial);
    batchode::SolveOptions options;
    options.t_end = 20.0;
    options.method = batchode::Method::rodas4;  // stiff for large mu: the generated Jacobian is used
    options.rtol = options.atol = 1e-8;
    const batchode::SolveResult<double> r = batchode::solve_ivp(vdp, batch, options);
    std::printf("%8s %12s %12s %8s\n", "mu", "x(20)", "v(20)", "status");
    for (std::size_t i = 0; i < r.n_runs(); ++i) {
      std::printf("%8.3f %12.6f %12.6f %8s\n", batch.params[i], r.final_state(i, 0), r.final_state(i, 1),
                  batchode::to_string(r.status(i)).c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
