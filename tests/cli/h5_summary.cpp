// tests/cli: h5_summary FILE.h5 prints every dataset (shape, stored type, values) and every attribute
// of an HDF5 file as one JSON object, so the command-line tests (check_run_output.py, plain Python
// without h5py) can read what `batchode run --output FILE.h5` wrote:
//   {"datasets": {"/final_state": {"shape": [8, 3], "type": "float64", "values": [...]}, ...},
//    "attributes": {"/": {"method": "rk4", "t_end": 1, "state_names": ["x", "y", "z"], ...}, ...}}
// Numbers are printed to round-trip (float32 values via double, exactly); NaN as NaN (Python's json
// reads it). Exits 1 with a message when the file cannot be read.
#include <fmt/format.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double v) { return std::isnan(v) ? "NaN" : fmt::format("{}", v); }

std::string type_name(hid_t type) {
  const H5T_class_t c = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (c == H5T_FLOAT) return "float" + std::to_string(8 * size);
  if (c == H5T_INTEGER)
    return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
  if (c == H5T_STRING) return "string";
  return "other";
}

/// An attribute's value as JSON: a string, a list of strings, a number or a list of numbers.
std::string attribute_json(hid_t attr) {
  const hid_t type = H5Aget_type(attr);
  const hid_t space = H5Aget_space(attr);
  const bool scalar = H5Sget_simple_extent_type(space) == H5S_SCALAR;
  const std::size_t n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  std::vector<std::string> items;
  if (H5Tget_class(type) == H5T_STRING) {
    const hid_t memory = H5Tcopy(H5T_C_S1);
    H5Tset_size(memory, H5T_VARIABLE);
    H5Tset_cset(memory, H5T_CSET_UTF8);  // HDF5 converts no character set into another
    std::vector<char*> texts(n);
    if (n > 0 && H5Aread(attr, memory, texts.data()) >= 0) {
      for (char* t : texts) {
        items.push_back(quote(t));
        H5free_memory(t);
      }
    }
    H5Tclose(memory);
  } else {
    std::vector<double> values(n);
    if (n > 0) H5Aread(attr, H5T_NATIVE_DOUBLE, values.data());
    for (double v : values) items.push_back(number(v));
  }
  H5Sclose(space);
  H5Tclose(type);
  if (scalar && items.size() == 1) return items.front();
  return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
}

struct Output {
  std::vector<std::string> datasets, attributes;
};

std::string attributes_json(hid_t object) {
  std::vector<std::string> entries;
  H5Aiterate2(
      object, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t location, const char* name, const H5A_info_t*, void* data) -> herr_t {
        const hid_t attr = H5Aopen(location, name, H5P_DEFAULT);
        static_cast<std::vector<std::string>*>(data)->push_back(quote(name) + ": " + attribute_json(attr));
        H5Aclose(attr);
        return 0;
      },
      &entries);
  return "{" + fmt::format("{}", fmt::join(entries, ", ")) + "}";
}

herr_t visit(hid_t root, const char* name, const H5O_info_t* info, void* data) {
  Output& out = *static_cast<Output*>(data);
  const std::string path = std::string(name) == "." ? "/" : "/" + std::string(name);
  const hid_t object = H5Oopen(root, name, H5P_DEFAULT);
  out.attributes.push_back(quote(path) + ": " + attributes_json(object));
  if (info->type == H5O_TYPE_DATASET) {
    const hid_t type = H5Dget_type(object);
    const hid_t space = H5Dget_space(object);
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (!values.empty()) H5Dread(object, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    std::vector<std::string> numbers;
    for (double v : values) numbers.push_back(number(v));
    out.datasets.push_back(fmt::format("{}: {{\"shape\": [{}], \"type\": {}, \"values\": [{}]}}", quote(path),
                                       fmt::join(dims, ", "), quote(type_name(type)),
                                       fmt::join(numbers, ", ")));
    H5Sclose(space);
    H5Tclose(type);
  }
  H5Oclose(object);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: h5_summary FILE.h5\n");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    std::fprintf(stderr, "h5_summary: cannot open %s as HDF5\n", argv[1]);
    return 1;
  }
  Output out;
  if (H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &out) < 0) {
    std::fprintf(stderr, "h5_summary: cannot read %s\n", argv[1]);
    return 1;
  }
  H5Fclose(file);
  std::printf("{\"datasets\": {%s},\n \"attributes\": {%s}}\n",
              fmt::format("{}", fmt::join(out.datasets, ", ")).c_str(),
              fmt::format("{}", fmt::join(out.attributes, ", ")).c_str());
  return 0;
}
