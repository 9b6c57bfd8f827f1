// tests/timing/: an NVTX injection library, loaded by NVTX 3 through NVTX_INJECTION64_PATH exactly
// as Nsight Systems' is, that records the ranges pushed and popped on each thread instead of
// drawing them. nvtx_ranges_test.cpp reads the record through nvtx_test_ranges().
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex mutex;
std::vector<std::string> ranges;  // "push <name>" and "pop", in order

int NVTX_API push(const char* name) {
  const std::lock_guard<std::mutex> lock(mutex);
  ranges.push_back(std::string("push ") + name);
  return 0;
}

int NVTX_API pop() {
  const std::lock_guard<std::mutex> lock(mutex);
  ranges.emplace_back("pop");
  return 0;
}

}  // namespace

extern "C" {

// What the test reads: a copy of the record, one entry per line.
__attribute__((visibility("default"))) std::string* nvtx_test_ranges() {
  const std::lock_guard<std::mutex> lock(mutex);
  auto* text = new std::string;
  for (const std::string& entry : ranges) *text += entry + "\n";
  return text;
}

// NVTX's entry point for a tool: installs the two callbacks in NVTX's core function table.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || table == nullptr) return 0;
  if (size <= NVTX_CBID_CORE_RangePop) return 0;
  *table[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(&push);
  *table[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&pop);
  return 1;
}

}  // extern "C"
