// The subject protocol's frames (registry/subject_protocol.cpp) against the byte layouts of
// docs/subject-protocol.md, written out by hand here; and the command splitting of
// registry/subject_process.cpp.
#include "mxconform/subject_protocol.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/backend.h"
#include "mxconform/subject_process.h"

namespace mxconform::wire {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes payload_of(const Bytes& frame) { return Bytes(frame.begin() + kHeaderBytes, frame.end()); }

TEST(SubjectProtocol, HelloIsTheDocumentedTwentyFourBytes) {
  const Bytes expected = {0x4d, 0x58, 0x43, 0x53, 0x01, 0, 0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0,  // MXCS, kind 1, length 8
                          0x01, 0, 0, 0, 0, 0, 0, 0};                                          // version 1, reserved
  EXPECT_EQ(hello_frame(), expected);
  EXPECT_EQ(parse_hello(payload_of(expected)), 1u);
}

TEST(SubjectProtocol, QuantizeHeadMatchesTheWorkedExample) {
  QuantizeConfig config;  // bfloat16 -> float8_e4m3fn, default knobs, one block
  config.partitions = 8;
  config.free = 4;
  const Bytes expected = {
      0x4d, 0x58, 0x43, 0x53, 0x03, 0, 0, 0, 0x88, 0, 0, 0, 0, 0, 0, 0,  // kind 3, length 72 + 64
      0x48, 0, 0, 0, 0, 0, 0, 0, 0x05, 0, 0, 0, 0, 0, 0, 0,              // struct_size 72, bfloat16, id 5, emax
      0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0,                 // canonical, stride 0, parity 1, physical
      0x08, 0, 0, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0,              // P 8, F 4
      0x20, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0,              // 32 data bytes, 1 scale byte
      0, 0, 0, 0, 0, 0, 0, 0};                                           // profile 0 neuron, block shape 0 8x4
  EXPECT_EQ(quantize_frame_head(config, 32, 1), expected);

  Bytes payload = payload_of(expected);
  payload.resize(payload.size() + 2 * 32, 0);
  payload[72] = 0xE8;  // input element 0: 0x43E8
  payload[73] = 0x43;
  const QuantizeRequest request = parse_quantize(payload);
  EXPECT_EQ(request.config.output, OutputDtype::kFloat8E4m3fn);
  EXPECT_EQ(request.config.partitions, 8u);
  EXPECT_EQ(request.config.fp4_high_parity, 1);
  EXPECT_EQ(request.config.profile, ProfileId::kNeuron);
  EXPECT_EQ(request.config.block_shape, BlockShape::k8x4);
  EXPECT_EQ(request.data_bytes, 32u);
  EXPECT_EQ(request.input[0], 0xE8);
  EXPECT_EQ(request.input[1], 0x43);
}

// docs/subject-protocol.md: profile u32 at offset 64, block shape u32 at 68 (enum mxc_profile,
// enum mxc_block_shape: ocp-floor 3, 1x32 1).
TEST(SubjectProtocol, QuantizeCarriesTheProfileAndBlockShape) {
  QuantizeConfig config;
  apply_profile(config, ProfileId::kOcpFloor);  // 1 x 32 blocks, logical scales
  config.partitions = 1;
  config.free = 32;
  const Bytes head = quantize_frame_head(config, 32, 1);
  ASSERT_EQ(head.size(), kHeaderBytes + 72);
  const Bytes appended(head.begin() + kHeaderBytes + 64, head.end());
  EXPECT_EQ(appended, (Bytes{3, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(head[kHeaderBytes + 28], 1);  // scale layout logical

  Bytes payload = payload_of(head);
  payload.resize(payload.size() + 2 * 32, 0);
  const QuantizeRequest request = parse_quantize(payload);
  EXPECT_EQ(request.config.profile, ProfileId::kOcpFloor);
  EXPECT_EQ(request.config.block_shape, BlockShape::k1x32);
  EXPECT_EQ(request.config.free, 32u);

  Bytes unknown_profile = payload;
  unknown_profile[64] = 9;  // one past the last mxc_profile
  EXPECT_THROW(parse_quantize(unknown_profile), ProtocolError);
  Bytes unknown_shape = payload;
  unknown_shape[68] = 3;  // one past the last mxc_block_shape
  EXPECT_THROW(parse_quantize(unknown_shape), ProtocolError);
}

// A harness of an earlier revision sends the 64-byte record: a neuron request with 8 x 4 blocks.
TEST(SubjectProtocol, QuantizeOfTheEarlierLengthIsNeuron8x4) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 4;
  Bytes payload = payload_of(quantize_frame_head(config, 32, 1));
  payload.erase(payload.begin() + 64, payload.begin() + 72);
  payload[0] = 64;
  payload.resize(payload.size() + 2 * 32, 0);
  const QuantizeRequest request = parse_quantize(payload);
  EXPECT_EQ(request.config.profile, ProfileId::kNeuron);
  EXPECT_EQ(request.config.block_shape, BlockShape::k8x4);
  EXPECT_EQ(request.input, payload.data() + 64);
}

TEST(SubjectProtocol, QuantizeRejectsBrokenRules) {
  QuantizeConfig config;
  config.partitions = 8;
  config.free = 4;
  Bytes payload = payload_of(quantize_frame_head(config, 32, 1));
  EXPECT_THROW(parse_quantize(payload), ProtocolError);  // no input after the record
  payload.resize(payload.size() + 64, 0);
  Bytes wrong_sizes = payload;
  wrong_sizes[48] = 31;  // data_bytes 31 for a 32-byte configuration
  EXPECT_THROW(parse_quantize(wrong_sizes), ProtocolError);
  Bytes bad_shape = payload;
  bad_shape[32] = 7;  // P = 7 is no multiple of 8
  EXPECT_THROW(parse_quantize(bad_shape), ProtocolError);
  Bytes short_record = payload;
  short_record[0] = 63;  // struct_size below version 1's 64
  EXPECT_THROW(parse_quantize(short_record), ProtocolError);
  Bytes beyond = payload;
  beyond[0] = 0xFF;  // struct_size past the payload
  beyond[1] = 0xFF;
  EXPECT_THROW(parse_quantize(beyond), ProtocolError);
}

TEST(SubjectProtocol, InfoRoundTripsAndSkipsAppendedFields) {
  SubjectDescription d;
  d.name = "mine";
  d.version = "2.1";
  d.description = "a test";
  d.capabilities.input_dtypes = 0b01;
  d.capabilities.output_dtypes = 1u << 5;
  d.capabilities.fp4_lane_strides = 1;
  d.capabilities.profiles = 0b1000'1001;  // neuron, ocp-floor, torchao-ceil
  d.capabilities.block_shapes = 0b011;    // 8x4, 1x32
  const Bytes frame = info_frame(d);
  ASSERT_EQ(frame.size(), kHeaderBytes + 64 + 4 + 3 + 6);
  EXPECT_EQ(frame[kHeaderBytes], 64);  // struct_size
  // The appended masks at offsets 56 and 60, before the texts.
  EXPECT_EQ(Bytes(frame.begin() + kHeaderBytes + 56, frame.begin() + kHeaderBytes + 64),
            (Bytes{0x89, 0, 0, 0, 0x03, 0, 0, 0}));
  EXPECT_EQ(frame[kHeaderBytes + 64], 'm');
  const SubjectDescription read = parse_info(payload_of(frame));
  EXPECT_EQ(read.protocol_version, 1u);
  EXPECT_EQ(read.struct_size, 64u);
  EXPECT_EQ(read.name, "mine");
  EXPECT_EQ(read.version, "2.1");
  EXPECT_EQ(read.description, "a test");
  EXPECT_EQ(read.capabilities.output_dtypes, 1u << 5);
  EXPECT_EQ(read.capabilities.profiles, 0x89u);
  EXPECT_EQ(read.capabilities.block_shapes, 0b011u);

  // A later revision of version 1 with 8 more bytes in the record: the known fields still read.
  Bytes longer = payload_of(frame);
  longer.insert(longer.begin() + 64, 8, 0xAB);
  longer[0] = 72;
  EXPECT_EQ(parse_info(longer).description, "a test");
  EXPECT_EQ(parse_info(longer).capabilities.profiles, 0x89u);
}

// A subject of the earlier revision sends the 56-byte info record: neuron only, 8 x 4 only.
TEST(SubjectProtocol, InfoOfTheEarlierLengthIsNeuron8x4Only) {
  SubjectDescription d;
  d.name = "old";
  d.capabilities.profiles = 0b1000;  // what it would have said had it known the fields
  Bytes payload = payload_of(info_frame(d));
  payload.erase(payload.begin() + 56, payload.begin() + 64);
  payload[0] = 56;
  const SubjectDescription read = parse_info(payload);
  EXPECT_EQ(read.struct_size, 56u);
  EXPECT_EQ(read.name, "old");
  EXPECT_EQ(read.capabilities.profiles, 1u << MXC_PROFILE_NEURON);
  EXPECT_EQ(read.capabilities.block_shapes, 1u << MXC_BLOCK_8X4);

  QuantizeConfig ocp;
  apply_profile(ocp, ProfileId::kOcpFloor);
  ocp.partitions = 1;
  ocp.free = 32;
  EXPECT_EQ(read.capabilities.undeclared(ocp), "profile ocp-floor");  // never sent: not supported

  // Masks of 0 in a 64-byte record keep the same defaults, as in mxc_backend_info.
  Bytes zeros = payload_of(info_frame(d));
  for (std::size_t i = 56; i < 64; ++i) zeros[i] = 0;
  EXPECT_EQ(parse_info(zeros).capabilities.profiles, 1u << MXC_PROFILE_NEURON);
  EXPECT_EQ(parse_info(zeros).capabilities.block_shapes, 1u << MXC_BLOCK_8X4);
}

TEST(SubjectProtocol, InfoOfAnotherVersionIsReadForItsVersionOnly) {
  Bytes payload = {0x08, 0, 0, 0, 0x02, 0, 0, 0};  // struct_size 8, version 2: nothing else
  EXPECT_EQ(parse_info(payload).protocol_version, 2u);
}

TEST(SubjectProtocol, InfoLengthsMustAddUp) {
  SubjectDescription d;
  d.name = "x";
  Bytes payload = payload_of(info_frame(d));
  payload.push_back('!');  // one byte more than the texts announce
  EXPECT_THROW(parse_info(payload), ProtocolError);
  Bytes huge = payload_of(info_frame(d));
  huge[40] = 0xFF;  // a name of 0x10000FF bytes... past the limit
  huge[43] = 0x01;
  EXPECT_THROW(parse_info(huge), ProtocolError);
}

TEST(SubjectProtocol, ResultRoundTripsAndItsSizesMustAddUp) {
  const Bytes data = {0x7E, 0x79}, scale = {0x7F};
  const Bytes frame = result_frame(MXC_STATUS_OK, "", data.data(), data.size(), scale.data(), scale.size());
  const Bytes expected = {0x4d, 0x58, 0x43, 0x53, 0x04, 0, 0, 0, 35, 0, 0, 0, 0, 0, 0, 0,  // kind 4, 32 + 3
                          32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,              // struct_size, ok, no message
                          2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,               // 2 data, 1 scale
                          0x7E, 0x79, 0x7F};
  EXPECT_EQ(frame, expected);
  const Bytes payload = payload_of(frame);  // the result points into it
  const QuantizeResult result = parse_result(payload);
  EXPECT_EQ(result.status, MXC_STATUS_OK);
  EXPECT_EQ(result.data_bytes, 2u);
  EXPECT_EQ(result.scale[0], 0x7F);

  Bytes lying = payload_of(frame);
  lying[16] = 3;  // claims 3 data bytes: 3 + 1 is not the 3 that follow
  EXPECT_THROW(parse_result(lying), ProtocolError);
  Bytes error = payload_of(result_frame(MXC_STATUS_ERROR, "no GPU", nullptr, 0, nullptr, 0));
  EXPECT_EQ(parse_result(error).message, "no GPU");
  EXPECT_THROW(parse_result(Bytes{1, 2}), ProtocolError);
}

TEST(SplitCommand, SplitsLikeAShellWithoutExpanding) {
  EXPECT_EQ(split_command("python3 my.py --flag"), (std::vector<std::string>{"python3", "my.py", "--flag"}));
  EXPECT_EQ(split_command("  a   'b c'  \"d \\\" e\" f\\ g  "), (std::vector<std::string>{"a", "b c", "d \" e", "f g"}));
  EXPECT_EQ(split_command("echo $HOME '*'"), (std::vector<std::string>{"echo", "$HOME", "*"}));
  EXPECT_EQ(split_command("x ''"), (std::vector<std::string>{"x", ""}));
  EXPECT_THROW(split_command("python3 'unterminated"), Error);
  EXPECT_THROW(split_command("python3 \"unterminated"), Error);
  EXPECT_THROW(split_command("   "), Error);
  EXPECT_THROW(split_command("trailing\\"), Error);
}

TEST(SplitCommand, NamesACommandByItsPrefix) {
  EXPECT_TRUE(names_a_command("cmd:python3 x.py"));
  EXPECT_FALSE(names_a_command("./libx.so"));
  EXPECT_FALSE(names_a_command("scalar"));
}

}  // namespace
}  // namespace mxconform::wire
