// src/tensor_files.cpp: the input .npy a quantize reads and the data and scale .npy it writes,
// with every rule a bad file breaks named in the error.
#include "mxconform/tensor_files.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "mxconform/error.h"

namespace mxconform {
namespace {

class TensorFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mxconform-tensor-files-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const npy::Array& array) {
    const std::string path = dir_ + "/" + name;
    npy::write(path, array, false);
    return path;
  }
  static npy::Array array(npy::ElementType type, std::vector<std::size_t> shape) {
    std::size_t count = 1;
    for (std::size_t extent : shape) count *= extent;
    return {type, shape, std::vector<std::uint8_t>(count * npy::element_size(type), 0)};
  }
  static std::string message_of(const std::function<void()>& call) {
    try {
      call();
    } catch (const Error& error) {
      return error.what();
    }
    return "(no error)";
  }
  std::string dir_;
};

TEST_F(TensorFiles, InputDtypeComesFromTheFileOrFromInDtype) {
  npy::Array f16 = array(npy::ElementType::kFloat16, {8, 4});
  f16.bytes[2] = 0x00;
  f16.bytes[3] = 0x3C;  // element 1: 1.0
  const InputTensor from_f2 = read_input_tensor(write("f16.npy", f16), "");
  EXPECT_EQ(from_f2.dtype, InputDtype::kFloat16);
  EXPECT_EQ(from_f2.partitions, 8u);
  EXPECT_EQ(from_f2.free, 4u);
  ASSERT_EQ(from_f2.bits.size(), 32u);
  EXPECT_EQ(from_f2.bits[1], 0x3C00);
  const std::string bits = write("bits.npy", array(npy::ElementType::kUint16, {16, 8}));
  EXPECT_EQ(read_input_tensor(bits, "bfloat16").dtype, InputDtype::kBfloat16);
  EXPECT_EQ(read_input_tensor(bits, "float16").dtype, InputDtype::kFloat16);
}

TEST_F(TensorFiles, BadInputsNameTheFileAndTheRule) {
  const std::string bits = write("bits.npy", array(npy::ElementType::kUint16, {8, 4}));
  EXPECT_NE(message_of([&] { read_input_tensor(bits, ""); }).find(bits + ": holds <u2 raw bits; say which with --in-dtype"),
            std::string::npos);
  const std::string f16 = write("f16.npy", array(npy::ElementType::kFloat16, {8, 4}));
  EXPECT_NE(message_of([&] { read_input_tensor(f16, "bfloat16"); }).find("holds <f2 (float16) values but --in-dtype is bfloat16"),
            std::string::npos);
  const std::string rank3 = write("rank3.npy", array(npy::ElementType::kUint16, {2, 8, 4}));
  EXPECT_NE(message_of([&] { read_input_tensor(rank3, "bfloat16"); }).find("expected a 2-D array [P, F], got shape (2, 8, 4)"),
            std::string::npos);
  const std::string floats = write("f32.npy", array(npy::ElementType::kFloat32, {8, 4}));
  EXPECT_NE(message_of([&] { read_input_tensor(floats, "bfloat16"); }).find("dtype <f4 is not an input"), std::string::npos);
}

TEST_F(TensorFiles, OutputShapesFollowTheGeometry) {
  QuantizeConfig config;
  config.output = OutputDtype::kFloat4E2m1fnX4;
  config.partitions = 40;  // 5 groups: physical rows up to slot(4) = 32, so 33 rows
  config.free = 8;
  const npy::Array data = empty_data_tensor(config);
  const npy::Array scale = empty_scale_tensor(config);
  EXPECT_EQ(data.shape, (std::vector<std::size_t>{40, 4}));
  EXPECT_EQ(scale.shape, (std::vector<std::size_t>{33, 2}));
  QuantizeConfig read_back;
  read_back.output = OutputDtype::kFloat4E2m1fnX4;
  const OutputTensors files = read_output_tensors(write("d.npy", data), write("s.npy", scale), read_back);
  EXPECT_EQ(read_back.partitions, 40u);
  EXPECT_EQ(read_back.free, 8u) << "two FP4 elements a byte";
}

TEST_F(TensorFiles, MismatchedOutputsNameTheFileAndTheExpectedShape) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 8;
  const std::string data = write("d.npy", empty_data_tensor(config));
  const std::string wrong_scale = write("s.npy", array(npy::ElementType::kUint8, {1, 3}));
  QuantizeConfig read_back;
  EXPECT_NE(message_of([&] { read_output_tensors(data, wrong_scale, read_back); })
                .find(wrong_scale + ": shape (1, 3) does not match data (8, 8)"),
            std::string::npos);
  const std::string u16 = write("u16.npy", array(npy::ElementType::kUint16, {8, 8}));
  EXPECT_NE(message_of([&] { read_output_tensors(u16, wrong_scale, read_back); }).find(u16 + ": expected |u1 bytes"),
            std::string::npos);
  const std::string odd = write("odd.npy", array(npy::ElementType::kUint8, {7, 8}));
  EXPECT_NE(message_of([&] { read_output_tensors(odd, wrong_scale, read_back); }).find(odd + ": shape (7, 8): "),
            std::string::npos);
}

}  // namespace
}  // namespace mxconform
