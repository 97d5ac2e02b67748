#include "mxconform/subject_protocol.h"

#include <cstring>
#include <initializer_list>

#include "mxconform/backend_params.h"

namespace mxconform::wire {
namespace {

// Little-endian fields, whatever the host's order.
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
std::uint32_t get_u32(const std::uint8_t* at) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | at[i];
  return value;
}
std::uint64_t get_u64(const std::uint8_t* at) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | at[i];
  return value;
}

// The runs of u32 fields of the records, in wire order, as members of the struct they fill: one
// table serves both the writer and the reader of a run.
template <typename Record>
using U32Fields = std::initializer_list<std::uint32_t Record::*>;
// info, offset 8: the six masks before the lane strides; offset 56: the appended profile masks.
const U32Fields<Capabilities> kInfoMasks = {&Capabilities::input_dtypes,     &Capabilities::output_dtypes,
                                            &Capabilities::emax_modes,       &Capabilities::fp8_nan_policies,
                                            &Capabilities::scale_layouts,    &Capabilities::fp4_high_parities};
const U32Fields<Capabilities> kInfoProfileMasks = {&Capabilities::profiles, &Capabilities::block_shapes};
// quantize, offset 4: dtypes and knobs; offset 64: the appended profile and block shape.
const U32Fields<mxc_quantize_params> kQuantizeKnobs = {
    &mxc_quantize_params::input_dtype,     &mxc_quantize_params::output_dtype,    &mxc_quantize_params::emax_mode,
    &mxc_quantize_params::fp8_nan,         &mxc_quantize_params::fp4_lane_stride, &mxc_quantize_params::fp4_high_parity,
    &mxc_quantize_params::scale_layout};
const U32Fields<mxc_quantize_params> kQuantizeProfile = {&mxc_quantize_params::profile, &mxc_quantize_params::block_shape};

template <typename Record>
void put_fields(std::vector<std::uint8_t>& out, const Record& record, const U32Fields<Record>& fields) {
  for (std::uint32_t Record::*field : fields) put_u32(out, record.*field);
}
template <typename Record>
void get_fields(const std::uint8_t* at, Record& record, const U32Fields<Record>& fields) {
  for (std::uint32_t Record::*field : fields) {
    record.*field = get_u32(at);
    at += 4;
  }
}

// The fixed part of a record: its struct_size, checked against the minimum this version knows
// and the payload it came in.
std::size_t fixed_size(const std::vector<std::uint8_t>& payload, std::size_t minimum, const char* record) {
  if (payload.size() < 4) throw ProtocolError(std::string(record) + ": payload of " + std::to_string(payload.size()) + " bytes, shorter than its struct_size field");
  const std::uint32_t size = get_u32(payload.data());
  if (size < minimum) {
    throw ProtocolError(std::string(record) + ": struct_size " + std::to_string(size) + " is below the " +
                        std::to_string(minimum) + " bytes of protocol version " + std::to_string(kProtocolVersion));
  }
  if (size > payload.size()) {
    throw ProtocolError(std::string(record) + ": struct_size " + std::to_string(size) + " is beyond the payload of " +
                        std::to_string(payload.size()) + " bytes");
  }
  return size;
}

std::uint32_t text_length(std::uint32_t length, const char* field) {
  if (length > kMaxTextBytes) {
    throw ProtocolError(std::string(field) + " of " + std::to_string(length) + " bytes, above the limit of " +
                        std::to_string(kMaxTextBytes));
  }
  return length;
}

void put_text(std::vector<std::uint8_t>& out, const std::string& text) { out.insert(out.end(), text.begin(), text.end()); }

std::string cut(const std::string& text) { return text.substr(0, kMaxTextBytes); }

}  // namespace

const char* name(FrameKind kind) {
  switch (kind) {
    case FrameKind::kHello: return "hello";
    case FrameKind::kInfo: return "info";
    case FrameKind::kQuantize: return "quantize";
    case FrameKind::kResult: return "result";
  }
  return "?";
}

void put_header(std::vector<std::uint8_t>& out, FrameKind kind, std::uint64_t length) {
  put_u32(out, kMagic);
  put_u32(out, static_cast<std::uint32_t>(kind));
  put_u64(out, length);
}

FrameHeader parse_header(const std::uint8_t* bytes) { return {get_u32(bytes), get_u32(bytes + 4), get_u64(bytes + 8)}; }

std::vector<std::uint8_t> hello_frame(std::uint32_t version) {
  std::vector<std::uint8_t> out;
  put_header(out, FrameKind::kHello, kHelloBytes);
  put_u32(out, version);
  put_u32(out, 0);
  return out;
}

std::vector<std::uint8_t> info_frame(const SubjectDescription& d) {
  const std::string name = cut(d.name), version = cut(d.version), description = cut(d.description);
  std::vector<std::uint8_t> out;
  put_header(out, FrameKind::kInfo, kInfoProfileBytes + name.size() + version.size() + description.size());
  put_u32(out, kInfoProfileBytes);
  put_u32(out, d.protocol_version);
  const Capabilities& c = d.capabilities;
  put_fields(out, c, kInfoMasks);
  put_u64(out, c.fp4_lane_strides);
  put_u32(out, static_cast<std::uint32_t>(name.size()));
  put_u32(out, static_cast<std::uint32_t>(version.size()));
  put_u32(out, static_cast<std::uint32_t>(description.size()));
  put_u32(out, 0);
  put_fields(out, c, kInfoProfileMasks);
  put_text(out, name);
  put_text(out, version);
  put_text(out, description);
  return out;
}

std::vector<std::uint8_t> quantize_frame_head(const QuantizeConfig& config, std::uint64_t data_bytes,
                                              std::uint64_t scale_bytes) {
  const mxc_quantize_params p = params_from_config(config);
  std::vector<std::uint8_t> out;
  put_header(out, FrameKind::kQuantize, kQuantizeProfileBytes + 2 * p.partitions * p.free);
  put_u32(out, kQuantizeProfileBytes);
  put_fields(out, p, kQuantizeKnobs);
  for (std::uint64_t field : {std::uint64_t{p.partitions}, std::uint64_t{p.free}, data_bytes, scale_bytes}) put_u64(out, field);
  put_fields(out, p, kQuantizeProfile);
  return out;
}

std::vector<std::uint8_t> result_frame(std::int32_t status, const std::string& message, const std::uint8_t* data,
                                       std::size_t data_bytes, const std::uint8_t* scale, std::size_t scale_bytes) {
  const std::string text = cut(message);
  std::vector<std::uint8_t> out;
  out.reserve(kHeaderBytes + kResultFixedBytes + text.size() + data_bytes + scale_bytes);
  put_header(out, FrameKind::kResult, kResultFixedBytes + text.size() + data_bytes + scale_bytes);
  put_u32(out, kResultFixedBytes);
  put_u32(out, static_cast<std::uint32_t>(status));
  put_u32(out, static_cast<std::uint32_t>(text.size()));
  put_u32(out, 0);
  put_u64(out, data_bytes);
  put_u64(out, scale_bytes);
  put_text(out, text);
  if (data_bytes > 0) out.insert(out.end(), data, data + data_bytes);
  if (scale_bytes > 0) out.insert(out.end(), scale, scale + scale_bytes);
  return out;
}

std::uint32_t parse_hello(const std::vector<std::uint8_t>& payload) {
  if (payload.size() < kHelloBytes) throw ProtocolError("hello: payload of " + std::to_string(payload.size()) + " bytes, expected " + std::to_string(kHelloBytes));
  return get_u32(payload.data());
}

SubjectDescription parse_info(const std::vector<std::uint8_t>& payload) {
  // The version first, from a record of any size: a subject of another version is told so by
  // its version, not by a size rule of this one.
  SubjectDescription d;
  if (payload.size() >= 8) d.protocol_version = get_u32(payload.data() + 4);
  if (payload.size() >= 8 && d.protocol_version != kProtocolVersion) return d;
  const std::size_t fixed = fixed_size(payload, kInfoFixedBytes, "info");
  d.struct_size = static_cast<std::uint32_t>(fixed);
  const std::uint8_t* p = payload.data();
  Capabilities& c = d.capabilities;
  get_fields(p + 8, c, kInfoMasks);
  c.fp4_lane_strides = get_u64(p + 32);
  const std::uint64_t name_length = text_length(get_u32(p + 40), "info: name");
  const std::uint64_t version_length = text_length(get_u32(p + 44), "info: version");
  const std::uint64_t description_length = text_length(get_u32(p + 48), "info: description");
  if (fixed >= kInfoProfileBytes) {
    // As mxc_backend_info: a mask of 0 keeps the default (neuron, 8 x 4).
    Capabilities declared;
    get_fields(p + kInfoFixedBytes, declared, kInfoProfileMasks);
    if (declared.profiles != 0) c.profiles = declared.profiles;
    if (declared.block_shapes != 0) c.block_shapes = declared.block_shapes;
  }
  if (fixed + name_length + version_length + description_length != payload.size()) {
    throw ProtocolError("info: struct_size " + std::to_string(fixed) + " plus the text lengths " +
                        std::to_string(name_length) + ", " + std::to_string(version_length) + " and " +
                        std::to_string(description_length) + " is not the payload length " + std::to_string(payload.size()));
  }
  const char* text = reinterpret_cast<const char*>(p + fixed);
  d.name.assign(text, name_length);
  d.version.assign(text + name_length, version_length);
  d.description.assign(text + name_length + version_length, description_length);
  return d;
}

QuantizeRequest parse_quantize(const std::vector<std::uint8_t>& payload) {
  const std::size_t fixed = fixed_size(payload, kQuantizeFixedBytes, "quantize");
  const std::uint8_t* p = payload.data();
  mxc_quantize_params params{};
  // A record without the profile fields is a neuron 8 x 4 request, as a short mxc_quantize_params.
  const bool has_profile = fixed >= kQuantizeProfileBytes;
  params.struct_size = has_profile ? sizeof params : MXC_QUANTIZE_PARAMS_V1_SIZE;
  get_fields(p + 4, params, kQuantizeKnobs);
  params.partitions = get_u64(p + 32);
  params.free = get_u64(p + 40);
  if (has_profile) get_fields(p + kQuantizeFixedBytes, params, kQuantizeProfile);
  QuantizeRequest request;
  try {
    request.config = config_from_params(params);
  } catch (const Error& error) {
    throw ProtocolError(std::string("quantize: ") + error.what());
  }
  request.data_bytes = get_u64(p + 48);
  request.scale_bytes = get_u64(p + 56);
  const Geometry g = geometry(request.config);
  if (request.data_bytes != g.data_bytes || request.scale_bytes != g.scale_bytes) {
    throw ProtocolError("quantize: data_bytes " + std::to_string(request.data_bytes) + " and scale_bytes " +
                        std::to_string(request.scale_bytes) + " are not the configuration's " +
                        std::to_string(g.data_bytes) + " and " + std::to_string(g.scale_bytes));
  }
  const std::uint64_t input_bytes = 2 * params.partitions * params.free;
  if (payload.size() - fixed != input_bytes) {
    throw ProtocolError("quantize: " + std::to_string(payload.size() - fixed) + " input bytes after the record, expected " +
                        std::to_string(input_bytes) + " (2 x P x F)");
  }
  request.input = p + fixed;
  return request;
}

QuantizeResult parse_result(const std::vector<std::uint8_t>& payload) {
  const std::size_t fixed = fixed_size(payload, kResultFixedBytes, "result");
  const std::uint8_t* p = payload.data();
  QuantizeResult result;
  result.status = static_cast<std::int32_t>(get_u32(p + 4));
  const std::uint64_t message_length = text_length(get_u32(p + 8), "result: message");
  result.data_bytes = get_u64(p + 16);
  result.scale_bytes = get_u64(p + 24);
  const std::uint64_t rest = payload.size() - fixed;
  if (message_length > rest || result.data_bytes > rest - message_length ||
      result.scale_bytes != rest - message_length - result.data_bytes) {
    throw ProtocolError("result: struct_size " + std::to_string(fixed) + ", message_length " + std::to_string(message_length) +
                        ", data_bytes " + std::to_string(result.data_bytes) + " and scale_bytes " +
                        std::to_string(result.scale_bytes) + " do not add up to the payload length " +
                        std::to_string(payload.size()));
  }
  result.message.assign(reinterpret_cast<const char*>(p + fixed), message_length);
  result.data = p + fixed + message_length;
  result.scale = result.data + result.data_bytes;
  return result;
}

}  // namespace mxconform::wire
