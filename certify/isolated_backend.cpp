#include "isolated_backend.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "call_grade.h"
#include "mxconform/backend_params.h"
#include "mxconform/confinement.h"
#include "mxconform/error.h"
#include "mxconform/process_watch.h"
#include "mxconform/registry.h"
#include "mxconform/scale_layout.h"

namespace mxconform::certify {

namespace {

// ---- The wire between the harness and its worker (fixed-size records over pipes). ----
// Every field the worker sends is untrusted: strings are cut at their buffer and escaped, sizes
// and masks are checked, and a response must echo its request's sequence number.

constexpr std::size_t kTextSize = 512;
enum class RequestKind : std::uint32_t { kDescribe = 1, kQuantize = 2 };

struct Request {
  std::uint64_t sequence;
  RequestKind kind;
  mxc_quantize_params params;
  std::uint64_t input_bytes;
  std::uint64_t data_bytes;
  std::uint64_t scale_bytes;
};

struct Response {
  std::uint64_t sequence;
  std::int32_t status;  // mxc_status, or -1 when the worker could not load the backend
  char message[kTextSize];
  // kDescribe only:
  char sandbox[kTextSize];  // how the worker confined itself
  std::uint32_t table_struct_size, info_struct_size, abi_version;
  char name[128];
  char version[128];
  char description[kTextSize];
  Capabilities capabilities;  // plain integers: the struct crosses the pipe as bytes
};
static_assert(std::is_trivially_copyable_v<Response>);

// A string field of a response: up to its first NUL or the end of its buffer. Raw bytes: the
// reports escape them when they print them (safe_text.h).
template <std::size_t N>
std::string field_text(const char (&field)[N]) {
  return std::string(field, ::strnlen(field, N));
}

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

std::size_t page_size() {
  static const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}

std::size_t round_up_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return std::max<std::size_t>(1, (bytes + page - 1) / page) * page;
}

// Blocking whole-record I/O, for the worker's side of the pipes.
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

// The bytes each call pre-fills into the output buffers, the unnamed scale rows and the canaries:
// a splitmix64 stream seeded by the call's sequence number, so they differ from call to call and
// a backend cannot know them without reading them.
class Fill {
 public:
  explicit Fill(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull) {}
  void operator()(char* out, std::size_t size) {
    for (std::size_t i = 0; i < size; i += 8) {
      const std::uint64_t word = next();
      std::memcpy(out + i, &word, std::min<std::size_t>(8, size - i));
    }
  }

 private:
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

// ---- Built-in implementations behind the C ABI. ----

const Subject* g_builtin = nullptr;  // the one this process serves through kBuiltinTable

const mxc_backend_info* builtin_describe() {
  static mxc_backend_info info;
  static std::string version = "built-in";
  info = mxc_backend_info{};
  info.struct_size = sizeof info;
  info.abi_version = MXCONFORM_BACKEND_ABI_VERSION;
  info.name = g_builtin->name().data();
  info.version = version.c_str();
  info.description = g_builtin->description().data();
  g_builtin->capabilities().fill(info);
  return &info;
}

int builtin_quantize(const mxc_quantize_params* params, const std::uint16_t* input, std::uint8_t* data,
                     std::size_t data_size, std::uint8_t* scale, std::size_t scale_size, char* message,
                     std::size_t message_size) {
  return quantize_through_abi(*g_builtin, params, input, data, data_size, scale, scale_size, message, message_size);
}

const mxc_backend kBuiltinTable = {sizeof(mxc_backend), builtin_describe, builtin_quantize};

// ---- The worker process. ----

Control* g_control = nullptr;

void on_fault(int signal_number, siginfo_t* info, void*) {
  g_control->fault_address = reinterpret_cast<std::uint64_t>(info->si_addr);
  g_control->fault_signal = signal_number;
  ::signal(signal_number, SIG_DFL);  // the faulting instruction runs again and ends the worker
}

[[noreturn]] void worker_main(const std::string& spec, int request_fd, int response_fd, int stderr_fd, int memfd,
                              std::size_t capacity, const WorkerLimits& limits) {
  // 1. Its own session and process group, dead with the harness, no core dumps, bounded memory.
  ::setsid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer reserves terabytes of shadow memory
  if (limits.memory_limit_bytes != 0) {
    const rlimit memory{limits.memory_limit_bytes, limits.memory_limit_bytes};
    ::setrlimit(RLIMIT_AS, &memory);
  }
#endif
  // 2. Standard streams: no terminal. Only the pipes and the shared memory stay open.
  const int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  int keep[3] = {request_fd, response_fd, memfd};
  for (int& fd : keep) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 100);
  for (int i = 0; i < 3; ++i) ::dup2(keep[i], 3 + i);
  ::close_range(6, ~0u, 0);
  request_fd = 3;
  response_fd = 4;
  memfd = 5;
  ::signal(SIGPIPE, SIG_DFL);

  const std::size_t page = page_size();
  auto* control = static_cast<Control*>(::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0));
  if (control == MAP_FAILED) ::_exit(2);
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
    if (region[a] == MAP_FAILED) ::_exit(2);
    control->region[a] = reinterpret_cast<std::uint64_t>(region[a]);
  }

  // 3. Confined before the library's constructors run (mxconform/confinement.h).
  const std::string sandbox = confine_subject_process(::getppid(), Confinement::kWorker);

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
    Response out = response;
    out.sequence = request.sequence;
    if (response.status == -1) {
      // The load failed: every request gets the reason.
    } else if (request.kind == RequestKind::kDescribe) {
      std::snprintf(out.sandbox, sizeof out.sandbox, "%s", sandbox.c_str());
      out.table_struct_size = backend->struct_size;
      const bool has_describe = backend->struct_size >= offsetof(mxc_backend, describe) + sizeof backend->describe;
      const mxc_backend_info* info = has_describe && backend->describe ? backend->describe() : nullptr;
      if (info == nullptr) {
        out.status = -1;
        std::snprintf(out.message, sizeof out.message, "describe() missing or returned NULL");
      } else {
        out.status = MXC_STATUS_OK;
        out.info_struct_size = info->struct_size;
        out.abi_version = info->abi_version;
        if (info->struct_size >= MXC_BACKEND_INFO_V1_SIZE) {
          std::snprintf(out.name, sizeof out.name, "%s", info->name ? info->name : "");
          std::snprintf(out.version, sizeof out.version, "%s", info->version ? info->version : "");
          std::snprintf(out.description, sizeof out.description, "%s", info->description ? info->description : "");
          out.capabilities = Capabilities::of(*info);
        }
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
    }
    if (!write_all(response_fd, &out, sizeof out)) break;
  }
  ::_exit(0);
}

std::string signal_text(int sig) {
  const char* text = ::strsignal(sig);
  std::string out = "signal " + std::to_string(sig) + " (" + (text ? text : "?") + ")";
  if (sig == SIGSYS) out += ": a system call the worker may not make (signalling or tracing another process, or leaving its process group)";
  if (sig == SIGKILL) out += ": killed (by the harness, the kernel's out-of-memory killer, or the backend itself)";
  return out;
}

constexpr std::size_t kStderrKept = 4096;  // bytes of a call's stderr kept for its report
constexpr double kGraceSeconds = 0.5;      // for a worker whose pipes closed to end by itself

}  // namespace

const mxc_backend* builtin_backend(const std::string& name) {
  const Subject* impl = find_built_in(name);
  if (impl == nullptr) return nullptr;
  g_builtin = impl;
  return &kBuiltinTable;
}

IsolatedBackend::IsolatedBackend(std::string spec, WorkerLimits limits) : WorkerBackend(std::move(spec), limits) {
  // A worker that dies between calls must not take the harness with it on the next write.
  ::signal(SIGPIPE, SIG_IGN);
}

IsolatedBackend::~IsolatedBackend() { stop_worker(); }

void IsolatedBackend::start_worker(std::size_t capacity) {
  stop_worker();
  calls_answered_ = 0;
  capacity_ = round_up_pages(capacity);
  const std::size_t page = page_size();
  memfd_ = ::memfd_create("mxconform-worker", MFD_CLOEXEC);
  if (memfd_ < 0 || ::ftruncate(memfd_, static_cast<off_t>(page + 3 * capacity_)) != 0) {
    const int error = errno;
    stop_worker();
    throw Error(std::string("cannot create the worker's shared memory: ") + std::strerror(error));
  }
  shared_ = ::mmap(nullptr, page + 3 * capacity_, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
  if (shared_ == MAP_FAILED) {
    shared_ = nullptr;
    const int error = errno;
    stop_worker();
    throw Error(std::string("cannot map the worker's shared memory: ") + std::strerror(error));
  }
  int to_worker[2] = {-1, -1}, from_worker[2] = {-1, -1}, errors[2] = {-1, -1};
  if (::pipe2(to_worker, O_CLOEXEC) != 0 || ::pipe2(from_worker, O_CLOEXEC) != 0 || ::pipe2(errors, O_CLOEXEC) != 0) {
    const int error = errno;
    for (int fd : {to_worker[0], to_worker[1], from_worker[0], from_worker[1], errors[0], errors[1]}) {
      if (fd >= 0) ::close(fd);
    }
    stop_worker();
    throw Error(std::string("cannot create pipes for a worker: ") + std::strerror(error));
  }
  std::fflush(nullptr);
  shield_harness();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    for (int fd : {to_worker[0], to_worker[1], from_worker[0], from_worker[1], errors[0], errors[1]}) ::close(fd);
    pid_ = -1;
    stop_worker();
    throw Error(std::string("cannot fork a worker: ") + std::strerror(error));
  }
  if (pid_ == 0) worker_main(spec_, to_worker[0], from_worker[1], errors[1], memfd_, capacity_, limits_);
  // The worker calls setsid() itself; doing it here too closes the race with an early kill.
  ::setpgid(pid_, pid_);
  ::close(to_worker[0]);
  ::close(from_worker[1]);
  ::close(errors[1]);
  request_fd_ = to_worker[1];
  response_fd_ = from_worker[0];
  stderr_fd_ = errors[0];
  for (int fd : {request_fd_, response_fd_, stderr_fd_}) set_nonblocking(fd);
  pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // -1 before Linux 5.3: then death is polled for
  ++workers_started_;
}

std::string IsolatedBackend::reap_worker(double grace_seconds) {
  std::string how;
  if (pid_ > 0) {
    // A worker whose pipes just closed may be a moment away from its end: let it say how it ended
    // before killing it. Its requests end first: a worker reading its input to the end exits at
    // once instead of taking the whole grace period.
    if (request_fd_ >= 0) ::close(request_fd_);
    request_fd_ = -1;
    for (const double until = monotonic_seconds() + grace_seconds; !process_has_ended(pid_) && monotonic_seconds() < until;) {
      if (pid_fd_ >= 0) {
        pollfd ended{pid_fd_, POLLIN, 0};
        ::poll(&ended, 1, static_cast<int>(std::ceil(grace_seconds * 1000)));
      } else {
        ::usleep(5000);
      }
    }
    // The whole process group: whatever the worker forked dies with it.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    pid_t reaped;
    do reaped = ::waitpid(pid_, &status, 0);
    while (reaped < 0 && errno == EINTR);
    if (reaped == pid_) {
      how = WIFSIGNALED(status) ? signal_text(WTERMSIG(status)) : "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    ::kill(-pid_, SIGKILL);  // anything forked between the first kill and the worker's end
  }
  pid_ = -1;
  for (int* fd : {&request_fd_, &response_fd_, &stderr_fd_, &pid_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  return how;
}

void IsolatedBackend::stop_worker() {
  reap_worker(0);
  if (shared_ != nullptr) ::munmap(shared_, page_size() + 3 * capacity_);
  shared_ = nullptr;
  if (memfd_ >= 0) ::close(memfd_);
  memfd_ = -1;
}

void IsolatedBackend::drain_stderr() {
  char chunk[65536];
  while (stderr_fd_ >= 0) {
    const ssize_t n = ::read(stderr_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const std::size_t room = kStderrKept - std::min(kStderrKept, stderr_captured_.size());
    const std::size_t kept = std::min(room, static_cast<std::size_t>(n));
    stderr_captured_.append(chunk, kept);
    stderr_dropped_ += static_cast<std::size_t>(n) - kept;
  }
}

IsolatedBackend::Wait IsolatedBackend::transfer(bool to_worker, void* buffer, std::size_t size, double seconds) {
  char* p = static_cast<char*>(buffer);
  const double deadline = monotonic_seconds() + seconds;
  const int fd = to_worker ? request_fd_ : response_fd_;
  while (size > 0) {
    const ssize_t n = to_worker ? ::write(fd, p, size) : ::read(fd, p, size);
    if (n > 0) {
      p += n;
      size -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) return Wait::kBroken;  // EOF: the worker closed its end or died
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Wait::kBroken;  // EPIPE among them
    const double left = deadline - monotonic_seconds();
    if (left <= 0) return Wait::kTimedOut;
    pollfd fds[3] = {{fd, static_cast<short>(to_worker ? POLLOUT : POLLIN), 0}, {stderr_fd_, POLLIN, 0}, {pid_fd_, POLLIN, 0}};
    const int count = pid_fd_ >= 0 ? 3 : 2;
    // Without a pidfd, wake up every 50 ms to see whether the worker is still there.
    const double slice = pid_fd_ >= 0 ? left : std::min(left, 0.05);
    const int ready = ::poll(fds, count, static_cast<int>(std::ceil(slice * 1000)));
    if (ready < 0 && errno != EINTR) return Wait::kBroken;
    if (fds[1].revents != 0) drain_stderr();
    if (fds[0].revents & (POLLIN | POLLOUT)) continue;
    if (fds[0].revents & (POLLERR | POLLHUP)) return Wait::kBroken;
    const bool died = count == 3 ? fds[2].revents != 0 : process_has_ended(pid_);
    if (died) {
      // Its last words may still be in the pipe.
      if (!to_worker) {
        const ssize_t last = ::read(fd, p, size);
        if (last > 0) {
          p += last;
          size -= static_cast<std::size_t>(last);
          continue;
        }
      }
      return Wait::kDied;
    }
  }
  return Wait::kDone;
}

const BackendInfo& IsolatedBackend::info() {
  if (info_) return *info_;
  if (spec_.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(spec_.c_str(), &st) != 0) throw Error(spec_ + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(spec_ + ": not a regular file (a backend is a shared library)");
  } else if (const Subject* impl = find_built_in(spec_); impl == nullptr) {
    std::string names;
    for (const Subject* each : built_in_subjects()) names += (names.empty() ? "" : ", ") + std::string(each->name());
    throw Error("unknown backend '" + spec_ + "'; available: " + names + ", or a path to a shared library");
  } else {
    require_runnable_here(*impl);  // else its worker would die of SIGILL on every call
  }
  if (pid_ <= 0) start_worker(page_size());
  Request request{};
  request.sequence = ++sequence_;
  request.kind = RequestKind::kDescribe;
  Response response{};
  const std::string& shown = spec_;
  Wait wait = transfer(true, &request, sizeof request, limits_.timeout_seconds);
  if (wait == Wait::kDone) wait = transfer(false, &response, sizeof response, limits_.timeout_seconds);
  if (wait != Wait::kDone || response.sequence != request.sequence) {
    std::string how = reap_worker(wait == Wait::kTimedOut ? 0 : kGraceSeconds);
    if (wait == Wait::kTimedOut) how = "no answer within " + std::to_string(limits_.timeout_seconds) + " s: it hung";
    if (wait == Wait::kDone) how = "it answered out of turn";
    const std::string err = stderr_captured_.substr(0, 1024);
    stderr_captured_.clear();
    throw LoadError(shown + ": the worker ended while loading the backend (" + (how.empty() ? "it closed its pipes" : how) + ")" +
                    (err.empty() ? "" : "; its stderr: " + err));
  }
  const auto fail = [&](const std::string& why) -> LoadError {
    stop_worker();
    return LoadError(shown + ": " + why);
  };
  if (response.status != MXC_STATUS_OK) throw fail(field_text(response.message));
  const std::string problem = declaration_problem(response.table_struct_size, response.info_struct_size,
                                                  response.abi_version, response.capabilities);
  if (!problem.empty()) throw fail(problem);
  sandbox_ = field_text(response.sandbox);
  stderr_captured_.clear();
  return keep_info(field_text(response.name), field_text(response.version), field_text(response.description),
                   response.capabilities);
}

CallResult IsolatedBackend::run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                                const std::vector<std::uint8_t>& expected_data,
                                const std::vector<std::uint8_t>& expected_scale) {
  if (std::optional<CallResult> unsupported = undeclared_call(config)) return *unsupported;
  CallResult result;
  const std::size_t sizes[3] = {input.size() * sizeof(std::uint16_t), expected_data.size(), expected_scale.size()};
  const std::size_t needed = std::max({sizes[0], sizes[1], sizes[2]});
  constexpr std::size_t kMinimumCapacity = std::size_t{1} << 20;  // one worker serves most campaigns
  if (pid_ <= 0 || needed > capacity_) start_worker(std::max({needed, capacity_, kMinimumCapacity}));

  // Stray bytes in the response pipe: the worker wrote outside the protocol.
  char stray = 0;
  const bool out_of_turn = ::read(response_fd_, &stray, 1) > 0;
  drain_stderr();
  stderr_captured_.clear();
  stderr_dropped_ = 0;

  // Fill the shared areas: the input, then fill bytes in the outputs and the canaries in front.
  const std::size_t page = page_size();
  char* area[3];
  for (int a = 0; a < 3; ++a) area[a] = static_cast<char*>(shared_) + page + a * capacity_;
  char* at[3];
  char* front[3];
  std::size_t slack[3];
  for (int a = 0; a < 3; ++a) {
    at[a] = area[a] + capacity_ - sizes[a];
    slack[a] = round_up_pages(sizes[a]) - sizes[a];
    front[a] = at[a] - slack[a];
  }
  const std::uint64_t sequence = ++sequence_;
  Fill fill(sequence);
  std::memcpy(at[kInput], input.data(), sizes[kInput]);
  fill(front[kInput], slack[kInput]);
  fill(front[kData], slack[kData] + sizes[kData]);
  fill(front[kScale], slack[kScale] + sizes[kScale]);
  // What was filled, to compare with after the call.
  const std::vector<char> filled_data(front[kData], at[kData] + sizes[kData]);
  const std::vector<char> filled_scale(front[kScale], at[kScale] + sizes[kScale]);
  auto* control = static_cast<Control*>(shared_);
  control->fault_address = 0;
  control->fault_signal = 0;

  Request request{};
  request.sequence = sequence;
  request.kind = RequestKind::kQuantize;
  request.params = params_from_config(config);
  request.input_bytes = sizes[kInput];
  request.data_bytes = sizes[kData];
  request.scale_bytes = sizes[kScale];
  Response response{};
  Wait wait = out_of_turn ? Wait::kBroken : transfer(true, &request, sizeof request, limits_.timeout_seconds);
  const bool sent = wait == Wait::kDone;
  if (sent) wait = transfer(false, &response, sizeof response, limits_.timeout_seconds);
  drain_stderr();
  const auto attach_stderr = [&]() {
    result.stderr_text = stderr_captured_.substr(0, kStderrKept);
    if (stderr_dropped_ > 0) result.stderr_text += "... (" + std::to_string(stderr_dropped_) + " more bytes)";
  };
  if (wait == Wait::kTimedOut) {
    reap_worker(0);
    result.outcome = Outcome::kHang;
    result.detail = "no answer within " + std::to_string(limits_.timeout_seconds) + " s";
    attach_stderr();
    return result;
  }
  if (wait == Wait::kDone && response.sequence != sequence) {
    reap_worker(0);
    result.outcome = Outcome::kCrash;
    result.detail = "protocol violation: the worker answered out of turn (the backend wrote to the harness's pipe)";
    attach_stderr();
    return result;
  }
  if (wait != Wait::kDone) {
    // The worker died (or broke its pipes): find out how, and where it touched.
    const std::uint64_t address = control->fault_address;
    const int fault_signal = control->fault_signal;
    const std::string how = reap_worker(kGraceSeconds);
    result.outcome = Outcome::kCrash;
    if (out_of_turn) {
      result.detail = "protocol violation: the worker wrote outside a response (the backend wrote to the harness's pipe)";
    } else if (!sent) {
      result.detail = "the worker was gone before this call (" + (how.empty() ? "it closed its pipes" : how) +
                      (calls_answered_ == 0 ? "): it ended before its first call" : "): it ended after answering the previous call");
      result.gone_before_call = true;
    } else {
      result.detail = how.empty() ? "the worker closed its pipes" : how;
    }
    result.site = result.detail;  // the signal or exit status; a fault site replaces it below
    if (sent && (fault_signal == SIGSEGV || fault_signal == SIGBUS)) {
      for (int a = 0; a < 3; ++a) {
        if (address >= control->begin[a] && address < control->end[a]) {
          result.outcome = a == kInput ? Outcome::kWriteIntoInput : Outcome::kCrash;
          result.detail = std::string("fault at byte ") + std::to_string(address - control->begin[a]) + " of the " +
                          kAreaName[a] + " buffer";
          result.site = result.detail;
        } else if (address >= control->end[a] && address < control->end[a] + page) {
          result.outcome = a == kInput ? Outcome::kCrash : Outcome::kWritePastEnd;
          result.detail = std::string(a == kInput ? "read " : "access ") + std::to_string(address - control->end[a] + 1) +
                          " byte(s) past the end of the " + kAreaName[a] + " buffer";
          result.site = result.detail;
        } else if (address >= control->region[a] && address < control->begin[a]) {
          result.outcome = a == kInput ? Outcome::kCrash : Outcome::kWriteBeforeStart;
          result.detail = std::string("access ") + std::to_string(control->begin[a] - address) +
                          " byte(s) before the start of the " + kAreaName[a] + " buffer";
          result.site = result.detail;
        }
      }
      if (result.outcome == Outcome::kCrash && result.detail.rfind("signal", 0) == 0) {
        char text[64];
        std::snprintf(text, sizeof text, " at address 0x%llx", static_cast<unsigned long long>(address));
        result.detail += text;
      }
    }
    attach_stderr();
    return result;
  }
  attach_stderr();
  ++calls_answered_;

  // The input, whatever the backend did to its mapping.
  if (std::memcmp(at[kInput], input.data(), sizes[kInput]) != 0) {
    std::size_t k = 0;
    std::uint16_t now = 0;
    for (; k < input.size(); ++k) {
      std::memcpy(&now, at[kInput] + 2 * k, sizeof now);
      if (now != input[k]) break;
    }
    char text[160];
    std::snprintf(text, sizeof text, "input element %zu (row %llu, column %llu) changed from 0x%04X to 0x%04X", k,
                  static_cast<unsigned long long>(k / config.free), static_cast<unsigned long long>(k % config.free),
                  input[k], now);
    result.outcome = Outcome::kWriteIntoInput;
    result.detail = text;
    result.site = "input " + std::to_string(k);
    return result;
  }
  if (failed_status(response.status, field_text(response.message), result)) return result;
  result.data.assign(at[kData], at[kData] + sizes[kData]);
  result.scale.assign(at[kScale], at[kScale] + sizes[kScale]);

  // Canaries in front of the outputs.
  for (int a = kData; a <= kScale; ++a) {
    const std::vector<char>& filled = a == kData ? filled_data : filled_scale;
    for (std::size_t i = 0; i < slack[a]; ++i) {
      if (front[a][i] != filled[i]) {
        result.outcome = Outcome::kWriteBeforeStart;
        result.site = kAreaName[a];
        result.detail = std::string("wrote ") + std::to_string(slack[a] - i) + " byte(s) before the start of the " +
                        kAreaName[a] + " buffer";
        return result;
      }
    }
  }
  // Scale rows no slot names must keep their fill; then every byte against the oracle.
  const std::vector<std::uint8_t> unnamed_fill(filled_scale.begin() + slack[kScale], filled_scale.begin() + slack[kScale] + sizes[kScale]);
  grade(config, input, expected_data, expected_scale, unnamed_fill.data(), result);
  return result;
}

}  // namespace mxconform::certify
