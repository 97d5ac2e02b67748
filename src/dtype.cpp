#include "mxconform/dtype.h"

#include "mxconform/error.h"

namespace mxconform {

const std::vector<OutputDtypeInfo>& output_dtypes() {
  static const std::vector<OutputDtypeInfo> kTable = {
      {OutputDtype::kFloat4E2m1fnX4, "float4_e2m1fn_x4", {"fp4", "e2m1", "mxfp4"}, ElementKind::kFp4E2m1, 4},
      {OutputDtype::kFloat8E4m3fn, "float8_e4m3fn", {"fp8_e4m3", "e4m3", "mxfp8_e4m3"}, ElementKind::kFp8E4m3fn, 1},
      {OutputDtype::kFloat8E5m2, "float8_e5m2", {"fp8_e5m2", "e5m2", "mxfp8_e5m2"}, ElementKind::kFp8E5m2, 1},
      {OutputDtype::kFloat8E4m3fnX4, "float8_e4m3fn_x4", {"fp8_e4m3_x4", "e4m3_x4"}, ElementKind::kFp8E4m3fn, 4},
      {OutputDtype::kFloat8E5m2X4, "float8_e5m2_x4", {"fp8_e5m2_x4", "e5m2_x4"}, ElementKind::kFp8E5m2, 4},
  };
  return kTable;
}

const OutputDtypeInfo& info(OutputDtype dtype) {
  for (const auto& entry : output_dtypes()) {
    if (entry.id == dtype) return entry;
  }
  throw Error("unknown output dtype id " + std::to_string(static_cast<int>(dtype)));
}

FormatInfo element_format(OutputDtype dtype) {
  switch (info(dtype).element) {
    case ElementKind::kFp4E2m1: return E2M1::info();
    case ElementKind::kFp8E4m3fn: return E4M3FN::info();
    case ElementKind::kFp8E5m2: return E5M2::info();
  }
  throw Error("unknown element kind");
}

FormatInfo input_format(InputDtype dtype) {
  return dtype == InputDtype::kBfloat16 ? Bfloat16::info() : Float16::info();
}

bool is_fp4(OutputDtype dtype) { return info(dtype).element == ElementKind::kFp4E2m1; }

std::string_view name(InputDtype dtype) {
  return dtype == InputDtype::kBfloat16 ? "bfloat16" : "float16";
}

std::string_view name(OutputDtype dtype) { return info(dtype).name; }

OutputDtype parse_output_dtype(std::string_view text) {
  std::string accepted;
  for (const auto& entry : output_dtypes()) {
    if (text == entry.name || text == std::to_string(static_cast<int>(entry.id))) return entry.id;
    for (auto alias : entry.aliases) {
      if (text == alias) return entry.id;
    }
    if (!accepted.empty()) accepted += ", ";
    accepted += std::string(entry.name) + " (" + std::to_string(static_cast<int>(entry.id)) + ")";
  }
  throw Error("unknown output dtype '" + std::string(text) + "'; expected one of " + accepted);
}

InputDtype parse_input_dtype(std::string_view text) {
  if (text == "bfloat16" || text == "bf16") return InputDtype::kBfloat16;
  if (text == "float16" || text == "f16" || text == "fp16" || text == "half") return InputDtype::kFloat16;
  throw Error("unknown input dtype '" + std::string(text) + "'; expected bfloat16 or float16");
}

}  // namespace mxconform
