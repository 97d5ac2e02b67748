#include "isolated_backend.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mxconform/backend_params.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "mxconform/scale_layout.h"

namespace mxconform::certify {

const char* name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kWrongResult: return "wrong-result";
    case Outcome::kCrash: return "crash";
    case Outcome::kHang: return "hang";
    case Outcome::kWritePastEnd: return "write-past-end";
    case Outcome::kWriteBeforeStart: return "write-before-start";
    case Outcome::kWriteIntoInput: return "write-into-input";
    case Outcome::kWriteUnnamedScaleRow: return "write-unnamed-scale-row";
    case Outcome::kError: return "error";
    case Outcome::kUnsupported: return "not-supported";
    case Outcome::kNondeterministic: return "nondeterministic";
  }
  return "?";
}

bool is_failure(Outcome outcome) { return outcome != Outcome::kPass && outcome != Outcome::kUnsupported; }

std::string BackendInfo::undeclared(const QuantizeConfig& config) const {
  const auto has = [](std::uint64_t mask, std::uint32_t bit) { return bit < 64 && ((mask >> bit) & 1) != 0; };
  if (!has(input_dtypes, static_cast<std::uint32_t>(config.input))) return "input dtype " + std::string(mxconform::name(config.input));
  if (!has(output_dtypes, static_cast<std::uint32_t>(config.output))) return "output dtype " + std::string(mxconform::name(config.output));
  if (!has(emax_modes, static_cast<std::uint32_t>(config.emax_mode))) return "EMAX mode " + std::string(mxconform::name(config.emax_mode));
  if (!is_fp4(config.output) && !has(fp8_nan_policies, static_cast<std::uint32_t>(config.fp8_nan))) {
    return "FP8 NaN policy " + std::string(mxconform::name(config.fp8_nan));
  }
  if (!has(scale_layouts, static_cast<std::uint32_t>(config.scale_layout))) {
    return "scale layout " + std::string(mxconform::name(config.scale_layout));
  }
  if (is_fp4(config.output)) {
    if (!has(fp4_high_parities, static_cast<std::uint32_t>(config.fp4_high_parity))) {
      return "FP4 high parity " + std::to_string(config.fp4_high_parity);
    }
    constexpr std::uint32_t kAllAbove = 63;
    if (!has(fp4_lane_strides, std::min(config.fp4_lane_stride, kAllAbove))) {
      return "FP4 lane stride " + std::to_string(config.fp4_lane_stride);
    }
  }
  return {};
}

namespace {

// ---- The wire between the harness and its worker (fixed-size records over pipes). ----

constexpr std::size_t kTextSize = 512;
enum class RequestKind : std::uint32_t { kDescribe = 1, kQuantize = 2 };

struct Request {
  RequestKind kind;
  mxc_quantize_params params;
  std::uint64_t input_bytes;
  std::uint64_t data_bytes;
  std::uint64_t scale_bytes;
};

struct Response {
  std::int32_t status;  // mxc_status, or -1 when the worker could not load the backend
  char message[kTextSize];
  // kDescribe only:
  char name[128];
  char version[128];
  char description[kTextSize];
  std::uint32_t input_dtypes, output_dtypes, emax_modes, fp8_nan_policies, scale_layouts, fp4_high_parities;
  std::uint64_t fp4_lane_strides;
};

// The first page of the shared memory: where the worker's buffers are, and what killed it.
struct Control {
  volatile std::uint64_t fault_address;
  volatile std::int32_t fault_signal;
  std::uint64_t region[3];  // start of each area's reservation (leading guard included)
  std::uint64_t begin[3];   // first byte of each buffer in the worker
  std::uint64_t end[3];     // one past its last byte; a guard page follows
};

enum Area { kInput = 0, kData = 1, kScale = 2 };
const char* const kAreaName[3] = {"input", "data", "scale"};

constexpr std::uint8_t kDataFill = 0x5A;    // data bytes before the call; all must be overwritten
constexpr std::uint8_t kScaleFill = 0x00;   // scale bytes before the call; E8M0 is never 0
constexpr std::uint8_t kCanary = 0xA5;      // bytes in front of each output buffer

std::size_t page_size() {
  static const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}

std::size_t round_up_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return std::max<std::size_t>(1, (bytes + page - 1) / page) * page;
}

bool write_all(int fd, const void* buffer, std::size_t size) {
  const char* p = static_cast<const char*>(buffer);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* buffer, std::size_t size) {
  char* p = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// ---- Built-in implementations behind the C ABI. ----

const Implementation* g_builtin = nullptr;  // the one this process serves through kBuiltinTable

const mxc_backend_info* builtin_describe() {
  static mxc_backend_info info;
  static std::string version = "built-in";
  info = mxc_backend_info{};
  info.struct_size = sizeof info;
  info.abi_version = MXCONFORM_BACKEND_ABI_VERSION;
  info.name = g_builtin->name().data();
  info.version = version.c_str();
  info.description = g_builtin->description().data();
  info.input_dtypes = 0b11;
  for (const OutputDtypeInfo& out : output_dtypes()) info.output_dtypes |= 1u << static_cast<int>(out.id);
  info.emax_modes = info.fp8_nan_policies = info.scale_layouts = info.fp4_high_parities = 0b11;
  info.fp4_lane_strides = ~std::uint64_t{0};
  return &info;
}

int builtin_quantize(const mxc_quantize_params* params, const std::uint16_t* input, std::uint8_t* data,
                     std::size_t data_size, std::uint8_t* scale, std::size_t scale_size, char* message,
                     std::size_t message_size) {
  try {
    const QuantizeConfig config = config_from_params(*params);
    const Geometry g = geometry(config);
    if (g.data_bytes != data_size || g.scale_bytes != scale_size) {
      std::snprintf(message, message_size, "buffer sizes %zu/%zu, expected %zu/%zu", data_size, scale_size,
                    g.data_bytes, g.scale_bytes);
      return MXC_STATUS_ERROR;
    }
    g_builtin->quantize(config, input, data, scale);
    return MXC_STATUS_OK;
  } catch (const std::exception& error) {
    std::snprintf(message, message_size, "%s", error.what());
    return MXC_STATUS_ERROR;
  }
}

const mxc_backend kBuiltinTable = {sizeof(mxc_backend), builtin_describe, builtin_quantize};

// ---- The worker process. ----

Control* g_control = nullptr;

void on_fault(int signal_number, siginfo_t* info, void*) {
  g_control->fault_address = reinterpret_cast<std::uint64_t>(info->si_addr);
  g_control->fault_signal = signal_number;
  ::signal(signal_number, SIG_DFL);  // the faulting instruction runs again and ends the worker
}

[[noreturn]] void worker_main(const std::string& spec, int request_fd, int response_fd, int memfd,
                              std::size_t capacity) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);  // keep the harness's terminal clean

  const std::size_t page = page_size();
  auto* control = static_cast<Control*>(::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0));
  g_control = control;
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  ::sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) ::sigaction(sig, &action, nullptr);

  // Each area: a reservation of guard + capacity + guard, no access; buffers are mapped into it
  // per call so that they end right before the trailing guard page.
  char* region[3];
  for (int a = 0; a < 3; ++a) {
    region[a] = static_cast<char*>(::mmap(nullptr, capacity + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    control->region[a] = reinterpret_cast<std::uint64_t>(region[a]);
  }

  Response response{};
  const mxc_backend* backend = builtin_backend(spec);
  if (backend == nullptr && spec.find('/') != std::string::npos) {
    void* library = ::dlopen(spec.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      response.status = -1;
      std::snprintf(response.message, sizeof response.message, "cannot load: %s", ::dlerror());
    } else if (auto entry = reinterpret_cast<mxc_backend_entry>(::dlsym(library, MXCONFORM_BACKEND_SYMBOL))) {
      backend = entry();
      if (backend == nullptr) {
        response.status = -1;
        std::snprintf(response.message, sizeof response.message, "%s returned NULL", MXCONFORM_BACKEND_SYMBOL);
      }
    } else {
      response.status = -1;
      std::snprintf(response.message, sizeof response.message, "no symbol %s: not an mxconform backend",
                    MXCONFORM_BACKEND_SYMBOL);
    }
  } else if (backend == nullptr) {
    response.status = -1;
    std::snprintf(response.message, sizeof response.message, "unknown built-in backend '%s'", spec.c_str());
  }

  Request request{};
  while (read_all(request_fd, &request, sizeof request)) {
    if (response.status == -1) {
      write_all(response_fd, &response, sizeof response);
      continue;
    }
    Response out{};
    if (request.kind == RequestKind::kDescribe) {
      const mxc_backend_info* info = backend->describe ? backend->describe() : nullptr;
      if (info == nullptr) {
        out.status = -1;
        std::snprintf(out.message, sizeof out.message, "describe() returned NULL");
      } else if (info->abi_version != MXCONFORM_BACKEND_ABI_VERSION) {
        out.status = -1;
        std::snprintf(out.message, sizeof out.message, "ABI version %u, this mxconform speaks %d", info->abi_version,
                      MXCONFORM_BACKEND_ABI_VERSION);
      } else {
        out.status = MXC_STATUS_OK;
        std::snprintf(out.name, sizeof out.name, "%s", info->name ? info->name : "");
        std::snprintf(out.version, sizeof out.version, "%s", info->version ? info->version : "");
        std::snprintf(out.description, sizeof out.description, "%s", info->description ? info->description : "");
        out.input_dtypes = info->input_dtypes;
        out.output_dtypes = info->output_dtypes;
        out.emax_modes = info->emax_modes;
        out.fp8_nan_policies = info->fp8_nan_policies;
        out.scale_layouts = info->scale_layouts;
        out.fp4_high_parities = info->fp4_high_parities;
        out.fp4_lane_strides = info->fp4_lane_strides;
      }
    } else {
      const std::uint64_t sizes[3] = {request.input_bytes, request.data_bytes, request.scale_bytes};
      char* buffer[3];
      for (int a = 0; a < 3; ++a) {
        const std::size_t mapped = round_up_pages(sizes[a]);
        char* area = region[a] + page;
        ::mmap(area, capacity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        const int protection = a == kInput ? PROT_READ : PROT_READ | PROT_WRITE;
        const off_t offset = static_cast<off_t>(page + a * capacity + capacity - mapped);
        ::mmap(area + capacity - mapped, mapped, protection, MAP_SHARED | MAP_FIXED, memfd, offset);
        buffer[a] = area + capacity - sizes[a];
        control->begin[a] = reinterpret_cast<std::uint64_t>(buffer[a]);
        control->end[a] = reinterpret_cast<std::uint64_t>(area + capacity);
      }
      out.status = backend->quantize(&request.params, reinterpret_cast<const std::uint16_t*>(buffer[kInput]),
                                     reinterpret_cast<std::uint8_t*>(buffer[kData]), sizes[kData],
                                     reinterpret_cast<std::uint8_t*>(buffer[kScale]), sizes[kScale], out.message,
                                     sizeof out.message);
      out.message[sizeof out.message - 1] = '\0';
    }
    if (!write_all(response_fd, &out, sizeof out)) break;
  }
  ::_exit(0);
}

std::string signal_text(int sig) {
  const char* text = ::strsignal(sig);
  return "signal " + std::to_string(sig) + " (" + (text ? text : "?") + ")";
}

std::string hex_byte(std::uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", value);
  return text;
}

}  // namespace

const mxc_backend* builtin_backend(const std::string& name) {
  const Implementation* impl = find_implementation(name);
  if (impl == nullptr) return nullptr;
  g_builtin = impl;
  return &kBuiltinTable;
}

IsolatedBackend::IsolatedBackend(std::string spec, double timeout_seconds)
    : spec_(std::move(spec)), timeout_seconds_(timeout_seconds) {}

IsolatedBackend::~IsolatedBackend() { stop_worker(); }

void IsolatedBackend::start_worker(std::size_t capacity) {
  stop_worker();
  capacity_ = round_up_pages(capacity);
  const std::size_t page = page_size();
  memfd_ = ::memfd_create("mxconform-worker", MFD_CLOEXEC);
  if (memfd_ < 0 || ::ftruncate(memfd_, static_cast<off_t>(page + 3 * capacity_)) != 0) {
    throw Error(std::string("cannot create the worker's shared memory: ") + std::strerror(errno));
  }
  shared_ = ::mmap(nullptr, page + 3 * capacity_, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
  if (shared_ == MAP_FAILED) {
    shared_ = nullptr;
    throw Error(std::string("cannot map the worker's shared memory: ") + std::strerror(errno));
  }
  int to_worker[2], from_worker[2];
  if (::pipe2(to_worker, O_CLOEXEC) != 0 || ::pipe2(from_worker, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot create pipes: ") + std::strerror(errno));
  }
  std::fflush(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw Error(std::string("cannot fork a worker: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::close(to_worker[1]);
    ::close(from_worker[0]);
    worker_main(spec_, to_worker[0], from_worker[1], memfd_, capacity_);
  }
  ::close(to_worker[0]);
  ::close(from_worker[1]);
  request_fd_ = to_worker[1];
  response_fd_ = from_worker[0];
  ++workers_started_;
}

void IsolatedBackend::stop_worker() {
  if (pid_ > 0) {
    ::close(request_fd_);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ::close(response_fd_);
  }
  pid_ = -1;
  request_fd_ = response_fd_ = -1;
  if (shared_ != nullptr) ::munmap(shared_, page_size() + 3 * capacity_);
  shared_ = nullptr;
  if (memfd_ >= 0) ::close(memfd_);
  memfd_ = -1;
}

const BackendInfo& IsolatedBackend::info() {
  if (info_) return *info_;
  if (pid_ <= 0) start_worker(page_size());
  Request request{};
  request.kind = RequestKind::kDescribe;
  Response response{};
  pollfd wait_for{response_fd_, POLLIN, 0};
  const bool sent = write_all(request_fd_, &request, sizeof request);
  const int ready = sent ? ::poll(&wait_for, 1, static_cast<int>(timeout_seconds_ * 1000)) : -1;
  if (ready <= 0 || !read_all(response_fd_, &response, sizeof response)) {
    stop_worker();
    throw Error(spec_ + ": the backend did not describe itself (the worker died or hung while loading it)");
  }
  if (response.status != MXC_STATUS_OK) {
    stop_worker();
    throw Error(spec_ + ": " + response.message);
  }
  BackendInfo info;
  info.name = response.name;
  info.version = response.version;
  info.description = response.description;
  info.input_dtypes = response.input_dtypes;
  info.output_dtypes = response.output_dtypes;
  info.emax_modes = response.emax_modes;
  info.fp8_nan_policies = response.fp8_nan_policies;
  info.scale_layouts = response.scale_layouts;
  info.fp4_high_parities = response.fp4_high_parities;
  info.fp4_lane_strides = response.fp4_lane_strides;
  info_ = info;
  return *info_;
}

CallResult IsolatedBackend::run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                                const std::vector<std::uint8_t>& expected_data,
                                const std::vector<std::uint8_t>& expected_scale) {
  CallResult result;
  const std::string undeclared = info().undeclared(config);
  if (!undeclared.empty()) {
    result.outcome = Outcome::kUnsupported;
    result.detail = "not declared: " + undeclared;
    return result;
  }
  const std::size_t sizes[3] = {input.size() * sizeof(std::uint16_t), expected_data.size(), expected_scale.size()};
  const std::size_t needed = std::max({sizes[0], sizes[1], sizes[2]});
  constexpr std::size_t kMinimumCapacity = std::size_t{1} << 20;  // one worker serves most campaigns
  if (pid_ <= 0 || needed > capacity_) start_worker(std::max({needed, capacity_, kMinimumCapacity}));

  // Fill the shared areas: input, data and scale fills, canaries in front of the outputs.
  const std::size_t page = page_size();
  char* area[3];
  for (int a = 0; a < 3; ++a) area[a] = static_cast<char*>(shared_) + page + a * capacity_;
  char* at[3];
  for (int a = 0; a < 3; ++a) {
    const std::size_t mapped = round_up_pages(sizes[a]);
    at[a] = area[a] + capacity_ - sizes[a];
    std::memset(area[a] + capacity_ - mapped, kCanary, mapped - sizes[a]);
  }
  std::memcpy(at[kInput], input.data(), sizes[kInput]);
  std::memset(at[kData], kDataFill, sizes[kData]);
  std::memset(at[kScale], kScaleFill, sizes[kScale]);
  auto* control = static_cast<Control*>(shared_);
  control->fault_address = 0;
  control->fault_signal = 0;

  Request request{};
  request.kind = RequestKind::kQuantize;
  request.params = params_from_config(config);
  request.input_bytes = sizes[kInput];
  request.data_bytes = sizes[kData];
  request.scale_bytes = sizes[kScale];
  Response response{};
  pollfd wait_for{response_fd_, POLLIN, 0};
  const bool sent = write_all(request_fd_, &request, sizeof request);
  const int ready = sent ? ::poll(&wait_for, 1, static_cast<int>(timeout_seconds_ * 1000)) : 1;
  if (ready == 0) {
    stop_worker();
    result.outcome = Outcome::kHang;
    result.detail = "no answer within " + std::to_string(timeout_seconds_) + " s";
    return result;
  }
  if (!sent || !read_all(response_fd_, &response, sizeof response)) {
    // The worker died: find out how, and where it touched.
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    const std::uint64_t address = control->fault_address;
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.outcome = Outcome::kCrash;
    result.detail = sig != 0 ? signal_text(sig) : "exited with status " + std::to_string(WEXITSTATUS(status));
    if (control->fault_signal == SIGSEGV || control->fault_signal == SIGBUS) {
      for (int a = 0; a < 3; ++a) {
        if (address >= control->begin[a] && address < control->end[a]) {
          result.outcome = a == kInput ? Outcome::kWriteIntoInput : Outcome::kCrash;
          result.detail = std::string("fault at byte ") + std::to_string(address - control->begin[a]) + " of the " +
                          kAreaName[a] + " buffer";
        } else if (address >= control->end[a] && address < control->end[a] + page) {
          result.outcome = a == kInput ? Outcome::kCrash : Outcome::kWritePastEnd;
          result.detail = std::string(a == kInput ? "read " : "access ") + std::to_string(address - control->end[a] + 1) +
                          " byte(s) past the end of the " + kAreaName[a] + " buffer";
        } else if (address >= control->region[a] && address < control->begin[a]) {
          result.outcome = a == kInput ? Outcome::kCrash : Outcome::kWriteBeforeStart;
          result.detail = std::string("access ") + std::to_string(control->begin[a] - address) +
                          " byte(s) before the start of the " + kAreaName[a] + " buffer";
        }
      }
      if (result.outcome == Outcome::kCrash && result.detail.rfind("signal", 0) == 0) {
        char text[64];
        std::snprintf(text, sizeof text, " at address 0x%llx", static_cast<unsigned long long>(address));
        result.detail += text;
      }
    }
    stop_worker();
    return result;
  }

  if (response.status == MXC_STATUS_UNSUPPORTED) {
    result.outcome = Outcome::kUnsupported;
    result.detail = std::string("declared, but returned unsupported: ") + response.message;
    return result;
  }
  if (response.status != MXC_STATUS_OK) {
    result.outcome = Outcome::kError;
    result.detail = response.status == MXC_STATUS_ERROR ? std::string(response.message)
                                                        : "unknown status " + std::to_string(response.status);
    return result;
  }
  result.data.assign(at[kData], at[kData] + sizes[kData]);
  result.scale.assign(at[kScale], at[kScale] + sizes[kScale]);

  // Canaries in front of the outputs.
  for (int a = kData; a <= kScale; ++a) {
    const std::size_t slack = round_up_pages(sizes[a]) - sizes[a];
    const char* front = area[a] + capacity_ - round_up_pages(sizes[a]);
    for (std::size_t i = 0; i < slack; ++i) {
      if (static_cast<std::uint8_t>(front[i]) != kCanary) {
        result.outcome = Outcome::kWriteBeforeStart;
        result.detail = std::string("wrote ") + std::to_string(slack - i) + " byte(s) before the start of the " +
                        kAreaName[a] + " buffer";
        return result;
      }
    }
  }
  // Scale rows no slot names must be untouched; then every byte against the oracle.
  const Geometry g = geometry(config);
  std::vector<bool> named(g.scale_rows, config.scale_layout == ScaleLayout::kLogical);
  for (std::size_t i = 0; i < g.block_rows && config.scale_layout == ScaleLayout::kPhysical; ++i) named[scale_slot(i)] = true;
  for (std::size_t row = 0; row < g.scale_rows; ++row) {
    if (named[row]) continue;
    for (std::size_t c = 0; c < g.block_cols; ++c) {
      const std::uint8_t byte = result.scale[row * g.block_cols + c];
      if (byte != kScaleFill) {
        result.outcome = Outcome::kWriteUnnamedScaleRow;
        result.detail = "scale row " + std::to_string(row) + " (no slot names it) byte " + std::to_string(c) +
                        " became " + hex_byte(byte);
        return result;
      }
    }
  }
  for (std::size_t i = 0; i < expected_scale.size(); ++i) {
    if (named[i / g.block_cols] && result.scale[i] != expected_scale[i]) {
      result.outcome = Outcome::kWrongResult;
      result.detail = "scale byte " + std::to_string(i) + " (row " + std::to_string(i / g.block_cols) + ", block column " +
                      std::to_string(i % g.block_cols) + "): expected " + hex_byte(expected_scale[i]) + ", actual " +
                      hex_byte(result.scale[i]);
      return result;
    }
  }
  for (std::size_t i = 0; i < expected_data.size(); ++i) {
    if (result.data[i] != expected_data[i]) {
      result.outcome = Outcome::kWrongResult;
      result.detail = "data byte " + std::to_string(i) + ": expected " + hex_byte(expected_data[i]) + ", actual " +
                      hex_byte(result.data[i]);
      return result;
    }
  }
  return result;
}

}  // namespace mxconform::certify
