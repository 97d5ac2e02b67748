#pragma once
// A command subject under certification (`--backend 'cmd:COMMAND ARGS'`): the worker is the
// command's own process, spoken to in the subject protocol (docs/subject-protocol.md). Every
// way it can misbehave is an outcome: a death (crash), no answer in time (hang), bytes that are
// not a frame (protocol-error), bytes outside a frame (stray-output), an answer of the wrong
// size (wrong-size); after each the campaign goes on with a fresh process.
#include <string>
#include <vector>

#include "mxconform/subject_process.h"
#include "worker_backend.h"

namespace mxconform::certify {

class CommandBackend final : public WorkerBackend {
 public:
  // `spec` starts with "cmd:"; throws Error when the rest is not a command (split_command).
  CommandBackend(std::string spec, WorkerLimits limits);

  // Starts the process and reads its description: LoadError when it dies, hangs, breaks the
  // protocol, speaks another protocol version or declares bits that name no value; Error when
  // the program cannot be run.
  const BackendInfo& info() override;
  // Data and scale as the subject returned them, against the expected bytes. In the physical
  // layout the rows no slot names must be 0, as `mxconform quantize` writes them.
  CallResult run(const QuantizeConfig& config, const std::vector<std::uint16_t>& input,
                 const std::vector<std::uint8_t>& expected_data,
                 const std::vector<std::uint8_t>& expected_scale) override;
  std::size_t workers_started() const override { return process_.processes_started(); }

  // The program the command runs and the files its arguments name: for the certificate's digests.
  std::vector<std::string> files() const;

 private:
  SubjectProcess process_;
};

}  // namespace mxconform::certify
