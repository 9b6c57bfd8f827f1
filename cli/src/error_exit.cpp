// cli/: report_current_error (error_exit.hpp).
#include "error_exit.hpp"

#include <exception>
#include <ostream>

#include "batchode/models/model_error.hpp"
#include "stop_signals.hpp"
#include "sweep.hpp"

namespace batchode::cli {

int report_current_error(std::ostream& errors) {
  if (stop_signal() != 0) {  // whatever the work threw on its way out, the signal is why it ended
    try {
      throw;
    } catch (const std::exception& e) {
      return report_stop(errors, e.what());
    } catch (...) {
      return report_stop(errors, "an unknown error");
    }
  }
  try {
    throw;
  } catch (const UsageError& e) {
    errors << "batchode: " << e.what() << "\nRun with --help for more information.\n";
    return 2;
  } catch (const models::ModelError& e) {
    errors << e.what() << '\n';  // "file:line:col: message", at the start of the line as compilers print
    return 1;
  } catch (const std::exception& e) {
    errors << "batchode: " << e.what() << '\n';
    return 1;
  } catch (...) {
    errors << "batchode: an unknown error\n";
    return 1;
  }
}

}  // namespace batchode::cli
