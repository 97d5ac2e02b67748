#pragma once
// The subject protocol, version 1 (docs/subject-protocol.md): how mxconform talks to a subject
// that is a command (`--backend 'cmd:...'`) over the command's stdin and stdout. Frames are a
// fixed 16-byte header (magic, kind, payload length) and a payload whose records are
// little-endian and begin with their own size, so that fields can be appended within a version.
// This file encodes and decodes frames; subject_process.h runs the command.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/capabilities.h"
#include "mxconform/error.h"
#include "mxconform/quantize_config.h"

namespace mxconform::wire {

constexpr std::uint32_t kProtocolVersion = 1;
constexpr std::uint32_t kMagic = 0x5343'584D;  // the bytes "MXCS" read as a little-endian u32
constexpr std::size_t kHeaderBytes = 16;       // magic u32, kind u32, payload length u64

enum class FrameKind : std::uint32_t {
  kHello = 1,     // harness -> subject: the protocol version the harness speaks
  kInfo = 2,      // subject -> harness: the version it speaks and its description
  kQuantize = 3,  // harness -> subject: one configuration, shape and input
  kResult = 4,    // subject -> harness: status, message, data and scale bytes
};

// Fixed parts of the records, version 1: the smallest a receiver accepts. A sender may send a
// larger fixed part (a revision appending fields); a receiver reads the fields it knows and skips
// the rest.
constexpr std::size_t kHelloBytes = 8;           // version u32, reserved u32
constexpr std::size_t kInfoFixedBytes = 56;
constexpr std::size_t kQuantizeFixedBytes = 64;
constexpr std::size_t kResultFixedBytes = 32;
// The records as this mxconform sends them, with the appended profile fields (the C ABI's
// mxc_backend_info.profiles/block_shapes and mxc_quantize_params.profile/block_shape). An info
// record that ends before them declares the neuron profile and 8 x 4 blocks only.
constexpr std::size_t kInfoProfileBytes = 64;      // + profiles mask u32, block_shapes mask u32
constexpr std::size_t kQuantizeProfileBytes = 72;  // + profile u32, block_shape u32
constexpr std::size_t kMaxTextBytes = 4096;      // a name, version, description or message

// A frame's header as read from the wire.
struct FrameHeader {
  std::uint32_t magic = 0;
  std::uint32_t kind = 0;
  std::uint64_t length = 0;  // payload bytes after the header
};

// A frame that breaks the protocol (bad magic, unknown kind, a record too short or inconsistent).
class ProtocolError : public Error {
 public:
  using Error::Error;
};

// What a subject says about itself: the facts of mxc_backend_info (backend.h).
struct SubjectDescription {
  std::uint32_t protocol_version = kProtocolVersion;
  std::uint32_t struct_size = kInfoProfileBytes;  // of the info record as received (parse_info)
  std::string name;
  std::string version;
  std::string description;
  Capabilities capabilities;
};

// One quantize request as the subject receives it. A record that ends before the profile fields
// asks for the neuron profile with 8 x 4 blocks.
struct QuantizeRequest {
  QuantizeConfig config;
  std::uint64_t data_bytes = 0;   // what the result must carry
  std::uint64_t scale_bytes = 0;
  const std::uint8_t* input = nullptr;  // P*F little-endian 16-bit patterns, inside the payload
};

// One result as the harness receives it. `data` and `scale` point into the payload.
struct QuantizeResult {
  std::int32_t status = 0;  // enum mxc_status
  std::string message;      // raw bytes from the subject: escape before printing
  std::uint64_t data_bytes = 0;
  std::uint64_t scale_bytes = 0;
  const std::uint8_t* data = nullptr;
  const std::uint8_t* scale = nullptr;
};

// The header's 16 bytes. Parsing checks nothing; callers check magic, kind and length.
void put_header(std::vector<std::uint8_t>& out, FrameKind kind, std::uint64_t length);
FrameHeader parse_header(const std::uint8_t* bytes);

// Whole frames, header included.
std::vector<std::uint8_t> hello_frame(std::uint32_t version = kProtocolVersion);
std::vector<std::uint8_t> info_frame(const SubjectDescription& description);
// The header and fixed record of a quantize frame; the caller sends the input bytes after it.
std::vector<std::uint8_t> quantize_frame_head(const QuantizeConfig& config, std::uint64_t data_bytes,
                                              std::uint64_t scale_bytes);
std::vector<std::uint8_t> result_frame(std::int32_t status, const std::string& message, const std::uint8_t* data,
                                       std::size_t data_bytes, const std::uint8_t* scale, std::size_t scale_bytes);

// Payload parsers (the header already read and checked for its kind). Throw ProtocolError
// naming the field when the record is too short, its sizes disagree with the payload, or a
// text is longer than kMaxTextBytes. parse_info does not judge the version or the masks; it reads
// the profile masks when struct_size covers them (absent or 0: neuron only, 8 x 4 only).
std::uint32_t parse_hello(const std::vector<std::uint8_t>& payload);
SubjectDescription parse_info(const std::vector<std::uint8_t>& payload);
// Also throws ProtocolError when the configuration breaks a rule of the contract.
QuantizeRequest parse_quantize(const std::vector<std::uint8_t>& payload);
QuantizeResult parse_result(const std::vector<std::uint8_t>& payload);

const char* name(FrameKind kind);

}  // namespace mxconform::wire
