#include "bundle.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

#include <yaml-cpp/yaml.h>

#include "build_info.h"
#include "git_commit.h"
#include "call_grade.h"
#include "class_cases.h"
#include "corpus_loader.h"
#include "coverage.h"
#include "fingerprint.h"
#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "mxconform/npy.h"
#include "mxconform/safe_text.h"
#include "repro_writer.h"
#include "sha256.h"

namespace mxconform::certify {

std::string bundle_case_id(std::size_t index) {
  char text[32];
  std::snprintf(text, sizeof text, "c%06zu", index);
  return text;
}

namespace {

constexpr const char* kManifestName = "manifest.yaml";
constexpr const char* kInputs = "inputs";
constexpr const char* kOutputs = "outputs";
constexpr const char* kFormatName = "mxconform-bundle";
constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{256} << 20;  // nightly: tens of MiB
constexpr std::uint64_t kNpyHeaderAllowance = 1 << 16;  // bytes a .npy may hold beyond its elements

// ---- The cases, in bundle order. ----

struct CaseSet {
  std::vector<std::string> campaigns;  // canonical order: corpus, exhaustive, properties; or fingerprint
  QuantizeConfig knobs;                // the profile and knobs exported
  NamedKnobs named;                    // the knobs named on export's command line (none with all_knobs)
  bool wants(const std::string& campaign) const {
    return std::find(campaigns.begin(), campaigns.end(), campaign) != campaigns.end();
  }
  std::vector<corpus::CorpusCase> corpus;
  std::vector<QuantizeConfig> configurations;
  std::string corpus_sha256;
  std::size_t corpus_files = 0;
};

// The campaigns named, in canonical order; Error naming `what` on an unknown or repeated one, or
// on fingerprint named with another.
std::vector<std::string> canonical_campaigns(const std::vector<std::string>& named, const std::string& what) {
  if (named.empty()) throw Error(what + ": no campaign named; expected corpus, exhaustive or properties");
  for (const std::string& c : named) {
    if (c != "corpus" && c != "exhaustive" && c != "properties" && c != kFingerprintCampaign) {
      throw Error(what + " '" + safe_text(c, 64) + "': expected corpus, exhaustive, properties or fingerprint");
    }
    if (std::count(named.begin(), named.end(), c) > 1) throw Error(what + ": campaign " + c + " named twice");
  }
  if (std::count(named.begin(), named.end(), kFingerprintCampaign) > 0) {
    if (named.size() > 1) throw Error(what + ": fingerprint is a bundle of its own, named with no other campaign");
    return named;
  }
  std::vector<std::string> out;
  for (const char* c : {"corpus", "exhaustive", "properties"}) {
    if (std::find(named.begin(), named.end(), c) != named.end()) out.push_back(c);
  }
  return out;
}

CaseSet load_case_set(const std::vector<std::string>& campaigns, const std::vector<std::string>& corpus_paths,
                      const QuantizeConfig& knobs, const NamedKnobs& named, bool all_knobs) {
  CaseSet set;
  set.campaigns = campaigns;
  set.knobs = knobs;
  set.named = all_knobs ? every_knob() : named;
  const std::vector<std::string> files =
      set.wants("corpus") ? corpus::find_corpus_files(corpus_paths) : std::vector<std::string>{};
  Sha256 digest;  // the same digest certify records as corpus_sha256
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    digest.update(text.data(), text.size());
  }
  set.corpus_sha256 = digest.hex_digest();
  set.corpus_files = files.size();
  if (set.wants("corpus")) set.corpus = corpus::load_corpus(corpus_paths);
  set.configurations = campaign_configurations(knobs, all_knobs);
  return set;
}

// Every case of the campaigns in certify's order, with the tally key certify files it under
// (the generating configuration's knobs_text; the corpus case's own for the corpus). As certify:
// the corpus cases in_request only; for a profile other than neuron no exhaustive campaign (it
// follows the neuron path) and the profile campaign for the properties.
void for_each_bundle_case(const CaseSet& set, Level level, std::uint64_t seed,
                          const std::function<void(const std::string& tally_key, const CampaignCase& c)>& visit) {
  const ProfileId profile = set.knobs.profile;
  if (set.wants("corpus")) {
    for_each_corpus_case(set.corpus, [&](const CampaignCase& c) {
      if (in_request(set.knobs, set.named, c.config)) visit(knobs_text(c.config), c);
    });
  }
  for (const QuantizeConfig& config : set.configurations) {
    if (!set.wants("exhaustive") || profile != ProfileId::kNeuron) break;
    const std::string key = knobs_text(config);
    for_each_exhaustive_case(config, level, [&](const CampaignCase& c) { visit(key, c); });
  }
  for (const QuantizeConfig& config : set.configurations) {
    if (!set.wants("properties")) break;
    const std::string key = knobs_text(config);
    if (profile == ProfileId::kNeuron) {
      for_each_property_case(config, level, seed, [&](const CampaignCase& c) { visit(key, c); });
    } else {
      for_each_profile_case(config, level, seed, [&](const CampaignCase& c) { visit(key, c); });
    }
  }
  if (set.wants(kFingerprintCampaign)) {
    for_each_deciding_case(set.knobs, [&](const CampaignCase& c) { visit(knobs_text(c.config), c); });
  }
}

std::string input_path(const std::string& id) { return std::string(kInputs) + "/" + id + ".npy"; }
// Each export writes its outputs into a directory of its own, outputs/<export_id>, named by a
// random id the manifest records: outputs a runner wrote for an earlier export into the same
// bundle directory (export --force) are never graded as answers to this one. The id is part of
// cases_sha256, so a manifest whose id was edited back to an earlier export's no longer matches
// its cases (a guard against mistakes: an unsealed manifest can be rewritten whole by anyone).
constexpr std::size_t kExportIdBytes = 16;

// A new export id: kExportIdBytes random bytes in lowercase hex.
std::string new_export_id() {
  std::random_device random;  // /dev/urandom
  std::string id;
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < kExportIdBytes; ++i) {
    const auto byte = static_cast<unsigned>(random() & 0xFFu);
    id += kHex[byte >> 4];
    id += kHex[byte & 0xFu];
  }
  return id;
}

bool is_export_id(const std::string& text) {
  return text.size() == 2 * kExportIdBytes &&
         std::all_of(text.begin(), text.end(), [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); });
}

// The directory of an export's outputs, relative to the bundle.
std::string outputs_directory(const std::string& export_id) { return std::string(kOutputs) + "/" + export_id; }
std::string data_path(const std::string& outputs, const std::string& id) { return outputs + "/" + id + ".data.npy"; }
std::string scale_path(const std::string& outputs, const std::string& id) { return outputs + "/" + id + ".scale.npy"; }

// What pins a case: its id, knobs, shape, input and the oracle's bytes (cases_sha256).
void add_to_digest(Sha256& digest, const std::string& id, const CampaignCase& c) {
  const std::string head = id + "\n" + c.campaign + "\n" + c.id + "\n" + knobs_text(c.config) + "\n" +
                           std::to_string(c.config.partitions) + "x" + std::to_string(c.config.free) + "\n";
  digest.update(head.data(), head.size());
  digest.update(c.input.data(), c.input.size() * sizeof(std::uint16_t));
  digest.update(c.expected_data.data(), c.expected_data.size());
  digest.update(c.expected_scale.data(), c.expected_scale.size());
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// The knobs a manifest records, under the CLI's own names.
void emit_knobs(YAML::Emitter& out, const QuantizeConfig& config) {
  out << YAML::Key << "emax_mode" << YAML::Value << std::string(name(config.emax_mode));
  out << YAML::Key << "fp8_nan" << YAML::Value << std::string(name(config.fp8_nan));
  out << YAML::Key << "lane_stride" << YAML::Value << config.fp4_lane_stride;
  out << YAML::Key << "high_parity" << YAML::Value << config.fp4_high_parity;
  out << YAML::Key << "scale_layout" << YAML::Value << std::string(name(config.scale_layout));
  out << YAML::Key << "profile" << YAML::Value << std::string(name(config.profile));
  out << YAML::Key << "block_shape" << YAML::Value << std::string(name(config.block_shape));
}

// The manifest's `named_knobs`: the knob flags given, under the CLI's names without the dashes.
struct NamedKnobField {
  const char* name;
  bool NamedKnobs::*flag;
};
constexpr NamedKnobField kNamedKnobFields[] = {{"emax_mode", &NamedKnobs::emax_mode},
                                               {"fp8_nan", &NamedKnobs::fp8_nan},
                                               {"lane_stride", &NamedKnobs::lane_stride},
                                               {"high_parity", &NamedKnobs::high_parity},
                                               {"scale_layout", &NamedKnobs::scale_layout}};

std::vector<std::string> named_knob_names(const NamedKnobs& named) {
  std::vector<std::string> out;
  for (const NamedKnobField& field : kNamedKnobFields) {
    if (named.*field.flag) out.push_back(field.name);
  }
  return out;
}

bool directory_is_empty(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) throw Error(path + ": cannot open the directory: " + std::strerror(errno));
  bool empty = true;
  while (const dirent* entry = ::readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  ::closedir(dir);
  return empty;
}

void make_directory(const std::string& path, bool may_exist) {
  if (::mkdir(path.c_str(), 0777) == 0) return;
  struct stat st {};
  if (errno == EEXIST && may_exist && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
  throw Error(path + ": cannot create the directory: " +
              (errno == EEXIST ? std::string("something else is there") : std::strerror(errno)));
}

// ---- Reading inside the bundle. ----

// A file of the bundle opened without following symbolic links, read-only.
class BundleFile {
 public:
  enum class State { kOpen, kMissing, kRefused };
  BundleFile(int directory_fd, const std::string& relative, const std::string& file_name, std::uint64_t max_bytes)
      : relative_(relative) {
    fd_ = ::openat(directory_fd, file_name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      if (errno == ENOENT) {
        state_ = State::kMissing;
        why_ = relative + ": missing";
      } else {
        state_ = State::kRefused;
        why_ = relative + (errno == ELOOP ? std::string(": a symbolic link; bundle files must be regular files inside the bundle")
                                          : ": cannot open: " + std::string(std::strerror(errno)));
      }
      return;
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      state_ = State::kRefused;
      why_ = relative + ": not a regular file";
    } else if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
      state_ = State::kRefused;
      why_ = relative + ": " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
             " this case's file can hold";
    }
  }
  ~BundleFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  BundleFile(const BundleFile&) = delete;
  BundleFile& operator=(const BundleFile&) = delete;

  State state() const { return state_; }
  const std::string& why() const { return why_; }

  // The file through its descriptor: the very file opened above, whatever the path names now.
  std::string fd_path() const { return "/proc/self/fd/" + std::to_string(fd_); }

  // The file as a .npy array; Error naming the bundle path (not the descriptor) when malformed.
  npy::Array read_npy() const {
    try {
      return npy::read(fd_path());
    } catch (const Error& error) {
      std::string message = error.what();
      const std::string shown = fd_path();
      for (std::size_t at = message.find(shown); at != std::string::npos; at = message.find(shown, at + relative_.size())) {
        message.replace(at, shown.size(), relative_);
      }
      throw Error(message);
    }
  }
  std::string bytes() const {
    std::string out;
    char buffer[1 << 16];
    ::lseek(fd_, 0, SEEK_SET);
    for (;;) {
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(relative_ + ": cannot read: " + std::strerror(errno));
      if (n == 0) break;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  State state_ = State::kOpen;
  std::string relative_;
  std::string why_;
};

// A subdirectory of the bundle opened without following symbolic links; -1 when missing.
int open_subdirectory(int directory_fd, const char* name, bool required, const std::string& bundle) {
  const int fd = ::openat(directory_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  if (errno == ENOENT && !required) return -1;
  throw Error(bundle + "/" + name + ": " +
              (errno == ELOOP || errno == ENOTDIR ? std::string("not a directory inside the bundle (a symbolic link or a file)")
                                                  : std::strerror(errno)));
}

// ---- The manifest. ----

struct ManifestReader {
  std::string file;  // for messages: "DIR/manifest.yaml"

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    const YAML::Mark mark = node.Mark();
    throw Error(file + (mark.line >= 0 ? ":" + std::to_string(mark.line + 1) : std::string()) + ": " + what);
  }
  // A key given twice in any map of the document (YAML forbids it; yaml-cpp keeps both, and a
  // lookup would read only one of them). `where` names the map's path for the message.
  void refuse_duplicate_keys(const YAML::Node& node, const std::string& where) const {
    if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) refuse_duplicate_keys(node[i], where + "[" + std::to_string(i) + "]");
      return;
    }
    if (!node.IsMap()) return;
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
      const std::string path = where.empty() ? key : where + "." + key;
      if (!entry.first.IsScalar()) fail(entry.first, "field '" + safe_text(where, 200) + "': a key that is not a single value");
      if (!seen.insert(key).second) fail(entry.first, "field '" + safe_text(path, 200) + "' is given twice");
      refuse_duplicate_keys(entry.second, path);
    }
  }
  YAML::Node field(const YAML::Node& map, const std::string& key, const std::string& where) const {
    const YAML::Node value = map[key];
    if (!value) fail(map, where + "field '" + key + "' is missing");
    return value;
  }
  std::string text(const YAML::Node& map, const std::string& key, const std::string& where = "") const {
    const YAML::Node value = field(map, key, where);
    if (!value.IsScalar()) fail(value, where + "field '" + key + "' must be a single value");
    return value.Scalar();
  }
  std::uint64_t number(const YAML::Node& map, const std::string& key, std::uint64_t max, const std::string& where = "") const {
    const std::string value = text(map, key, where);
    std::uint64_t out = 0;
    bool ok = !value.empty() && value.size() <= 20;
    for (char ch : value) {
      if (ch < '0' || ch > '9') ok = false;
    }
    if (ok) {
      for (char ch : value) {
        const auto digit = static_cast<std::uint64_t>(ch - '0');
        if (out > (max - digit) / 10) {
          ok = false;
          break;
        }
        out = out * 10 + digit;
      }
    }
    if (!ok) fail(map[key], where + "field '" + key + "' is '" + safe_text(value, 64) + "'; expected a decimal number up to " + std::to_string(max));
    return out;
  }
};

// The profile and block shape of the header's `knobs` into `knobs`: absent (a bundle written
// before the fields) is neuron with 8x4 blocks. Fails naming the field on an unknown name or a
// block shape the profile does not admit.
void read_profile(const ManifestReader& reader, const YAML::Node& k, QuantizeConfig& knobs) {
  if (k["profile"]) {
    const std::string text = reader.text(k, "profile", "knobs: ");
    try {
      knobs.profile = parse_profile(text);
    } catch (const Error&) {
      std::string names;
      for (const Profile& p : profiles()) names += (names.empty() ? "" : ", ") + std::string(p.name);
      reader.fail(k["profile"], "knobs: field 'profile' is '" + safe_text(text, 64) + "', not a profile of this mxconform (" +
                                    names + ")");
    }
  }
  if (k["block_shape"]) {
    const std::string text = reader.text(k, "block_shape", "knobs: ");
    try {
      knobs.block_shape = parse_block_shape(text);
    } catch (const Error&) {
      reader.fail(k["block_shape"], "knobs: field 'block_shape' is '" + safe_text(text, 64) + "'; expected 8x4, 1x32 or 32x1");
    }
  }
  const Profile& contract = profile(knobs.profile);
  if ((contract.block_shapes >> static_cast<std::uint32_t>(knobs.block_shape) & 1) == 0) {
    reader.fail(k, "knobs: block_shape " + std::string(name(knobs.block_shape)) + " is not one profile " +
                       std::string(contract.name) + " admits");
  }
}

// The manifest entry of one case must say what this mxconform regenerates; `where` names it.
void check_entry(const ManifestReader& reader, const YAML::Node& entry, const std::string& id, const CampaignCase& c,
                 const std::string& regenerated_from, const std::string& outputs) {
  const std::string where = "case " + id + ": ";
  if (!entry.IsMap()) reader.fail(entry, where + "expected a map");
  const auto expect = [&](const std::string& key, const std::string& wanted) {
    const std::string actual = reader.text(entry, key, where);
    if (actual != wanted) {
      reader.fail(entry[key], where + "field '" + key + "' is '" + safe_text(actual, 96) + "' but the case " + regenerated_from +
                                  " gives '" + safe_text(wanted, 96) + "'");
    }
  };
  expect("id", id);
  expect("campaign", c.campaign);
  expect("case", c.id);
  expect("input", input_path(id));
  expect("in_dtype", std::string(name(c.config.input)));
  expect("out_dtype", std::string(name(c.config.output)));
  const YAML::Node shape = reader.field(entry, "shape", where);
  const bool shape_ok = shape.IsSequence() && shape.size() == 2 && shape[0].IsScalar() && shape[1].IsScalar() &&
                        shape[0].Scalar() == std::to_string(c.config.partitions) &&
                        shape[1].Scalar() == std::to_string(c.config.free);
  if (!shape_ok) {
    reader.fail(shape, where + "field 'shape' is not [" + std::to_string(c.config.partitions) + ", " +
                           std::to_string(c.config.free) + "], the shape the case " + regenerated_from + " has");
  }
  expect("emax_mode", std::string(name(c.config.emax_mode)));
  expect("fp8_nan", std::string(name(c.config.fp8_nan)));
  expect("lane_stride", std::to_string(c.config.fp4_lane_stride));
  expect("high_parity", std::to_string(c.config.fp4_high_parity));
  expect("scale_layout", std::string(name(c.config.scale_layout)));
  // Written since the profile fields were added; a neuron 8x4 entry may lack them.
  const bool neuron_8x4 = c.config.profile == ProfileId::kNeuron && c.config.block_shape == BlockShape::k8x4;
  if (!neuron_8x4 || entry["profile"]) expect("profile", std::string(name(c.config.profile)));
  if (!neuron_8x4 || entry["block_shape"]) expect("block_shape", std::string(name(c.config.block_shape)));
  expect("data", data_path(outputs, id));
  expect("scale", scale_path(outputs, id));
}

// The outputs of one case, graded; `digest_lines` gets "sha256  path" for each file present;
// `data` and `scale` the bytes read when both files are well-formed (else they stay empty).
CallGrade grade_outputs(int outputs_fd, const std::string& outputs, const std::string& id, const CampaignCase& c,
                        std::string& digest_lines, std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scale) {
  CallGrade grade;
  const Geometry g = geometry(c.config);
  struct Wanted {
    std::string relative, file_name;
    std::size_t rows, cols;
    npy::Array array;
  };
  Wanted wanted[2] = {{data_path(outputs, id), id + ".data.npy", c.config.partitions, g.data_row_bytes, {}},
                      {scale_path(outputs, id), id + ".scale.npy", g.scale_rows, g.block_cols, {}}};
  std::string missing;
  for (Wanted& w : wanted) {
    const std::uint64_t max_bytes = static_cast<std::uint64_t>(w.rows) * w.cols + kNpyHeaderAllowance;
    if (outputs_fd < 0) {
      missing += (missing.empty() ? "" : "; ") + w.relative + ": missing (no outputs directory)";
      continue;
    }
    BundleFile file(outputs_fd, w.relative, w.file_name, max_bytes);
    if (file.state() == BundleFile::State::kMissing) {
      missing += (missing.empty() ? "" : "; ") + file.why();
      continue;
    }
    if (file.state() == BundleFile::State::kRefused) {
      grade.outcome = Outcome::kMalformedOutput;
      grade.site = w.relative;
      grade.detail = file.why();
      return grade;
    }
    digest_lines += sha256_file(file.fd_path()) + "  " + w.relative + "\n";
    try {
      w.array = file.read_npy();
    } catch (const Error& error) {
      grade.outcome = Outcome::kMalformedOutput;
      grade.site = w.relative;
      grade.detail = error.what();
      return grade;
    }
    const bool shape_ok = w.array.shape.size() == 2 && w.array.shape[0] == w.rows && w.array.shape[1] == w.cols;
    if (w.array.type != npy::ElementType::kUint8 || !shape_ok) {
      std::string shape;
      for (std::size_t i = 0; i < w.array.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(w.array.shape[i]);
      grade.outcome = Outcome::kMalformedOutput;
      grade.site = w.relative;
      grade.detail = w.relative + ": dtype " + std::string(npy::descr(w.array.type)) + " shape (" + shape +
                     "); expected |u1 shape (" + std::to_string(w.rows) + ", " + std::to_string(w.cols) + ")";
      return grade;
    }
  }
  if (!missing.empty()) {
    grade.outcome = Outcome::kMissingOutput;
    grade.site = "missing";
    grade.detail = missing;
    return grade;
  }
  // The runner's scale rows that no slot names hold 0, as `mxconform quantize` writes them.
  const std::vector<std::uint8_t> zero_rows(g.scale_bytes, 0);
  data = std::move(wanted[0].array.bytes);
  scale = std::move(wanted[1].array.bytes);
  return grade_call(c.config, c.input, c.expected_data, c.expected_scale, zero_rows.data(), data, scale);
}

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

}  // namespace

ExportSummary export_bundle(const ExportOptions& options) {
  const std::string& dir = options.directory;
  const std::vector<std::string> campaigns = canonical_campaigns(options.campaigns, "--campaign");
  ExportSummary summary;
  summary.skipped = skipped_campaigns(campaigns, options.knobs);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw Error(dir + ": not a directory");
    if (!options.force && !directory_is_empty(dir)) {
      throw Error(dir + ": not empty; export writes a bundle into an empty or new directory (--force writes into this one)");
    }
  } else {
    make_directory(dir, false);
  }
  make_directory(dir + "/" + kInputs, options.force);
  make_directory(dir + "/" + kOutputs, options.force);
  const std::string export_id = new_export_id();
  const std::string outputs = outputs_directory(export_id);
  make_directory(dir + "/" + outputs, false);  // new: no earlier export's outputs in it

  const CaseSet set = load_case_set(campaigns, options.corpus_paths, options.knobs, options.named_knobs, options.all_knobs);
  YAML::Emitter cases;
  cases << YAML::BeginSeq;
  Sha256 digest;
  digest.update(export_id.data(), export_id.size());
  std::size_t index = 0;
  for_each_bundle_case(set, options.level, options.seed, [&](const std::string&, const CampaignCase& c) {
    const std::string id = bundle_case_id(index++);
    npy::Array input{npy::ElementType::kUint16, {c.config.partitions, c.config.free},
                     std::vector<std::uint8_t>(c.input.size() * sizeof(std::uint16_t))};
    std::memcpy(input.bytes.data(), c.input.data(), input.bytes.size());
    npy::write(dir + "/" + input_path(id), input, options.force);
    summary.input_bytes += input.bytes.size();
    add_to_digest(digest, id, c);
    cases << YAML::BeginMap;
    cases << YAML::Key << "id" << YAML::Value << id;
    cases << YAML::Key << "campaign" << YAML::Value << c.campaign;
    cases << YAML::Key << "case" << YAML::Value << c.id;
    cases << YAML::Key << "input" << YAML::Value << input_path(id);
    cases << YAML::Key << "in_dtype" << YAML::Value << std::string(name(c.config.input));
    cases << YAML::Key << "out_dtype" << YAML::Value << std::string(name(c.config.output));
    cases << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq << c.config.partitions << c.config.free
          << YAML::EndSeq;
    emit_knobs(cases, c.config);
    cases << YAML::Key << "data" << YAML::Value << data_path(outputs, id);
    cases << YAML::Key << "scale" << YAML::Value << scale_path(outputs, id);
    cases << YAML::EndMap;
  });
  cases << YAML::EndSeq;
  summary.cases = index;

  YAML::Emitter head;
  head << YAML::BeginMap;
  head << YAML::Key << "format" << YAML::Value << kFormatName;
  head << YAML::Key << "format_version" << YAML::Value << kBundleFormatVersion;
  head << YAML::Key << "mxconform_version" << YAML::Value << MXCONFORM_VERSION;
  head << YAML::Key << "mxconform_commit" << YAML::Value << git_commit();
  head << YAML::Key << "exported" << YAML::Value << now_utc();
  head << YAML::Key << "export_id" << YAML::Value << export_id;
  head << YAML::Key << "level" << YAML::Value << name(options.level);
  head << YAML::Key << "seed" << YAML::Value << std::to_string(options.seed);
  head << YAML::Key << "all_knobs" << YAML::Value << (options.all_knobs ? "true" : "false");
  head << YAML::Key << "knobs" << YAML::Value << YAML::BeginMap;
  emit_knobs(head, options.knobs);
  head << YAML::EndMap;
  head << YAML::Key << "named_knobs" << YAML::Value << YAML::Flow << named_knob_names(set.named);
  head << YAML::Key << "campaigns" << YAML::Value << YAML::Flow << set.campaigns;
  head << YAML::Key << "corpus_sha256" << YAML::Value << set.corpus_sha256;
  head << YAML::Key << "corpus_files" << YAML::Value << set.corpus_files;
  head << YAML::Key << "case_count" << YAML::Value << summary.cases;
  head << YAML::Key << "cases_sha256" << YAML::Value << digest.hex_digest();
  head << YAML::Key << "unnamed_scale_rows" << YAML::Value << "zero";
  head << YAML::EndMap;
  const std::string text = std::string("# An mxconform bundle (docs/bundle-manifest.md): run every case, write its data and "
                                       "scale .npy files,\n# then `mxconform grade` this directory.\n") +
                           head.c_str() + "\ncases:\n" + cases.c_str() + "\n";
  summary.manifest_path = dir + "/" + kManifestName;
  write_file_atomically(summary.manifest_path, text, options.force);
  return summary;
}

Certificate grade_bundle(const GradeOptions& options, const GradedCaseVisitor& each) {
  const std::string& dir = options.directory;
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) throw Error(dir + ": cannot open the bundle directory: " + std::strerror(errno));
  FdCloser close_dir(dir_fd);
  const std::string manifest_name = dir + "/" + kManifestName;

  // 1. The manifest: whole, a YAML map, this format, this mxconform, this corpus.
  BundleFile manifest_file(dir_fd, manifest_name, kManifestName, kMaxManifestBytes);
  if (manifest_file.state() != BundleFile::State::kOpen) throw Error(manifest_file.why());
  const std::string manifest_text = manifest_file.bytes();
  Sha256 manifest_digest;
  manifest_digest.update(manifest_text.data(), manifest_text.size());
  const std::string manifest_sha256 = manifest_digest.hex_digest();
  if (const std::size_t bad = first_unsafe_byte(manifest_text); bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(manifest_text[bad])));
    const auto line = std::count(manifest_text.begin(), manifest_text.begin() + static_cast<std::ptrdiff_t>(bad), '\n') + 1;
    throw Error(manifest_name + ":" + std::to_string(line) + ": byte " + byte +
                " is a control character or not UTF-8; a manifest is UTF-8 text");
  }
  YAML::Node manifest;
  try {
    manifest = YAML::Load(manifest_text);
  } catch (const YAML::Exception& error) {
    throw Error(manifest_name + ":" + std::to_string(error.mark.line + 1) + ": not YAML: " + error.msg);
  }
  const ManifestReader reader{manifest_name};
  reader.refuse_duplicate_keys(manifest, "");
  if (!manifest.IsMap()) reader.fail(manifest, "expected a map with format, format_version, ... and cases");
  if (reader.text(manifest, "format") != kFormatName) {
    reader.fail(manifest["format"], "field 'format' is not " + std::string(kFormatName));
  }
  const std::uint64_t version = reader.number(manifest, "format_version", 1000000);
  if (version != kBundleFormatVersion) {
    reader.fail(manifest["format_version"], "field 'format_version' is " + std::to_string(version) + "; this mxconform reads " +
                                                std::to_string(kBundleFormatVersion));
  }
  const std::string exported_by = reader.text(manifest, "mxconform_version");
  if (exported_by != MXCONFORM_VERSION) {
    reader.fail(manifest["mxconform_version"], "field 'mxconform_version' is '" + safe_text(exported_by, 64) +
                                                   "' but this is mxconform " + MXCONFORM_VERSION +
                                                   "; grade with the version that exported the bundle, or export again");
  }
  Level level = Level::kGate;
  std::uint64_t seed = 0;
  QuantizeConfig knobs;
  bool all_knobs = false;
  try {
    level = parse_level(reader.text(manifest, "level"));
    seed = reader.number(manifest, "seed", std::numeric_limits<std::uint64_t>::max());
    const std::string all = reader.text(manifest, "all_knobs");
    if (all != "true" && all != "false") reader.fail(manifest["all_knobs"], "field 'all_knobs' must be true or false");
    all_knobs = all == "true";
    const YAML::Node k = reader.field(manifest, "knobs", "");
    if (!k.IsMap()) reader.fail(k, "field 'knobs' must be a map");
    knobs.emax_mode = parse_emax_mode(reader.text(k, "emax_mode", "knobs: "));
    knobs.fp8_nan = parse_fp8_nan(reader.text(k, "fp8_nan", "knobs: "));
    knobs.fp4_lane_stride = static_cast<std::uint32_t>(reader.number(k, "lane_stride", 1u << 20, "knobs: "));
    knobs.fp4_high_parity = static_cast<int>(reader.number(k, "high_parity", 1, "knobs: "));
    knobs.scale_layout = parse_scale_layout(reader.text(k, "scale_layout", "knobs: "));
    read_profile(reader, k, knobs);
  } catch (const YAML::Exception& error) {
    throw Error(manifest_name + ": " + error.msg);
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.rfind(manifest_name, 0) == 0) throw;
    throw Error(manifest_name + ": " + message);
  }
  // The knob flags export was given (absent before the field: none, every knob value).
  NamedKnobs named;
  if (const YAML::Node list = manifest["named_knobs"]) {
    if (!list.IsSequence()) reader.fail(list, "field 'named_knobs' must be a list");
    for (const YAML::Node& knob : list) {
      const auto field = std::find_if(std::begin(kNamedKnobFields), std::end(kNamedKnobFields), [&](const NamedKnobField& f) {
        return knob.IsScalar() && knob.Scalar() == f.name;
      });
      if (field == std::end(kNamedKnobFields)) {
        reader.fail(knob, "field 'named_knobs' lists '" + safe_text(knob.IsScalar() ? knob.Scalar() : "?", 64) +
                              "'; expected emax_mode, fp8_nan, lane_stride, high_parity or scale_layout");
      }
      named.*field->flag = true;
    }
  }
  std::vector<std::string> campaigns;
  const YAML::Node campaign_list = reader.field(manifest, "campaigns", "");
  if (!campaign_list.IsSequence()) reader.fail(campaign_list, "field 'campaigns' must be a list");
  for (const YAML::Node& c : campaign_list) {
    if (!c.IsScalar()) reader.fail(c, "field 'campaigns' must list campaign names");
    campaigns.push_back(c.Scalar());
  }
  try {
    campaigns = canonical_campaigns(campaigns, "field 'campaigns'");
  } catch (const Error& error) {
    reader.fail(campaign_list, error.what());
  }
  // This export's outputs directory.
  const std::string export_id = reader.text(manifest, "export_id");
  if (!is_export_id(export_id)) {
    reader.fail(manifest["export_id"], "field 'export_id' is '" + safe_text(export_id, 64) + "'; expected " +
                                           std::to_string(2 * kExportIdBytes) + " lowercase hex digits");
  }
  const std::string outputs = outputs_directory(export_id);
  const YAML::Node entries = reader.field(manifest, "cases", "");
  if (!entries.IsSequence()) reader.fail(entries, "field 'cases' must be a list");
  const std::uint64_t case_count = reader.number(manifest, "case_count", std::numeric_limits<std::uint32_t>::max());
  const std::string cases_sha256 = reader.text(manifest, "cases_sha256");
  const std::string recorded_corpus = reader.text(manifest, "corpus_sha256");

  const CaseSet set = load_case_set(campaigns, options.corpus_paths, knobs, named, all_knobs);
  if (recorded_corpus != set.corpus_sha256) {
    reader.fail(manifest["corpus_sha256"], "field 'corpus_sha256' is " + safe_text(recorded_corpus, 80) + " but the corpus here (" +
                                               std::to_string(set.corpus_files) + " files) digests to " + set.corpus_sha256 +
                                               "; grade with the corpus the bundle was exported with (--corpus)");
  }

  Certificate certificate;
  auto& h = certificate.header;
  char resolved[4096];
  const std::string bundle = ::realpath(dir.c_str(), resolved) != nullptr ? std::string(resolved) : dir;
  h["mxconform_version"] = MXCONFORM_VERSION;
  h["mxconform_commit"] = git_commit();
  h["backend"] = "bundle:" + bundle;
  h["backend_name"] = "bundle";
  h["backend_version"] = "format " + std::to_string(kBundleFormatVersion);
  h["backend_description"] = "outputs written by an offline runner, graded by mxconform grade";
  h["backend_path"] = bundle + "/" + kManifestName;
  h["backend_sha256"] = manifest_sha256;
  h["bundle"] = bundle;
  h["manifest_sha256"] = manifest_sha256;
  h["bundle_exported"] = manifest["exported"] && manifest["exported"].IsScalar() ? manifest["exported"].Scalar() : "unknown";
  h["bundle_export_id"] = export_id;
  h["bundle_mxconform_commit"] =
      manifest["mxconform_commit"] && manifest["mxconform_commit"].IsScalar() ? manifest["mxconform_commit"].Scalar() : "unknown";
  h["corpus_sha256"] = set.corpus_sha256;
  h["corpus_files"] = std::to_string(set.corpus_files);
  h["level"] = name(level);
  h["seed"] = std::to_string(seed);
  h["shard"] = "0/1";
  h["all_knobs"] = all_knobs ? "true" : "false";
  if (knobs.profile != ProfileId::kNeuron) {
    h["profile"] = name(knobs.profile);
    h["block_shape"] = name(knobs.block_shape);
  }
  for (const std::string& c : campaigns) h["campaigns"] += (h["campaigns"].empty() ? "" : " ") + c;
  for (const std::string& c : campaigns) {
    const std::string why = campaign_not_for_profile(c, knobs);
    if (!why.empty()) h["campaigns_skipped"] += (h["campaigns_skipped"].empty() ? "" : "; ") + c + ": " + why;
  }
  h["rerun"] = "mxconform grade " + shell_word(bundle);
  h["started"] = now_utc();
  for (const QuantizeConfig& c : set.configurations) certificate.configurations.push_back(knobs_text(c));

  // 2. Every case regenerated and checked against its entry and input file, then graded.
  const int inputs_fd = open_subdirectory(dir_fd, kInputs, true, dir);
  FdCloser close_inputs(inputs_fd);
  const int outputs_root_fd = open_subdirectory(dir_fd, kOutputs, false, dir);
  FdCloser close_outputs_root(outputs_root_fd);
  const int outputs_fd = outputs_root_fd < 0
                             ? outputs_root_fd
                             : open_subdirectory(outputs_root_fd, export_id.c_str(), false, dir + "/" + kOutputs);
  FdCloser close_outputs(outputs_fd == outputs_root_fd ? -1 : outputs_fd);
  const std::string regenerated_from = "mxconform regenerates from level " + std::string(name(level)) + " and seed " +
                                       std::to_string(seed);
  std::map<std::pair<std::string, std::string>, std::size_t> tally_of;
  std::map<std::string, properties::Coverage> coverage_of;  // properties campaign, per configuration
  properties::Coverage coverage;
  Sha256 digest;
  digest.update(export_id.data(), export_id.size());
  std::string output_lines;
  std::size_t index = 0;
  for_each_bundle_case(set, level, seed, [&](const std::string& key, const CampaignCase& c) {
    const std::string id = bundle_case_id(index);
    if (index >= entries.size()) {
      reader.fail(entries, "field 'cases' lists " + std::to_string(entries.size()) + " cases but level " + name(level) +
                               " and seed " + std::to_string(seed) + " give more");
    }
    check_entry(reader, entries[index], id, c, regenerated_from, outputs);
    ++index;
    add_to_digest(digest, id, c);
    BundleFile input(inputs_fd, input_path(id), id + ".npy", c.input.size() * 2 + kNpyHeaderAllowance);
    if (input.state() != BundleFile::State::kOpen) throw Error(dir + "/" + input.why());
    const npy::Array in = input.read_npy();
    if (in.type != npy::ElementType::kUint16 || in.bytes.size() != c.input.size() * 2 ||
        std::memcmp(in.bytes.data(), c.input.data(), in.bytes.size()) != 0) {
      throw Error(dir + "/" + input_path(id) + ": not the input of case " + id + " that " + regenerated_from +
                  "; the bundle was changed after export, or its manifest's seed or level was edited");
    }

    const auto tally_key = std::make_pair(c.campaign, key);
    if (tally_of.count(tally_key) == 0) {
      tally_of[tally_key] = certificate.tallies.size();
      certificate.tallies.push_back({c.campaign, key, std::string(name(c.config.output)), {}, {}});
    }
    Tally& tally = certificate.tallies[tally_of[tally_key]];
    if (c.campaign == "properties" && c.config.profile == ProfileId::kNeuron) {  // Neuron's coverage classes
      const properties::QuantizeCase generated{c.config, c.input};
      coverage.add(generated);
      coverage_of[key].add(generated);
    }
    ++certificate.cases;
    std::vector<std::uint8_t> data, scale;
    const CallGrade grade = grade_outputs(outputs_fd, outputs, id, c, output_lines, data, scale);
    if (each) each(c, grade, data, scale);
    ++tally.outcomes[name(grade.outcome)];
    constexpr std::size_t kMaxFailuresKept = 50;
    if (grade.outcome == Outcome::kPass || certificate.failures.size() >= kMaxFailuresKept) return;
    Failure failure;
    failure.campaign = c.campaign;
    failure.case_id = id + " (" + c.id + ")";
    failure.configuration = describe(c.config);
    failure.knobs = key;
    failure.outcome = grade.outcome;
    failure.detail = grade.detail;
    try {
      // The block of the first wrong byte as a case of its own; the whole case otherwise.
      QuantizeConfig repro_config = c.config;
      std::vector<std::uint16_t> repro_input = c.input;
      if (grade.outcome == Outcome::kWrongResult) block_of_site(c.config, c.input, grade.site, repro_config, repro_input);
      corpus::CorpusCase repro = corpus::make_repro_case(repro_config, repro_input, "grade-" + c.campaign, seed);
      constexpr std::size_t kWhyBytes = 1800;  // at most 4x that once escaped, under the loader's 8192
      repro.why = safe_multiline_text("From bundle case " + id + " (" + c.campaign + " case " + c.id + ", seed " +
                                          std::to_string(seed) + "), where grade saw " + name(grade.outcome) + ": " +
                                          grade.detail + ". Expected bytes are the oracle's.",
                                      kWhyBytes);
      repro.source = "mxconform grade, " + c.campaign + " campaign";
      if (c.origin != nullptr) {
        repro.why = safe_multiline_text("Corpus case " + c.origin->id + " (" + corpus::to_string(c.origin->location) +
                                            "), where grade saw " + name(grade.outcome) + ": " + grade.detail +
                                            ". That case's why: " + c.origin->why,
                                        kWhyBytes);
        repro.source = c.origin->source;
      }
      failure.repro_yaml = corpus::format_corpus_file({repro}, "mxconform grade: " + std::string(name(grade.outcome)) +
                                                                   " in bundle case " + id + " (" + c.campaign + " " + c.id + ")");
      if (!options.emit_repro_dir.empty()) {
        const corpus::ReproFile emitted = corpus::write_repro_file(repro, options.emit_repro_dir);
        failure.repro_path = emitted.path;
        failure.repro_existed = !emitted.written;
      }
    } catch (const std::exception& error) {
      failure.repro_yaml = std::string("# no repro: ") + error.what() + "\n";
    }
    certificate.failures.push_back(failure);
  });
  if (index != entries.size() || index != case_count) {
    reader.fail(entries, "field 'cases' lists " + std::to_string(entries.size()) + " cases (case_count " +
                             std::to_string(case_count) + ") but " + regenerated_from + " " + std::to_string(index));
  }
  const std::string regenerated = digest.hex_digest();
  if (regenerated != cases_sha256) {
    reader.fail(manifest["cases_sha256"], "field 'cases_sha256' is " + safe_text(cases_sha256, 80) + " but the cases " +
                                              regenerated_from + " digest to " + regenerated +
                                              "; the bundle was exported by another build of mxconform or edited");
  }
  // Coverage classes are the properties campaign's promise (as in certify): checked only when the
  // bundle holds that campaign.
  for (const QuantizeConfig& config : set.wants("properties") ? set.configurations : std::vector<QuantizeConfig>{}) {
    if (config.profile != ProfileId::kNeuron) break;  // the profile campaign promises no coverage class
    const std::string key = knobs_text(config);
    for (properties::CoverageClass missed : coverage_of[key].missed(properties::promised_classes(config))) {
      certificate.coverage_missed.push_back(key + ": " + std::string(properties::name(missed)));
    }
  }
  for (std::size_t id = 0; id < properties::kCoverageClasses; ++id) {
    const auto cls = static_cast<properties::CoverageClass>(id);
    if (coverage.cases_hitting(cls) > 0) certificate.coverage[std::string(properties::name(cls))] = coverage.cases_hitting(cls);
  }
  Sha256 outputs_digest;
  outputs_digest.update(output_lines.data(), output_lines.size());
  h["outputs_sha256"] = outputs_digest.hex_digest();
  h["finished"] = now_utc();
  h["verdict"] = certificate.certified() ? "certified" : "not certified";
  return certificate;
}

}  // namespace mxconform::certify
