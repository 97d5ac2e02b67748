// Format traits and the output-dtype table, against the seed's numeric facts and the oracle's
// decoding of every code from the format definitions.
#include <gtest/gtest.h>

#include "mxconform/dtype.h"
#include "mxconform/error.h"
#include "mxconform/formats.h"
#include "oracle.h"

namespace mxconform {
namespace {

double value_of(const FormatInfo& format, std::uint32_t code) {
  const oracle::Value v = oracle::decode(format, code);
  EXPECT_TRUE(v.is_finite()) << "code " << code;
  const double magnitude = v.magnitude.convert_to<double>();
  return v.negative ? -magnitude : magnitude;
}

TEST(Formats, E2m1GridIsTheSeedsSixteenPoints) {
  const double expected[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (std::uint32_t code = 0; code < 16; ++code) {
    EXPECT_EQ(value_of(E2M1::info(), code), expected[code]) << "code " << code;
    EXPECT_EQ(std::signbit(value_of(E2M1::info(), code)), code >= 8) << "code " << code;
  }
}

TEST(Formats, MaxCodesDecodeToTheSeedsMaxima) {
  EXPECT_EQ(value_of(E2M1::info(), 0x7), 6.0);
  EXPECT_EQ(value_of(E4M3FN::info(), 0x7E), 448.0);
  EXPECT_EQ(value_of(E5M2::info(), 0x7B), 57344.0);
  EXPECT_EQ(E2M1::info().max_code, 0x7u);
  EXPECT_EQ(E4M3FN::info().max_code, 0x7Eu);
  EXPECT_EQ(E5M2::info().max_code, 0x7Bu);
}

TEST(Formats, SpecialCodes) {
  EXPECT_TRUE(oracle::decode(E4M3FN::info(), 0x7F).is_nan());
  EXPECT_TRUE(oracle::decode(E4M3FN::info(), 0xFF).is_nan());
  EXPECT_TRUE(oracle::decode(E4M3FN::info(), 0x78).is_finite());  // 256: e4m3fn has no Inf
  EXPECT_TRUE(oracle::decode(E5M2::info(), 0x7C).is_inf());
  for (std::uint32_t code : {0x7Du, 0x7Eu, 0x7Fu}) EXPECT_TRUE(oracle::decode(E5M2::info(), code).is_nan());
  for (std::uint32_t code = 0; code < 16; ++code) EXPECT_TRUE(oracle::decode(E2M1::info(), code).is_finite());
}

TEST(Formats, SmallestSubnormals) {
  EXPECT_EQ(value_of(E2M1::info(), 0x1), 0.5);
  EXPECT_EQ(value_of(E4M3FN::info(), 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(value_of(E5M2::info(), 0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(value_of(Bfloat16::info(), 0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(value_of(Float16::info(), 0x0001), std::ldexp(1.0, -24));
}

TEST(Formats, EmaxTableFoundFromTheCodes) {
  EXPECT_EQ(oracle::emax_of(E2M1::info()), 2);
  EXPECT_EQ(oracle::emax_of(E4M3FN::info()), 8);
  EXPECT_EQ(oracle::emax_of(E5M2::info()), 15);
  EXPECT_EQ(element_format(OutputDtype::kFloat4E2m1fnX4).emax, 2);
  EXPECT_EQ(element_format(OutputDtype::kFloat8E4m3fn).emax, 8);
  EXPECT_EQ(element_format(OutputDtype::kFloat8E5m2).emax, 15);
  EXPECT_EQ(element_format(OutputDtype::kFloat8E4m3fnX4).emax, 8);
  EXPECT_EQ(element_format(OutputDtype::kFloat8E5m2X4).emax, 15);
}

TEST(Dtypes, BirIdsNamesAndContainers) {
  struct Row { int id; const char* name; ElementKind element; int per_container; };
  const Row expected[] = {
      {2, "float4_e2m1fn_x4", ElementKind::kFp4E2m1, 4},
      {5, "float8_e4m3fn", ElementKind::kFp8E4m3fn, 1},
      {7, "float8_e5m2", ElementKind::kFp8E5m2, 1},
      {8, "float8_e4m3fn_x4", ElementKind::kFp8E4m3fn, 4},
      {9, "float8_e5m2_x4", ElementKind::kFp8E5m2, 4},
  };
  ASSERT_EQ(output_dtypes().size(), 5u);
  for (const Row& row : expected) {
    const OutputDtype by_id = parse_output_dtype(std::to_string(row.id));
    const OutputDtype by_name = parse_output_dtype(row.name);
    EXPECT_EQ(static_cast<int>(by_id), row.id);
    EXPECT_EQ(by_id, by_name);
    EXPECT_EQ(info(by_id).element, row.element);
    EXPECT_EQ(info(by_id).elements_per_container, row.per_container);
    EXPECT_EQ(name(by_id), row.name);
  }
  EXPECT_EQ(parse_output_dtype("fp4"), OutputDtype::kFloat4E2m1fnX4);
  EXPECT_EQ(parse_output_dtype("e5m2_x4"), OutputDtype::kFloat8E5m2X4);
}

TEST(Dtypes, UnknownNamesAreRejectedWithTheAcceptedList) {
  try {
    parse_output_dtype("float8_e4m3");
    FAIL() << "accepted an unknown dtype";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown output dtype 'float8_e4m3'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("float8_e4m3fn (5)"), std::string::npos);
  }
  EXPECT_THROW(parse_output_dtype("3"), Error);  // BIR id 3 is not a QuantizeMx target
  EXPECT_THROW(parse_input_dtype("float32"), Error);
  EXPECT_EQ(parse_input_dtype("bfloat16"), InputDtype::kBfloat16);
  EXPECT_EQ(parse_input_dtype("float16"), InputDtype::kFloat16);
}

}  // namespace
}  // namespace mxconform
