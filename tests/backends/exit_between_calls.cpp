// A hostile test backend whose worker goes away between two calls: its first call (per process)
// answers correctly and starts a thread that, 100 ms later and once the worker waits for its next
// request (no call running, the main thread asleep), ends the process with _exit(0).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

constexpr std::chrono::milliseconds kDelay{100};
constexpr std::chrono::milliseconds kPoll{1};
constexpr int kMostPolls = 2000;  // then it exits wherever the worker is

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "exit_between_calls", "first call: answers, then _exit(0) from a thread 100 ms later, between calls");

std::atomic<bool> g_in_call{false};

// The state letter of the process's main thread (R running, S asleep, ...), from /proc.
char main_thread_state() {
  std::ifstream stat("/proc/self/task/" + std::to_string(::getpid()) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

void exit_between_calls_soon() {
  std::thread([] {
    std::this_thread::sleep_for(kDelay);
    for (int i = 0; i < kMostPolls && (g_in_call || main_thread_state() != 'S'); ++i) std::this_thread::sleep_for(kPoll);
    ::_exit(0);
  }).detach();
}

int quantize(const QuantizeCall& call) {
  static bool started = false;
  g_in_call = true;
  const int status = mxconform::test_backends::quantize_with_scalar(call);
  if (!started) {
    started = true;
    exit_between_calls_soon();
  }
  g_in_call = false;
  return status;
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
