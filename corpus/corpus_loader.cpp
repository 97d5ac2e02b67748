#include "corpus_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "byte_syntax.h"
#include "element_syntax.h"
#include "mxconform/error.h"
#include "mxconform/scale_layout.h"

namespace mxconform::corpus {

std::string to_string(const SourceLocation& location) {
  return location.file + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
}

namespace {

struct KeySpec {
  std::string_view name;
  bool required;
};
using Fields = std::map<std::string, YAML::Node, std::less<>>;

const std::vector<KeySpec> kTopKeys = {{"schema", true}, {"cases", true}};
const std::vector<KeySpec> kCaseKeys = {{"id", true},    {"why", true},    {"source", true}, {"tags", false},
                                        {"input", true}, {"config", true}, {"expect", true}};
const std::vector<KeySpec> kInputKeys = {{"dtype", true},   {"shape", true},  {"elements", false}, {"pattern", false},
                                         {"fill", false},   {"blocks", false}, {"set", false}};
const std::vector<std::string_view> kElementForms = {"elements", "pattern", "fill"};
const std::vector<KeySpec> kConfigKeys = {{"out-dtype", true},    {"emax-mode", false},    {"fp8-nan", false},
                                          {"lane-stride", false}, {"high-parity", false},  {"scale-layout", false},
                                          {"profile", false},     {"block-shape", false}};
const std::vector<KeySpec> kExpectKeys = {{"scale", true}, {"data", true}};

constexpr std::size_t kMaxCountDigits = 9;
constexpr std::size_t kMaxShownScalar = 40;  // characters of a wrong value quoted in a message

std::string join(const std::string& parent, std::string_view child) {
  return parent.empty() ? std::string(child) : parent + "." + std::string(child);
}

std::string indexed(const std::string& parent, std::size_t i) { return parent + "[" + std::to_string(i) + "]"; }

std::string kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing (null)";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar().substr(0, kMaxShownScalar) + (node.Scalar().size() > kMaxShownScalar ? "...'" : "'");
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

std::string key_names(const std::vector<KeySpec>& keys) {
  std::string names;
  for (const KeySpec& key : keys) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

std::string shape_text(const QuantizeConfig& config) {
  return "[" + std::to_string(config.partitions) + ", " + std::to_string(config.free) + "]";
}

// Where each id was first defined; a repeat is an Error at the repeat that names the first.
class IdIndex {
 public:
  void add(const CorpusCase& c, const std::string& field) {
    const auto [first, inserted] = first_.emplace(c.id, c.location);
    if (!inserted) {
      throw Error(to_string(c.location) + ": " + field + ": duplicate id '" + c.id + "'; first defined at " +
                  to_string(first->second));
    }
  }

 private:
  std::map<std::string, SourceLocation> first_;
};

// Where each document of a stream starts; nothing else.
class DocumentStarts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  std::vector<YAML::Mark> marks;
};

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Reads one corpus file's YAML tree into cases. Every check names the file, line, column and field.
class FileReader {
 public:
  explicit FileReader(std::string file) : file_(std::move(file)) {}

  std::vector<CorpusCase> read(std::string_view text) {
    const YAML::Node root = parse_one_document(text);
    check_schema(root);
    const Fields top = read_map(root, "", kTopKeys);
    const YAML::Node& cases = top.at("cases");
    if (!cases.IsSequence()) fail(cases, "cases", "expected a list of cases, got " + kind(cases));
    if (cases.size() == 0) fail(cases, "cases", "the list is empty; a corpus file holds at least one case");
    if (cases.size() > kMaxCasesPerFile) {
      fail(cases, "cases", "more than " + std::to_string(kMaxCasesPerFile) + " cases in one file");
    }
    std::vector<CorpusCase> out;
    IdIndex ids;
    for (const YAML::Node& node : cases) {
      const std::string field = indexed("cases", out.size());
      out.push_back(read_case(node, field));
      ids.add(out.back(), join(field, "id"));
    }
    return out;
  }

 private:
  // The file's only document. yaml-cpp 0.7's LoadAll never returns on some bad input (a stray ','
  // where a document should start, jbeder/yaml-cpp#1040), so the document is read with Load and
  // the documents are counted with a parser loop that stops at two.
  YAML::Node parse_one_document(std::string_view text) {
    const std::string owned(text);
    YAML::Node root;
    DocumentStarts starts;
    try {
      root = YAML::Load(owned);
      std::istringstream stream(owned);
      YAML::Parser parser(stream);
      for (int documents = 0; documents < 2 && parser.HandleNextDocument(starts); ++documents) {
      }
    } catch (const YAML::Exception& error) {
      throw Error(to_string(where(error.mark)) + ": YAML: " + error.msg);
    }
    if (root.IsNull()) {
      const SourceLocation content = first_content(text);
      if (content.line == 0) {
        throw Error(file_ + ":1:1: schema: the file is empty; a corpus file starts with 'schema: 1' and lists 'cases'");
      }
      throw Error(to_string(content) + ": YAML: no document can be read from here; a corpus file starts with 'schema: 1'");
    }
    if (starts.marks.size() > 1) {
      throw Error(to_string(where(starts.marks[1])) + ": a corpus file holds one YAML document, this one has more");
    }
    return root;
  }

  // The first character that is not blank and not in a comment, or line 0 when there is none.
  SourceLocation first_content(std::string_view text) const {
    int line = 1;
    for (std::size_t start = 0; start < text.size(); ++line) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      const std::size_t first = text.find_first_not_of(" \t\r", start);
      if (first < end && text[first] != '#') return {file_, line, static_cast<int>(first - start) + 1};
      start = end + 1;
    }
    return {file_, 0, 0};
  }

  SourceLocation where(const YAML::Mark& mark) const {
    if (mark.line < 0) return {file_, last_mark_.line + 1, last_mark_.column + 1};
    return {file_, mark.line + 1, mark.column + 1};
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& message) const {
    throw Error(to_string(where(at.Mark())) + ": " + (field.empty() ? "" : field + ": ") + message);
  }

  void check_schema(const YAML::Node& root) {
    if (!root.IsMap()) fail(root, "", "expected a map with keys schema and cases, got " + kind(root));
    last_mark_ = root.Mark();
    for (const auto& entry : root) {
      if (!entry.first.IsScalar() || entry.first.Scalar() != "schema") continue;
      const YAML::Node& version = entry.second;
      if (!version.IsScalar() || !all_digits(version.Scalar())) {
        fail(version, "schema", "expected the schema version as a whole number (schema: 1), got " + kind(version));
      }
      if (version.Scalar() != std::to_string(kSchemaVersion)) {
        fail(version, "schema", "unsupported schema version " + version.Scalar() + "; this mxconform reads schema " +
                                    std::to_string(kSchemaVersion));
      }
      return;
    }
    fail(root, "schema", "missing key 'schema'; a corpus file starts with 'schema: 1'");
  }

  // The entries of a map, refusing unknown, duplicate and missing keys.
  Fields read_map(const YAML::Node& node, const std::string& field, const std::vector<KeySpec>& keys) {
    if (!node.IsMap()) fail(node, field, "expected a map with keys " + key_names(keys) + ", got " + kind(node));
    last_mark_ = node.Mark();
    Fields out;
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      if (!key.IsScalar()) fail(key, field, "a key must be a name, got " + kind(key));
      const std::string& name = key.Scalar();
      const bool known = std::any_of(keys.begin(), keys.end(), [&](const KeySpec& k) { return k.name == name; });
      if (!known) fail(key, field, "unknown key '" + name + "'; expected one of " + key_names(keys));
      if (!out.emplace(name, entry.second).second) fail(key, join(field, name), "duplicate key");
    }
    for (const KeySpec& k : keys) {
      if (k.required && out.count(k.name) == 0) fail(node, field, "missing key '" + std::string(k.name) + "'");
    }
    return out;
  }

  std::string read_text(const YAML::Node& node, const std::string& field) {
    if (!node.IsScalar()) fail(node, field, "expected text, got " + kind(node));
    const std::string& text = node.Scalar();
    if (text.empty()) fail(node, field, "must not be empty");
    if (text.size() > kMaxTextLength) fail(node, field, "longer than " + std::to_string(kMaxTextLength) + " characters");
    return text;
  }

  std::size_t read_count(const YAML::Node& node, const std::string& field, std::size_t max) {
    if (!node.IsScalar() || !all_digits(node.Scalar()) || node.Scalar().size() > kMaxCountDigits) {
      fail(node, field, "expected a whole number from 0 to " + std::to_string(max) + ", got " + kind(node));
    }
    const std::size_t value = std::stoul(node.Scalar());
    if (value > max) fail(node, field, std::to_string(value) + " is above the limit " + std::to_string(max));
    return value;
  }

  std::string read_id(const YAML::Node& node, const std::string& field) {
    const std::string id = read_text(node, field);
    const bool ok = id.size() <= kMaxIdLength && std::all_of(id.begin(), id.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    });
    if (!ok) fail(node, field, "'" + id + "': an id is 1 to 96 letters, digits, '.', '_' or '-'");
    return id;
  }

  std::vector<std::string> read_tags(const YAML::Node& node, const std::string& field) {
    if (!node.IsSequence()) fail(node, field, "expected a list of tags, got " + kind(node));
    std::vector<std::string> tags;
    for (const YAML::Node& tag : node) tags.push_back(read_id(tag, indexed(field, tags.size())));
    return tags;
  }

  // Parses with `parse` and reports its Error at `node`.
  template <typename Parse>
  auto parse_at(const YAML::Node& node, const std::string& field, Parse parse) {
    if (!node.IsScalar()) fail(node, field, "expected a scalar, got " + kind(node));
    try {
      return parse(node.Scalar());
    } catch (const Error& error) {
      fail(node, field, error.what());
    }
  }

  std::uint16_t read_element(const YAML::Node& node, const std::string& field, InputDtype dtype) {
    return parse_at(node, field, [&](const std::string& text) { return parse_element(text, dtype); });
  }

  // "a,b" with a < first_limit and b < second_limit.
  std::pair<std::size_t, std::size_t> read_index_pair(const YAML::Node& key, const std::string& field,
                                                      std::string_view names, std::size_t first_limit,
                                                      std::size_t second_limit) {
    std::string text = key.IsScalar() ? key.Scalar() : std::string();
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    const std::size_t comma = text.find(',');
    const std::string first = text.substr(0, comma);
    const std::string second = comma == std::string::npos ? "" : text.substr(comma + 1);
    const auto in_range = [](const std::string& digits, std::size_t limit) {
      return all_digits(digits) && digits.size() <= kMaxCountDigits && std::stoul(digits) < limit;
    };
    if (!in_range(first, first_limit) || !in_range(second, second_limit)) {
      fail(key, field, "key " + kind(key) + " is not '" + std::string(names) + "' with " + std::string(names.substr(0, 1)) +
                           " < " + std::to_string(first_limit) + " and the second < " + std::to_string(second_limit));
    }
    return {std::stoul(first), std::stoul(second)};
  }

  void read_shape(const YAML::Node& node, const std::string& field, QuantizeConfig& config) {
    if (!node.IsSequence() || node.size() != 2) fail(node, field, "expected [P, F], got " + kind(node));
    config.partitions = read_count(node[0], indexed(field, 0), kMaxExtent);
    config.free = read_count(node[1], indexed(field, 1), kMaxExtent);
    if (config.partitions * config.free > kMaxElementsPerCase) {
      fail(node, field, shape_text(config) + " has more than " + std::to_string(kMaxElementsPerCase) + " elements");
    }
    QuantizeConfig shape_only;  // the block shape of the case's profile, every other knob its default
    if (config.profile != ProfileId::kNeuron) apply_profile(shape_only, config.profile);
    shape_only.block_shape = config.block_shape;
    shape_only.partitions = config.partitions;
    shape_only.free = config.free;
    try {
      validate(shape_only);
    } catch (const Error& error) {
      fail(node, field, error.what());
    }
    elements_left_ = elements_left_ - std::min(elements_left_, config.partitions * config.free);
    if (elements_left_ == 0) {
      fail(node, field, "the file holds more than " + std::to_string(kMaxElementsPerFile) + " elements in all");
    }
  }

  // The profile and block shape a case's config names, read before its shape so that the shape is
  // checked against its own blocks, and a profile or block shape that is unknown, or a block shape
  // the profile does not have, is reported as itself rather than as a shape that does not fit.
  // Anything else malformed in the config is left for read_config to report.
  void preset_block_shape(const YAML::Node& node, const std::string& field, QuantizeConfig& config) {
    if (!node.IsMap()) return;
    const YAML::Node profile_node = node["profile"];
    if (profile_node) {
      apply_profile(config, parse_at(profile_node, join(field, "profile"), parse_profile));
    }
    const YAML::Node shape_node = node["block-shape"];
    if (shape_node) {
      config.block_shape = parse_at(shape_node, join(field, "block-shape"), parse_block_shape);
      const Profile& contract = profile(config.profile);
      if ((contract.block_shapes >> static_cast<std::uint32_t>(config.block_shape) & 1) == 0) {
        fail(shape_node, join(field, "block-shape"),
             "block shape " + std::string(name(config.block_shape)) + " is not part of profile " + std::string(contract.name));
      }
    }
  }

  void read_config(const YAML::Node& node, const std::string& field, QuantizeConfig& config) {
    const Fields f = read_map(node, field, kConfigKeys);
    const YAML::Node& out = f.at("out-dtype");
    config.output = parse_at(out, join(field, "out-dtype"), [&](const std::string& text) -> OutputDtype {
      for (const OutputDtypeInfo& dtype : output_dtypes()) {
        if (dtype.name == text) return dtype.id;
      }
      std::string names;
      for (const OutputDtypeInfo& dtype : output_dtypes()) names += (names.empty() ? "" : ", ") + std::string(dtype.name);
      throw Error("unknown output dtype '" + text + "'; a corpus names it by its NKI name: " + names);
    });
    // A profile sets its own defaults first (absent: neuron); the knobs below override them.
    if (f.count("profile")) apply_profile(config, parse_at(f.at("profile"), join(field, "profile"), parse_profile));
    if (f.count("block-shape")) {
      config.block_shape = parse_at(f.at("block-shape"), join(field, "block-shape"), parse_block_shape);
    }
    if (f.count("emax-mode")) config.emax_mode = parse_at(f.at("emax-mode"), join(field, "emax-mode"), parse_emax_mode);
    if (f.count("fp8-nan")) config.fp8_nan = parse_at(f.at("fp8-nan"), join(field, "fp8-nan"), parse_fp8_nan);
    if (f.count("scale-layout")) {
      config.scale_layout = parse_at(f.at("scale-layout"), join(field, "scale-layout"), parse_scale_layout);
    }
    if (f.count("lane-stride")) {
      config.fp4_lane_stride = static_cast<std::uint32_t>(read_count(f.at("lane-stride"), join(field, "lane-stride"), kMaxLaneStride));
    }
    if (f.count("high-parity")) {
      config.fp4_high_parity = static_cast<int>(read_count(f.at("high-parity"), join(field, "high-parity"), 1));
    }
    try {
      validate(config);
    } catch (const Error& error) {
      fail(node, field, error.what());
    }
  }

  std::vector<std::uint16_t> read_elements(const Fields& input, const YAML::Node& node, const std::string& field,
                                           const QuantizeConfig& config) {
    const std::size_t n = config.partitions * config.free;
    const auto forms = std::count_if(kElementForms.begin(), kElementForms.end(), [&](auto form) { return input.count(form) > 0; });
    if (forms != 1) fail(node, field, "give exactly one of elements (all P*F), pattern (repeated) or fill (one value)");
    std::vector<std::uint16_t> out;
    out.reserve(n);
    if (input.count("fill")) {
      out.assign(n, read_element(input.at("fill"), join(field, "fill"), config.input));
    } else {
      const bool whole = input.count("elements") > 0;
      const std::string list_field = join(field, whole ? "elements" : "pattern");
      const YAML::Node& list = input.at(whole ? "elements" : "pattern");
      if (!list.IsSequence()) fail(list, list_field, "expected a list of elements, got " + kind(list));
      const std::size_t size = list.size();
      if (whole && size != n) {
        fail(list, list_field, "has " + std::to_string(size) + " elements; shape " + shape_text(config) + " needs " +
                                   std::to_string(n));
      }
      if (!whole && (size == 0 || size > n || n % size != 0)) {
        fail(list, list_field, "has " + std::to_string(size) + " elements; a pattern's length divides P*F = " +
                                   std::to_string(n));
      }
      for (const YAML::Node& element : list) out.push_back(read_element(element, indexed(list_field, out.size()), config.input));
      while (out.size() < n) out.insert(out.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size));
    }
    if (input.count("blocks")) {
      const std::string blocks_field = join(field, "blocks");
      const YAML::Node& blocks = input.at("blocks");
      if (!blocks.IsMap()) fail(blocks, blocks_field, "expected a map 'g,c': value, got " + kind(blocks));
      for (const auto& entry : blocks) {
        const Geometry shape = geometry(config);
        const auto [g, c] = read_index_pair(entry.first, blocks_field, "g,c", shape.block_rows, shape.block_cols);
        const std::uint16_t bits = read_element(entry.second, blocks_field + "." + entry.first.Scalar(), config.input);
        for (std::size_t row = g * shape.block_height; row < (g + 1) * shape.block_height; ++row) {
          std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(row * config.free + c * shape.block_width),
                      shape.block_width, bits);
        }
      }
    }
    if (input.count("set")) {
      const std::string set_field = join(field, "set");
      const YAML::Node& set = input.at("set");
      if (!set.IsMap()) fail(set, set_field, "expected a map 'row,col': value, got " + kind(set));
      for (const auto& entry : set) {
        const auto [row, col] = read_index_pair(entry.first, set_field, "row,col", config.partitions, config.free);
        out[row * config.free + col] = read_element(entry.second, set_field + "." + entry.first.Scalar(), config.input);
      }
    }
    return out;
  }

  std::vector<ExpectedByte> read_bytes(const YAML::Node& node, const std::string& field, std::size_t size,
                                       const std::string& size_rule) {
    std::vector<ExpectedByte> bytes =
        parse_at(node, field, [&](const std::string& text) { return parse_expected_bytes(text, size); });
    if (bytes.size() != size) {
      fail(node, field, "has " + std::to_string(bytes.size()) + " bytes; " + size_rule);
    }
    return bytes;
  }

  void check_data_codes(const YAML::Node& node, const std::string& field, const CorpusCase& c) {
    const FormatInfo element = element_format(c.config.output);
    const bool fp4 = is_fp4(c.config.output);
    const std::uint32_t magnitude_mask = element.magnitude_mask;
    for (std::size_t i = 0; i < c.data.size(); ++i) {
      if (!c.data[i]) fail(node, field, "byte " + std::to_string(i) + ": every data byte is written; '..' is for scale rows");
      const std::uint32_t magnitude = *c.data[i] & magnitude_mask;
      const bool nan_code = magnitude == magnitude_mask && c.config.fp8_nan == Fp8NanPolicy::kCanonical;
      if (c.config.profile != ProfileId::kNeuron && c.config.output != OutputDtype::kFloat8E4m3fn &&
          c.config.output != OutputDtype::kFloat8E4m3fnX4) {
        continue;  // e5m2 under a profile without saturation reaches Inf and every NaN code
      }
      if (!fp4 && magnitude > element.max_code && !nan_code) {
        fail(node, field, "byte " + std::to_string(i) + " is " + to_string(c.data[i]) + ", which " +
                              std::string(name(c.config.output)) + " never produces with fp8-nan " +
                              std::string(name(c.config.fp8_nan)) + " (finite codes end at " +
                              to_string(ExpectedByte(static_cast<std::uint8_t>(element.max_code))) +
                              ", Inf saturates, NaN gives sign|" + to_string(ExpectedByte(static_cast<std::uint8_t>(magnitude_mask))) +
                              " or a signed zero)");
      }
    }
  }

  void check_scale_bytes(const YAML::Node& node, const std::string& field, const CorpusCase& c) {
    const Geometry g = geometry(c.config);
    const std::vector<bool> named = named_scale_rows(c.config);
    const int largest = E8M0::kNanCode - emax_bias(c.config);
    const bool neuron = c.config.profile == ProfileId::kNeuron;  // other profiles reach every byte
    for (std::size_t i = 0; i < c.scale.size(); ++i) {
      const std::size_t row = i / g.block_cols;
      const std::string where = "byte " + std::to_string(i) + " (row " + std::to_string(row) + ")";
      if (!named[row] && c.scale[i]) {
        fail(node, field, where + " is in a physical row no slot names, which is never written: write '..'");
      }
      if (named[row] && !c.scale[i]) fail(node, field, where + " holds a block's E8M0; '..' is only for rows no slot names");
      if (neuron && c.scale[i] && (*c.scale[i] < 1 || *c.scale[i] > largest)) {
        fail(node, field, where + " is " + to_string(c.scale[i]) + "; an E8M0 byte is in [1, " + std::to_string(largest) +
                              "] (255 - emaxBias " + std::to_string(emax_bias(c.config)) + ")");
      }
    }
  }

  void read_expect(const YAML::Node& node, const std::string& field, CorpusCase& c) {
    const Fields f = read_map(node, field, kExpectKeys);
    const Geometry g = geometry(c.config);
    const std::string data_rule = std::string(name(c.config.output)) + " " + shape_text(c.config) + " writes " +
                                  std::to_string(g.data_bytes) + (is_fp4(c.config.output) ? " data bytes (P*F/2)" : " data bytes (P*F)");
    const std::string scale_rule =
        c.config.scale_layout == ScaleLayout::kPhysical
            ? "the physical scale buffer of " + shape_text(c.config) + " has " + std::to_string(g.scale_rows) +
                  " rows (slot(P/8 - 1) + 1, slot(i) = (i & 3) + 32*(i >> 2)) x F/4 = " +
                  std::to_string(g.block_cols) + ": " + std::to_string(g.scale_bytes) + " bytes"
            : "the logical scale tensor of " + shape_text(c.config) + " has P/" + std::to_string(g.block_height) + " x F/" +
                  std::to_string(g.block_width) + " = " + std::to_string(g.scale_bytes) + " bytes";
    c.data = read_bytes(f.at("data"), join(field, "data"), g.data_bytes, data_rule);
    check_data_codes(f.at("data"), join(field, "data"), c);
    c.scale = read_bytes(f.at("scale"), join(field, "scale"), g.scale_bytes, scale_rule);
    check_scale_bytes(f.at("scale"), join(field, "scale"), c);
  }

  CorpusCase read_case(const YAML::Node& node, const std::string& field) {
    const Fields f = read_map(node, field, kCaseKeys);
    CorpusCase c;
    c.id = read_id(f.at("id"), join(field, "id"));
    c.location = where(f.at("id").Mark());
    c.why = read_text(f.at("why"), join(field, "why"));
    c.source = read_text(f.at("source"), join(field, "source"));
    if (f.count("tags")) c.tags = read_tags(f.at("tags"), join(field, "tags"));
    const std::string input_field = join(field, "input");
    const YAML::Node& input_node = f.at("input");
    const Fields input = read_map(input_node, input_field, kInputKeys);
    c.config.input = parse_at(input.at("dtype"), join(input_field, "dtype"), parse_input_dtype);
    preset_block_shape(f.at("config"), join(field, "config"), c.config);
    read_shape(input.at("shape"), join(input_field, "shape"), c.config);
    read_config(f.at("config"), join(field, "config"), c.config);
    c.input = read_elements(input, input_node, input_field, c.config);
    read_expect(f.at("expect"), join(field, "expect"), c);
    return c;
  }

  std::string file_;
  YAML::Mark last_mark_;
  std::size_t elements_left_ = kMaxElementsPerFile + 1;
};

}  // namespace

std::vector<CorpusCase> load_corpus_text(std::string_view text, const std::string& file_name) {
  if (text.size() > kMaxFileBytes) {
    throw Error(file_name + ":1:1: larger than " + std::to_string(kMaxFileBytes) + " bytes; split the corpus file");
  }
  return FileReader(file_name).read(text);
}

std::vector<CorpusCase> load_corpus_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw Error(path + ": cannot open the corpus file");
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return load_corpus_text(text, path);
}

std::vector<std::string> find_corpus_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_regular_file(path, error)) {
      files.push_back(path);
      continue;
    }
    if (!fs::is_directory(path, error)) throw Error(path + ": no such corpus file or directory");
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, error)) {
      const std::string extension = entry.path().extension().string();
      if (entry.is_regular_file() && (extension == ".yaml" || extension == ".yml")) found.push_back(entry.path().string());
    }
    if (error) throw Error(path + ": cannot read the directory: " + error.message());
    if (found.empty()) throw Error(path + ": the directory holds no corpus file (*.yaml)");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<CorpusCase> load_corpus(const std::vector<std::string>& paths) {
  std::vector<CorpusCase> all;
  IdIndex ids;
  for (const std::string& file : find_corpus_files(paths)) {
    std::vector<CorpusCase> cases = load_corpus_file(file);
    for (std::size_t i = 0; i < cases.size(); ++i) ids.add(cases[i], join(indexed("cases", i), "id"));
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  return all;
}

}  // namespace mxconform::corpus
