#pragma once
// Input and output dtypes: their names, BIR ids, element formats and container sizes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mxconform/formats.h"

namespace mxconform {

enum class InputDtype { kBfloat16, kFloat16 };

// Output dtypes by BIR id (docs/contract.md, "Output dtypes").
enum class OutputDtype : int {
  kFloat4E2m1fnX4 = 2,
  kFloat8E4m3fn = 5,
  kFloat8E5m2 = 7,
  kFloat8E4m3fnX4 = 8,
  kFloat8E5m2X4 = 9,
};

enum class ElementKind { kFp4E2m1, kFp8E4m3fn, kFp8E5m2 };

struct OutputDtypeInfo {
  OutputDtype id;
  std::string_view name;                  // the NKI name, e.g. "float8_e4m3fn_x4"
  std::vector<std::string_view> aliases;  // short names accepted on the command line
  ElementKind element;
  int elements_per_container;             // 4 for the x4 dtypes, 1 otherwise
};

// All five output dtypes in BIR-id order.
const std::vector<OutputDtypeInfo>& output_dtypes();
const OutputDtypeInfo& info(OutputDtype dtype);
FormatInfo element_format(OutputDtype dtype);
FormatInfo input_format(InputDtype dtype);
bool is_fp4(OutputDtype dtype);

std::string_view name(InputDtype dtype);
std::string_view name(OutputDtype dtype);
// Parse by NKI name, alias or BIR id ("2", "float4_e2m1fn_x4", "fp4", ...). Throws Error naming
// the accepted spellings.
OutputDtype parse_output_dtype(std::string_view text);
InputDtype parse_input_dtype(std::string_view text);

}  // namespace mxconform
