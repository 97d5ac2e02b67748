#include "mxconform/open_subject.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "command_subject.h"
#include "mxconform/backend_params.h"
#include "mxconform/error.h"
#include "mxconform/registry.h"
#include "mxconform/subject_process.h"

namespace mxconform {
namespace {

// A plug-in backend (include/mxconform/backend.h) loaded in this process, as a subject. For
// quantize, replay, explain, bench and the property suite; certify isolates plug-ins instead.
class PluginSubject final : public Subject {
 public:
  explicit PluginSubject(const std::string& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": not a regular file (a backend is a shared library)");
    library_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) throw Error(path + ": cannot load: " + ::dlerror());
    const auto entry = reinterpret_cast<mxc_backend_entry>(::dlsym(library_, MXCONFORM_BACKEND_SYMBOL));
    if (entry == nullptr) fail("no symbol " MXCONFORM_BACKEND_SYMBOL ": not an mxconform backend");
    table_ = entry();
    if (table_ == nullptr) fail(MXCONFORM_BACKEND_SYMBOL " returned NULL");
    const bool has_describe = table_->struct_size >= offsetof(mxc_backend, describe) + sizeof table_->describe;
    const mxc_backend_info* info = has_describe && table_->describe != nullptr ? table_->describe() : nullptr;
    if (info == nullptr) fail("describe() missing or returned NULL");
    const bool complete = info->struct_size >= MXC_BACKEND_INFO_V1_SIZE;
    capabilities_ = complete ? Capabilities::of(*info) : Capabilities{};
    const std::string problem = declaration_problem(table_->struct_size, info->struct_size, info->abi_version, capabilities_);
    if (!problem.empty()) fail(problem);
    if (table_->quantize == nullptr) fail("quantize is NULL");
    name_ = path;
    const auto text = [](const char* field) { return std::string(field != nullptr ? field : ""); };
    description_ = subject_description(text(info->name), text(info->version), text(info->description));
  }
  ~PluginSubject() override {
    if (library_ != nullptr) ::dlclose(library_);
  }
  PluginSubject(const PluginSubject&) = delete;
  PluginSubject& operator=(const PluginSubject&) = delete;

  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  CpuFeatures required_features() const override { return {}; }
  Capabilities capabilities() const override { return capabilities_; }

  void quantize(const QuantizeConfig& config, const std::uint16_t* input, std::uint8_t* data,
                std::uint8_t* scale) const override {
    const mxc_quantize_params params = params_from_config(config);
    const Geometry g = geometry(config);
    char message[512] = {};
    const int status = table_->quantize(&params, input, data, g.data_bytes, scale, g.scale_bytes, message, sizeof message);
    message[sizeof message - 1] = '\0';
    if (status == MXC_STATUS_OK) return;
    if (status == MXC_STATUS_UNSUPPORTED) throw Error(path_ + ": declared, but returned unsupported: " + message);
    if (status == MXC_STATUS_ERROR) throw Error(path_ + ": error status: " + message);
    throw Error(path_ + ": unknown status " + std::to_string(status));
  }

  void dequantize(const QuantizeConfig&, const std::uint8_t*, const std::uint8_t*, float*) const override {
    throw Error(path_ + ": a plug-in backend only quantizes (the ABI has no dequantize); dequantize with " +
                std::string(best_built_in().name()) + " or the oracle");
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    if (library_ != nullptr) ::dlclose(library_);
    library_ = nullptr;
    throw Error(path_ + ": " + why);
  }

  std::string path_;
  void* library_ = nullptr;
  const mxc_backend* table_ = nullptr;
  Capabilities capabilities_;
  std::string name_;
  std::string description_;
};

}  // namespace

bool names_a_plugin(const std::string& spec) { return !names_a_command(spec) && spec.find('/') != std::string::npos; }

std::string subject_description(const std::string& name, const std::string& version, const std::string& description) {
  if (name.empty()) return description;
  return name + (version.empty() ? "" : " " + version) + (description.empty() ? "" : ": " + description);
}

std::string subject_choices() {
  std::string names;
  for (const Subject* each : built_in_subjects()) names += std::string(each->name()) + ", ";
  return names + "a path to a plug-in shared library (with a '/', e.g. ./libmine.so), or cmd:COMMAND ARGS for a "
                 "command speaking the subject protocol";
}

std::shared_ptr<const Subject> open_subject(const std::string& spec) {
  if (names_a_command(spec)) return open_command_subject(spec);
  if (names_a_plugin(spec)) return std::make_shared<const PluginSubject>(spec);
  const Subject* impl = spec.empty() ? &best_built_in() : find_built_in(spec);
  if (impl == nullptr) throw Error("unknown backend '" + spec + "'; choose " + subject_choices());
  require_runnable_here(*impl);
  return std::shared_ptr<const Subject>(impl, [](const Subject*) {});  // built-ins live forever
}

}  // namespace mxconform
