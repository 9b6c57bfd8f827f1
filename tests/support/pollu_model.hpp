// POLLU (examples/models/pollu.toml): the IVP test set's air-pollution chemistry, 20 species, and its
// published reference solution at t = 60 (Mazzia & Magherini, Test Set for IVP Solvers, release 2.4,
// computed by RADAU5 at tight tolerances), for the tests of the sparse LU (models/sparse_lu_plan.hpp).
#pragma once

#include <array>
#include <string>

namespace batchode::testing {

/// The model file (BATCHODE_EXAMPLE_MODELS_DIR: the repository's examples/models, set by tests/CMakeLists.txt).
inline std::string pollu_model_path() { return std::string(BATCHODE_EXAMPLE_MODELS_DIR) + "/pollu.toml"; }

/// y(60) with the file's defaults (k1 = 0.35).
inline constexpr std::array<double, 20> kPolluAt60 = {
    0.5646255480022769e-01, 0.1342484130422339e+00, 0.4139734331099427e-08, 0.5523140207484359e-02,
    0.2018977262302196e-06, 0.1464541863493966e-06, 0.7784249118997964e-01, 0.3245075353396018e+00,
    0.7494013383880406e-02, 0.1622293157301561e-07, 0.1135863833257075e-07, 0.2230505975721359e-02,
    0.2087162882798630e-03, 0.1396921016840158e-04, 0.8964884856898061e-02, 0.4352846369330103e-17,
    0.6899219696263405e-02, 0.1007803037365946e-03, 0.1772146513969984e-05, 0.5682943292316392e-04};

}  // namespace batchode::testing
