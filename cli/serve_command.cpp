#include "serve_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_line.h"
#include "exit_status.h"
#include "mxconform/backend.h"
#include "mxconform/error.h"
#include "mxconform/open_subject.h"
#include "mxconform/subject_protocol.h"

namespace mxconform::cli {
namespace {

// Reads exactly `size` bytes; false at the end of input before the first byte, Error at the end
// of input inside a frame.
bool read_exactly(int fd, std::uint8_t* out, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, out + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(std::string("reading stdin: ") + std::strerror(errno));
    if (n == 0) {
      if (got == 0) return false;
      throw Error("stdin ended inside a frame, after " + std::to_string(got) + " of " + std::to_string(size) + " bytes");
    }
    got += static_cast<std::size_t>(n);
  }
  return true;
}

void write_exactly(int fd, const std::vector<std::uint8_t>& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + sent, bytes.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(std::string("writing stdout: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
}

// The next frame of kind `kind`: its payload, or false at the end of input.
bool read_frame(int fd, wire::FrameKind kind, std::vector<std::uint8_t>& payload) {
  std::uint8_t head[wire::kHeaderBytes];
  if (!read_exactly(fd, head, sizeof head)) return false;
  const wire::FrameHeader header = wire::parse_header(head);
  if (header.magic != wire::kMagic) throw Error("stdin: not a frame (bad magic)");
  if (header.kind != static_cast<std::uint32_t>(kind)) {
    throw Error("stdin: frame of kind " + std::to_string(header.kind) + " where a " + wire::name(kind) + " frame was due");
  }
  constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 36;  // 64 GiB: larger is not a tensor anyone sends
  if (header.length > kMaxPayload) throw Error("stdin: a frame announces " + std::to_string(header.length) + " bytes");
  payload.resize(static_cast<std::size_t>(header.length));
  if (!read_exactly(fd, payload.data(), payload.size())) throw Error("stdin ended after a frame header");
  return true;
}

}  // namespace

int run_serve(int argc, char** argv) {
  CLI::App app{"Serve a subject over the subject protocol on stdin and stdout (docs/subject-protocol.md)",
               "mxconform serve"};
  std::string spec;
  app.add_option("--backend", spec, "A built-in backend, a plug-in .so path, or cmd:COMMAND")->required();
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "serve")) return *status;

  // The protocol owns the real stdout; anything the subject prints goes to stderr instead.
  const int protocol_out = ::dup(STDOUT_FILENO);
  if (protocol_out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) throw Error("cannot set up stdout for the protocol");
  const std::shared_ptr<const Subject> subject = open_subject(spec);

  std::vector<std::uint8_t> payload;
  if (!read_frame(STDIN_FILENO, wire::FrameKind::kHello, payload)) return kExitSuccess;
  wire::parse_hello(payload);  // whatever version the harness speaks, it is told ours and decides
  wire::SubjectDescription description;
  description.name = std::string(subject->name());
  description.version = "served by mxconform serve";
  description.description = std::string(subject->description());
  description.capabilities = subject->capabilities();
  write_exactly(protocol_out, wire::info_frame(description));

  std::vector<std::uint8_t> data, scale;
  while (read_frame(STDIN_FILENO, wire::FrameKind::kQuantize, payload)) {
    const wire::QuantizeRequest request = wire::parse_quantize(payload);
    const QuantizeConfig& config = request.config;
    data.assign(request.data_bytes, 0);
    scale.assign(request.scale_bytes, 0);  // unnamed physical rows stay 0
    std::int32_t status = MXC_STATUS_OK;
    std::string message;
    const std::string unsupported = subject->unsupported_reason(config);
    if (!unsupported.empty()) {
      status = MXC_STATUS_UNSUPPORTED;
      message = unsupported;
    } else {
      // The input sits in the payload at an even offset of a heap block: aligned for uint16_t.
      try {
        subject->quantize(config, reinterpret_cast<const std::uint16_t*>(request.input), data.data(), scale.data());
      } catch (const std::exception& error) {
        status = MXC_STATUS_ERROR;
        message = error.what();
      }
    }
    const bool ok = status == MXC_STATUS_OK;
    write_exactly(protocol_out, wire::result_frame(status, message, data.data(), ok ? data.size() : 0, scale.data(),
                                                   ok ? scale.size() : 0));
  }
  return kExitSuccess;
}

}  // namespace mxconform::cli
