// corpus/corpus_loader.h: a valid file loads; every kind of bad file is refused with a message
// that names the file, line, column and field.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "corpus_loader.h"
#include "mxconform/error.h"

namespace mxconform::corpus {
namespace {

// Line numbers below refer to this text (line 1 is "schema: 1").
const std::string kValid = R"(schema: 1
cases:
  - id: base.case
    why: A valid case.
    source: docs/contract.md
    input:
      dtype: bfloat16
      shape: [8, 4]
      fill: 0
    config:
      out-dtype: float8_e4m3fn
    expect:
      scale: "01"
      data: "00*32"
)";

// kValid with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to, std::string text = kValid) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test: '" + from + "' is not in the text");
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    load_corpus_text(text, "bad.yaml");
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(CorpusLoader, ValidFileLoads) {
  const auto cases = load_corpus_text(kValid, "good.yaml");
  ASSERT_EQ(cases.size(), 1u);
  const CorpusCase& c = cases[0];
  EXPECT_EQ(c.id, "base.case");
  EXPECT_EQ(to_string(c.location), "good.yaml:3:9");
  EXPECT_EQ(c.config.partitions, 8u);
  EXPECT_EQ(c.config.output, OutputDtype::kFloat8E4m3fn);
  EXPECT_EQ(c.input, std::vector<std::uint16_t>(32, 0));
  EXPECT_EQ(c.scale, std::vector<ExpectedByte>{1});
  EXPECT_EQ(c.data, std::vector<ExpectedByte>(32, 0));
}

TEST(CorpusLoader, ElementFormsAndKnobs) {
  const std::string text = with("      fill: 0\n", R"(      pattern: [1, -0x1p-133, 0x3F80, nan]
      blocks: {"0,0": 2}
      set: {"7,3": -inf, "0,1": 0.5}
)",
                                with("      out-dtype: float8_e4m3fn\n", R"(      out-dtype: float4_e2m1fn_x4
      emax-mode: emax-1
      fp8-nan: zero
      lane-stride: 2
      high-parity: 0
      scale-layout: logical
)",
                                     with("      data: \"00*32\"", "      data: \"00*16\"", with("\"01\"", "\"FE\""))));
  const CorpusCase c = load_corpus_text(text, "forms.yaml").at(0);
  EXPECT_EQ(c.input[0], 0x4000);   // blocks overrides the pattern
  EXPECT_EQ(c.input[1], 0x3F00);   // set overrides blocks
  EXPECT_EQ(c.input[31], 0xFF80);
  EXPECT_EQ(c.config.emax_mode, EmaxMode::kEmaxMinus1);
  EXPECT_EQ(c.config.fp8_nan, Fp8NanPolicy::kZero);
  EXPECT_EQ(c.config.fp4_lane_stride, 2u);
  EXPECT_EQ(c.config.fp4_high_parity, 0);
  EXPECT_EQ(c.config.scale_layout, ScaleLayout::kLogical);
  const CorpusCase patterned = load_corpus_text(with("      fill: 0\n", "      pattern: [1, -0x1p-133, 0x3F80, nan]\n"), "p.yaml").at(0);
  EXPECT_EQ(patterned.input[4], 0x3F80);
  EXPECT_EQ(patterned.input[5], 0x8001);
  EXPECT_EQ(patterned.input[31], 0x7FC0);
}

// One test per kind of bad file; each message starts with file:line:column: field:.
TEST(CorpusLoaderErrors, UnknownKey) {
  EXPECT_EQ(error_of(with("      data:", "      dat:")),
            "bad.yaml:14:7: cases[0].expect: unknown key 'dat'; expected one of scale, data");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn\n", "      out-dtype: float8_e4m3fn\n      emax_mode: emax-1\n")),
            "bad.yaml:12:7: cases[0].config: unknown key 'emax_mode'; expected one of out-dtype, emax-mode, fp8-nan, "
            "lane-stride, high-parity, scale-layout, profile, block-shape");
  EXPECT_EQ(error_of(with("schema: 1\n", "schema: 1\nversion: 2\n")),
            "bad.yaml:2:1: unknown key 'version'; expected one of schema, cases");
}

// A misspelled profile, or a block shape its profile does not have, is reported at that field,
// not as a shape that does not fit 8 x 4 blocks.
TEST(CorpusLoaderErrors, ProfileAndBlockShapeNamedBeforeTheShape) {
  const std::string wide = with("[8, 4]", "[1, 32]");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn\n", "      out-dtype: float8_e4m3fn\n      profile: ocp_floor\n", wide)),
            "bad.yaml:12:16: cases[0].config.profile: unknown profile 'ocp_floor'; expected one of neuron, nki-golden, "
            "nki-golden-kernel, ocp-floor, torchao-rceil, transformer-engine-mxfp8, microxcaling, torchao-ceil, torchao-even");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn\n",
                          "      out-dtype: float8_e4m3fn\n      profile: ocp-floor\n      block-shape: 8x4\n", wide)),
            "bad.yaml:13:20: cases[0].config.block-shape: block shape 8x4 is not part of profile ocp-floor");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn\n", "      out-dtype: float8_e4m3fn\n      block-shape: 1x31\n", wide)),
            "bad.yaml:12:20: cases[0].config.block-shape: unknown block shape '1x31'; expected 8x4, 1x32 or 32x1");
}

TEST(CorpusLoaderErrors, WrongType) {
  EXPECT_EQ(error_of(with("[8, 4]", "8")), "bad.yaml:8:14: cases[0].input.shape: expected [P, F], got '8'");
  EXPECT_EQ(error_of(with("why: A valid case.", "why: [a, b]")), "bad.yaml:4:10: cases[0].why: expected text, got a list");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn\n", "      out-dtype: float8_e4m3fn\n      lane-stride: two\n")),
            "bad.yaml:12:20: cases[0].config.lane-stride: expected a whole number from 0 to 32768, got 'two'");
  EXPECT_EQ(error_of(with("  - id: base.case", "  - id: {a: 1}")),
            "bad.yaml:3:9: cases[0].id: expected text, got a map");
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: [0]")), "bad.yaml:9:13: cases[0].input.fill: expected a scalar, got a list");
}

TEST(CorpusLoaderErrors, InvalidBitPatternOrValue) {
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: 0x12345")),
            "bad.yaml:9:13: cases[0].input.fill: '0x12345' is not a 16-bit pattern: write at most 4 hex digits after 0x");
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: 0.1")),
            "bad.yaml:9:13: cases[0].input.fill: '0.1' is not exact in bfloat16; the nearest bfloat16 is 0x3DCD "
            "(0.10009765625)");
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: 0\n      set: {\"2,3\": 1e39}")),
            "bad.yaml:10:20: cases[0].input.set.2,3: '1e39' is beyond the largest finite bfloat16, 1.9921875*2^127");
}

TEST(CorpusLoaderErrors, ElementCountDoesNotMatchTheShape) {
  std::string elements = "      elements: [0";
  for (int i = 1; i < 31; ++i) elements += ", 0";
  EXPECT_EQ(error_of(with("      fill: 0", elements + "]")),
            "bad.yaml:9:17: cases[0].input.elements: has 31 elements; shape [8, 4] needs 32");
  EXPECT_EQ(error_of(with("      fill: 0", "      pattern: [0, 0, 0]")),
            "bad.yaml:9:16: cases[0].input.pattern: has 3 elements; a pattern's length divides P*F = 32");
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: 0\n      pattern: [0]")),
            "bad.yaml:7:7: cases[0].input: give exactly one of elements (all P*F), pattern (repeated) or fill (one value)");
  EXPECT_EQ(error_of(with("      fill: 0", "      fill: 0\n      set: {\"8,0\": 1}")),
            "bad.yaml:10:13: cases[0].input.set: key '8,0' is not 'row,col' with r < 8 and the second < 4");
}

TEST(CorpusLoaderErrors, ShapeBreaksARule) {
  EXPECT_EQ(error_of(with("[8, 4]", "[12, 4]")),
            "bad.yaml:8:14: cases[0].input.shape: shape [12, 4]: P must be a multiple of 8 (blocks are 8 partitions x 4 "
            "columns)");
  EXPECT_EQ(error_of(with("[8, 4]", "[4096, 4096]")),
            "bad.yaml:8:14: cases[0].input.shape: [4096, 4096] has more than 65536 elements");
  EXPECT_EQ(error_of(with("[8, 4]", "[8, 999999999999]")),
            "bad.yaml:8:18: cases[0].input.shape[1]: expected a whole number from 0 to 4096, got '999999999999'");
  EXPECT_EQ(error_of(with("      out-dtype: float8_e4m3fn", "      out-dtype: float4_e2m1fn_x4\n      lane-stride: 3")),
            "bad.yaml:11:7: cases[0].config: lane stride 3 with shape [8, 4]: FP4 needs (P*F) % (2*stride) == 0, and 32 % "
            "6 = 2");
  EXPECT_EQ(error_of(with("float8_e4m3fn", "fp4")),
            "bad.yaml:11:18: cases[0].config.out-dtype: unknown output dtype 'fp4'; a corpus names it by its NKI name: "
            "float4_e2m1fn_x4, float8_e4m3fn, float8_e5m2, float8_e4m3fn_x4, float8_e5m2_x4");
}

TEST(CorpusLoaderErrors, ExpectedByteCountDoesNotMatchTheOutput) {
  EXPECT_EQ(error_of(with("\"00*32\"", "\"00*31\"")),
            "bad.yaml:14:13: cases[0].expect.data: has 31 bytes; float8_e4m3fn [8, 4] writes 32 data bytes (P*F)");
  EXPECT_EQ(error_of(with("float8_e4m3fn", "float4_e2m1fn_x4")),
            "bad.yaml:14:13: cases[0].expect.data: more than 16 bytes, but the output has 16");
  // The physical layout has slot rows: [40, 4] needs slot(4) + 1 = 33 rows, not 5.
  EXPECT_EQ(error_of(with("\"00*32\"", "\"00*160\"", with("[8, 4]", "[40, 4]", with("\"01\"", "\"01 01 01 01 01\"")))),
            "bad.yaml:13:14: cases[0].expect.scale: has 5 bytes; the physical scale buffer of [40, 4] has 33 rows "
            "(slot(P/8 - 1) + 1, slot(i) = (i & 3) + 32*(i >> 2)) x F/4 = 1: 33 bytes");
  EXPECT_EQ(error_of(with("\"00*32\"", "\"00*160\"", with("[8, 4]", "[40, 4]", with("\"01\"", "\"01*33\"")))),
            "bad.yaml:13:14: cases[0].expect.scale: byte 4 (row 4) is in a physical row no slot names, which is never "
            "written: write '..'");
  EXPECT_EQ(load_corpus_text(with("\"00*32\"", "\"00*160\"", with("[8, 4]", "[40, 4]", with("\"01\"", "\"01*4 ..*28 01\""))), "ok.yaml")
                .at(0)
                .scale.size(),
            33u);
}

TEST(CorpusLoaderErrors, ExpectedBytesTheContractNeverWrites) {
  EXPECT_EQ(error_of(with("\"01\"", "\"00\"")),
            "bad.yaml:13:14: cases[0].expect.scale: byte 0 (row 0) is 0x00; an E8M0 byte is in [1, 247] (255 - emaxBias 8)");
  EXPECT_EQ(error_of(with("\"00*32\"", "\"7C 00*31\"", with("float8_e4m3fn", "float8_e5m2"))),
            "bad.yaml:14:13: cases[0].expect.data: byte 0 is 0x7C, which float8_e5m2 never produces with fp8-nan canonical "
            "(finite codes end at 0x7B, Inf saturates, NaN gives sign|0x7F or a signed zero)");
  EXPECT_EQ(error_of(with("\"00*32\"", "\"00 .. 00*30\"")),
            "bad.yaml:14:13: cases[0].expect.data: byte 1: every data byte is written; '..' is for scale rows");
}

TEST(CorpusLoaderErrors, MissingOrDuplicateKeyAndBadId) {
  EXPECT_EQ(error_of(with("    source: docs/contract.md\n", "")), "bad.yaml:3:5: cases[0]: missing key 'source'");
  EXPECT_EQ(error_of(with("    source: docs/contract.md\n", "    source: docs/contract.md\n    source: again\n")),
            "bad.yaml:6:5: cases[0].source: duplicate key");
  EXPECT_EQ(error_of(with("base.case", "base case!")),
            "bad.yaml:3:9: cases[0].id: 'base case!': an id is 1 to 96 letters, digits, '.', '_' or '-'");
}

TEST(CorpusLoaderErrors, DuplicateIdInOneFile) {
  const std::string twice = kValid + kValid.substr(kValid.find("  - id:"));
  EXPECT_EQ(error_of(twice),
            "bad.yaml:15:9: cases[1].id: duplicate id 'base.case'; first defined at bad.yaml:3:9");
}

TEST(CorpusLoaderErrors, DuplicateIdAcrossFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("corpus_loader_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml") << kValid;
  std::ofstream(dir / "sub" / "b.yaml") << kValid;
  std::ofstream(dir / "notes.txt") << "not a corpus file";
  EXPECT_EQ(find_corpus_files({dir.string()}).size(), 2u);
  std::string message = "no error";
  try {
    load_corpus({dir.string()});
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_EQ(message, (dir / "sub" / "b.yaml").string() + ":3:9: cases[0].id: duplicate id 'base.case'; first defined at " +
                         (dir / "a.yaml").string() + ":3:9");
  std::filesystem::remove_all(dir);
}

TEST(CorpusLoaderErrors, UnsupportedSchemaVersion) {
  EXPECT_EQ(error_of(with("schema: 1", "schema: 2")),
            "bad.yaml:1:9: schema: unsupported schema version 2; this mxconform reads schema 1");
  EXPECT_EQ(error_of(with("schema: 1\n", "")), "bad.yaml:1:1: schema: missing key 'schema'; a corpus file starts with 'schema: 1'");
  EXPECT_EQ(error_of(with("schema: 1", "schema: one")),
            "bad.yaml:1:9: schema: expected the schema version as a whole number (schema: 1), got 'one'");
}

TEST(CorpusLoaderErrors, NotYaml) {
  EXPECT_EQ(error_of("schema: 1\ncases: [\n"), "bad.yaml:3:1: YAML: end of sequence flow not found");
  EXPECT_EQ(error_of(""), "bad.yaml:1:1: schema: the file is empty; a corpus file starts with 'schema: 1' and lists 'cases'");
  EXPECT_EQ(error_of("schema: 1\ncases: []\n"), "bad.yaml:2:8: cases: the list is empty; a corpus file holds at least one case");
  EXPECT_EQ(error_of(kValid + "---\n" + kValid), "bad.yaml:15:1: a corpus file holds one YAML document, this one has more");
  EXPECT_EQ(error_of(std::string(1000, '[')).find("bad.yaml:"), 0u);  // nesting stays bounded
  // A stray ',' where a document starts sends yaml-cpp 0.7's LoadAll into an endless loop
  // (jbeder/yaml-cpp#1040); the loader stops.
  EXPECT_EQ(error_of("# a comment\n  ,\nschema: 1\n"),
            "bad.yaml:2:3: YAML: no document can be read from here; a corpus file starts with 'schema: 1'");
  EXPECT_EQ(error_of("# only a comment\n\n"),
            "bad.yaml:1:1: schema: the file is empty; a corpus file starts with 'schema: 1' and lists 'cases'");
}

TEST(CorpusLoaderErrors, MissingPaths) {
  EXPECT_THROW(find_corpus_files({"/nonexistent/corpus"}), Error);
  EXPECT_THROW(load_corpus_file("/nonexistent/corpus.yaml"), Error);
}

}  // namespace
}  // namespace mxconform::corpus
