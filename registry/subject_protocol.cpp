#include "mxconform/subject_protocol.h"

#include <cstring>

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
  put_header(out, FrameKind::kInfo, kInfoFixedBytes + name.size() + version.size() + description.size());
  put_u32(out, kInfoFixedBytes);
  put_u32(out, d.protocol_version);
  const Capabilities& c = d.capabilities;
  for (std::uint32_t mask : {c.input_dtypes, c.output_dtypes, c.emax_modes, c.fp8_nan_policies, c.scale_layouts,
                             c.fp4_high_parities}) {
    put_u32(out, mask);
  }
  put_u64(out, c.fp4_lane_strides);
  put_u32(out, static_cast<std::uint32_t>(name.size()));
  put_u32(out, static_cast<std::uint32_t>(version.size()));
  put_u32(out, static_cast<std::uint32_t>(description.size()));
  put_u32(out, 0);
  put_text(out, name);
  put_text(out, version);
  put_text(out, description);
  return out;
}

std::vector<std::uint8_t> quantize_frame_head(const QuantizeConfig& config, std::uint64_t data_bytes,
                                              std::uint64_t scale_bytes) {
  const mxc_quantize_params p = params_from_config(config);
  std::vector<std::uint8_t> out;
  put_header(out, FrameKind::kQuantize, kQuantizeFixedBytes + 2 * p.partitions * p.free);
  put_u32(out, kQuantizeFixedBytes);
  for (std::uint32_t field : {p.input_dtype, p.output_dtype, p.emax_mode, p.fp8_nan, p.fp4_lane_stride,
                              p.fp4_high_parity, p.scale_layout}) {
    put_u32(out, field);
  }
  put_u64(out, p.partitions);
  put_u64(out, p.free);
  put_u64(out, data_bytes);
  put_u64(out, scale_bytes);
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
  const std::uint8_t* p = payload.data();
  Capabilities& c = d.capabilities;
  c.input_dtypes = get_u32(p + 8);
  c.output_dtypes = get_u32(p + 12);
  c.emax_modes = get_u32(p + 16);
  c.fp8_nan_policies = get_u32(p + 20);
  c.scale_layouts = get_u32(p + 24);
  c.fp4_high_parities = get_u32(p + 28);
  c.fp4_lane_strides = get_u64(p + 32);
  const std::uint64_t name_length = text_length(get_u32(p + 40), "info: name");
  const std::uint64_t version_length = text_length(get_u32(p + 44), "info: version");
  const std::uint64_t description_length = text_length(get_u32(p + 48), "info: description");
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
  params.struct_size = sizeof params;
  params.input_dtype = get_u32(p + 4);
  params.output_dtype = get_u32(p + 8);
  params.emax_mode = get_u32(p + 12);
  params.fp8_nan = get_u32(p + 16);
  params.fp4_lane_stride = get_u32(p + 20);
  params.fp4_high_parity = get_u32(p + 24);
  params.scale_layout = get_u32(p + 28);
  params.partitions = get_u64(p + 32);
  params.free = get_u64(p + 40);
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
