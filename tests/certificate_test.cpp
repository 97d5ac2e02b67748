// Certificates (certify/certificate.cpp): the YAML certificate survives hostile text and reads
// back byte for byte, the JUnit XML stays well-formed, read_certificate refuses malformed counts
// and inconsistent certificates, merge takes exactly the shards 0..N-1 of one run, and the
// verdict table shows text from outside escaped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "certificate_seal.h"
#include "certification.h"
#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

constexpr std::size_t kMaxCount = std::numeric_limits<std::size_t>::max();

// Bytes a backend might put in a message: invalid UTF-8, terminal escapes, NUL, CDATA's end,
// XML and YAML specials, a backslash escape look-alike, U+2028, U+FFFE, C1 NEL, a carriage return.
const std::string kHostile = std::string("bytes \xFF\xFE") + ", esc \x1B[31mred\x1B[0m, nul " + std::string(1, '\0') +
                             " cdata ]]> <&\"' \\x41 " + "\xE2\x80\xA8" + " " + "\xEF\xBF\xBE" + " " + "\xC2\x85" +
                             " - : # ~ !t &a *a \r end";
// A repro that yaml-cpp cannot write as a literal block: a first line starting with a blank, a
// carriage return, no final newline.
const std::string kHostileRepro = std::string("  leading blank\n\tcol ") + "\xFF" + "\r\n- x: [\n" + kHostile;

std::string shard_text(std::size_t index, std::size_t count) { return std::to_string(index) + "/" + std::to_string(count); }

// Shard `index` of a run of `count`: `passes` corpus cases passing on cfg-a; cfg-b is not
// declared by the backend (text only, no count).
Certificate shard(std::size_t index, std::size_t count, std::size_t passes = 5) {
  Certificate c;
  const std::string position = shard_text(index, count);
  const std::string day = "2024-05-0" + std::to_string(index + 1);
  c.header = {{"mxconform_version", "0.1.0"},
              {"mxconform_commit", "d403531"},
              {"backend", "./libsubject.so"},
              {"backend_name", "subject"},
              {"backend_version", "1.0"},
              {"backend_description", "a test subject"},
              {"backend_path", "/opt/libsubject.so"},
              {"backend_sha256", std::string(64, 'b')},
              {"corpus_sha256", std::string(64, 'c')},
              {"level", "gate"},
              {"seed", "7"},
              {"all_knobs", "false"},
              {"campaigns", "corpus"},
              {"shard", position},
              {"rerun", "mxconform certify --backend ./libsubject.so --level gate --seed 7 --emax-mode emax --shard " +
                            position + " --campaign corpus"},
              {"started", day + "T10:00:00Z"},
              {"finished", day + "T11:00:00Z"},
              {"workers_started", "2"},
              {"cpu_model", "cpu " + std::to_string(index)}};
  c.configurations = {"cfg-a", "cfg-b"};
  c.tallies = {{"corpus", "cfg-a", "float8_e4m3fn", {{"pass", passes}}, ""},
               {"corpus", "cfg-b", "float4_e2m1fn_x4", {}, "not declared: output dtype float4_e2m1fn_x4"}};
  c.cases = passes;
  c.header["verdict"] = c.certified() ? "certified" : "not certified";
  return c;
}

// One more case on cfg-a with `outcome`, listed as a failure with `detail`.
void add_failure(Certificate& c, Outcome outcome, const std::string& detail, const std::string& repro = "# repro\n") {
  ++c.tallies[0].outcomes[name(outcome)];
  ++c.cases;
  c.failures.push_back({"corpus", "case-" + detail.substr(0, 8), "cfg-a shape=[8, 4]", "cfg-a", outcome, detail, repro, "", "", ""});
  c.header["verdict"] = c.certified() ? "certified" : "not certified";
}

// A file of this test process and test, so that tests running side by side never share one.
std::string temp_path(const std::string& stem) {
  return ::testing::TempDir() + "mxconform-certificate-test-" + std::to_string(::getpid()) + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + stem;
}

std::string written(const std::string& stem, const std::string& text) {
  const std::string path = temp_path(stem);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return path;
  EXPECT_EQ(std::fwrite(text.data(), 1, text.size(), file), text.size());
  EXPECT_EQ(std::fclose(file), 0);
  return path;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' in\n" << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The message of the Error `action` throws, or "" (a test failure) when it throws none.
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

std::string read_error(const std::string& stem, const std::string& yaml) {
  const std::string path = written(stem, yaml);
  return error_of([&] { read_certificate(path); });
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Why `text` is not UTF-8 made of characters both XML 1.0 (Char) and YAML 1.2 (c-printable)
// allow: #x9 | #xA | #xD | [#x20-#x7E] | [#xA0-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF];
// or "" when it is. Rejects overlong forms; surrogates fall outside the ranges.
std::string not_printable_utf8(const std::string& text) {
  static const std::uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<std::uint8_t>(text[i]);
    std::uint32_t code = 0;
    std::size_t length = 0;
    if (lead < 0x80) {
      code = lead, length = 1;
    } else if ((lead & 0xE0) == 0xC0) {
      code = lead & 0x1F, length = 2;
    } else if ((lead & 0xF0) == 0xE0) {
      code = lead & 0x0F, length = 3;
    } else if ((lead & 0xF8) == 0xF0) {
      code = lead & 0x07, length = 4;
    } else {
      return "byte " + std::to_string(i) + " is no UTF-8 lead byte";
    }
    if (i + length > text.size()) return "sequence cut at byte " + std::to_string(i);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<std::uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) return "bad continuation at byte " + std::to_string(i + k);
      code = code << 6 | (next & 0x3F);
    }
    if (code < kLeast[length]) return "overlong form at byte " + std::to_string(i);
    const bool printable = code == 0x9 || code == 0xA || code == 0xD || (code >= 0x20 && code <= 0x7E) ||
                           (code >= 0xA0 && code <= 0xD7FF) || (code >= 0xE000 && code <= 0xFFFD) ||
                           (code >= 0x10000 && code <= 0x10FFFF);
    if (!printable) return "code point " + std::to_string(code) + " at byte " + std::to_string(i);
    i += length;
  }
  return "";
}

// The first byte below 0x20 other than those allowed, or -1.
long control_byte(const std::string& text, const std::string& allowed) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (static_cast<std::uint8_t>(text[i]) < 0x20 && allowed.find(text[i]) == std::string::npos) return static_cast<long>(i);
  }
  return -1;
}

Certificate hostile_certificate() {
  Certificate c = shard(0, 1);
  c.header["backend_description"] = kHostile;
  c.header["backend_path"] = "/opt/" + kHostile;
  add_failure(c, Outcome::kWrongResult, kHostile, kHostileRepro);
  add_failure(c, Outcome::kCrash, "signal 11", "# repro\ncases:\n  - id: x\n");
  c.failures.back().case_id = kHostile;
  return c;
}

// ---- The YAML certificate. ----

TEST(CertificateYaml, HostileTextReadsBackByteForByteAndWritesBackTheSame) {
  const Certificate expected = hostile_certificate();
  const std::string yaml = to_yaml(expected);
  EXPECT_EQ(not_printable_utf8(yaml), "") << yaml;  // printable UTF-8: no raw byte of kHostile survives
  EXPECT_EQ(control_byte(yaml, "\n\t"), -1) << yaml;
  const Certificate actual = read_certificate(written("hostile.yaml", yaml));
  EXPECT_EQ(actual.header, expected.header);
  EXPECT_EQ(actual.cases, expected.cases);
  ASSERT_EQ(actual.failures.size(), 2u);
  EXPECT_EQ(actual.failures[0].detail, kHostile);
  EXPECT_EQ(actual.failures[0].repro_yaml, kHostileRepro);
  EXPECT_EQ(actual.failures[0].outcome, Outcome::kWrongResult);
  EXPECT_EQ(actual.failures[1].case_id, kHostile);
  EXPECT_EQ(actual.failures[1].repro_yaml, "# repro\ncases:\n  - id: x\n");
  EXPECT_EQ(actual.tallies[1].unsupported, expected.tallies[1].unsupported);
  EXPECT_FALSE(actual.certified());
  // Written again (as a merge does), it is the same file: nothing is escaped twice.
  EXPECT_EQ(to_yaml(actual), yaml);
}

TEST(CertificateYaml, ALongDetailIsCutOnceWithinTheCap) {
  Certificate c = shard(0, 1);
  add_failure(c, Outcome::kError, std::string(1 << 20, 'x'));
  const std::string yaml = to_yaml(c);
  EXPECT_LT(yaml.size(), std::size_t{64} << 10);
  const Certificate actual = read_certificate(written("long.yaml", yaml));
  const std::string& detail = actual.failures.at(0).detail;
  EXPECT_LE(detail.size(), 4096u);
  EXPECT_TRUE(contains(detail, "more bytes)")) << detail.substr(detail.size() - 40);
  EXPECT_EQ(to_yaml(actual), yaml);
}

// ---- JUnit XML. ----

TEST(CertificateJunit, HostileTextGivesWellFormedXml) {
  Certificate c = hostile_certificate();
  add_failure(c, Outcome::kHang, kHostile + std::string(1 << 20, '<'));
  c.tallies[0].configuration = c.failures[0].knobs = c.failures[1].knobs = c.failures[2].knobs = "cfg-a " + kHostile;
  const std::string xml = to_junit(c);
  EXPECT_EQ(not_printable_utf8(xml), "");
  EXPECT_EQ(control_byte(xml, "\n\t\r"), -1);
  EXPECT_LT(xml.size(), std::size_t{1} << 20);  // the 1 MB detail is capped

  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_string(xml.c_str());
  ASSERT_EQ(parsed.status, pugi::status_ok) << parsed.description() << " at " << parsed.offset;
  const pugi::xml_node suite = document.child("testsuites").child("testsuite");
  EXPECT_STREQ(suite.attribute("name").value(), "corpus");
  EXPECT_STREQ(suite.attribute("tests").value(), "2");
  EXPECT_STREQ(suite.attribute("failures").value(), "1");
  EXPECT_STREQ(suite.attribute("skipped").value(), "1");
  const pugi::xml_node failed = suite.child("testcase");
  const std::string failure_text = failed.child("failure").text().get();
  EXPECT_TRUE(contains(failure_text, "cdata ]]> <&\"' ")) << failure_text;  // XML specials, as text
  EXPECT_TRUE(contains(failure_text, "bytes \\xFF\\xFE, esc \\x1B[31m")) << failure_text;
  EXPECT_TRUE(contains(failure_text, "\\xEF\\xBF\\xBE")) << failure_text;  // U+FFFE is no XML Char
  EXPECT_TRUE(contains(failed.child("failure").attribute("message").value(), "wrong-result x1"));
  EXPECT_TRUE(contains(failed.attribute("name").value(), "cfg-a bytes \\xFF"));
  const pugi::xml_node skipped = failed.next_sibling("testcase");
  EXPECT_STREQ(skipped.child("skipped").attribute("message").value(), "not supported: not declared: output dtype float4_e2m1fn_x4");
}

// ---- read_certificate: counts and consistency. ----

TEST(ReadCertificate, CountsArePlainUnsignedDecimalsWithin64Bits) {
  const std::string yaml = to_yaml(shard(0, 1, 5));
  ASSERT_NO_THROW(read_certificate(written("counts-ok.yaml", yaml)));
  for (const char* count : {"-1", "1e3", "0x5", "+5", "05", "5.0", "\"5\"", "'5'", "!!int 5", "~", "[5]",
                            "18446744073709551616", "99999999999999999999999"}) {
    const std::string message = read_error("counts.yaml", replaced(yaml, "pass: 5", std::string("pass: ") + count));
    EXPECT_TRUE(contains(message, "counts.yaml: results[0].outcomes.pass:")) << count << ": " << message;
  }
  EXPECT_TRUE(contains(read_error("counts.yaml", replaced(yaml, "cases: 5", "cases: -5")), "counts.yaml: cases:"));
}

TEST(ReadCertificate, CasesEqualTheSumOfEveryOutcomeCount) {
  Certificate c = shard(0, 1, 5);
  c.cases = 6;
  EXPECT_TRUE(contains(read_error("sum.yaml", to_yaml(c)), "sum.yaml: cases is 6, but the outcome counts in results sum to 5"));
  // 2^64 - 1 passes and one wrong result wrap to 0: an overflow, not a match with cases: 0.
  c = shard(0, 1, kMaxCount);
  c.tallies[1].outcomes["wrong-result"] = 1;
  c.cases = 0;
  EXPECT_TRUE(contains(read_error("overflow.yaml", to_yaml(c)), "overflow.yaml: the outcome counts in results overflow 64 bits"));
  // The largest count is a count.
  c = shard(0, 1, kMaxCount);
  const Certificate read = read_certificate(written("max.yaml", to_yaml(c)));
  EXPECT_EQ(read.cases, kMaxCount);
  EXPECT_TRUE(read.certified());
}

TEST(ReadCertificate, TheVerdictIsWhatTheCountsAndFailuresSay) {
  const std::string passing = to_yaml(shard(0, 1));
  EXPECT_TRUE(contains(read_error("verdict.yaml", replaced(passing, "verdict: certified", "verdict: not certified")),
                       "verdict.yaml: verdict is 'not certified', but the counts and failures say 'certified'"));
  Certificate failing = shard(0, 1);
  add_failure(failing, Outcome::kWriteIntoInput, "wrote into the input");
  EXPECT_TRUE(contains(read_error("verdict.yaml", replaced(to_yaml(failing), "verdict: not certified", "verdict: certified")),
                       "verdict is 'certified', but the counts and failures say 'not certified' (write-into-input counted)"));
  // A failure counted without being listed (the runner keeps at most 50) still fails.
  failing.failures.clear();
  EXPECT_TRUE(contains(read_error("verdict.yaml", replaced(to_yaml(failing), "verdict: not certified", "verdict: certified")),
                       "(write-into-input counted)"));
  // Not supported alone is no pass: no requested configuration ran, and the reason says so.
  Certificate unsupported = shard(0, 1, 0);
  unsupported.tallies[0].outcomes = {{"not-supported", 3}};
  unsupported.cases = 3;
  EXPECT_TRUE(contains(read_error("verdict.yaml", replaced(to_yaml(unsupported), "verdict: not certified", "verdict: certified")),
                       "(none of the requested configurations is supported by the backend: not declared: output dtype "
                       "float4_e2m1fn_x4)"));
  // Its reason is in the certificate, which reads back.
  EXPECT_TRUE(contains(to_yaml(unsupported), "\nverdict_reason: \"none of the requested configurations is supported"));
  EXPECT_FALSE(read_certificate(written("unsupported.yaml", to_yaml(unsupported))).certified());
  // The reason is checked as the verdict is: none on a certified run, the counts' own otherwise.
  EXPECT_TRUE(contains(read_error("reason.yaml", replaced(passing, "verdict: certified\n",
                                                          "verdict: certified\nverdict_reason: \"forged: all fine\"\n")),
                       "reason.yaml: verdict_reason is 'forged: all fine', but the counts and failures say ''"));
  EXPECT_TRUE(contains(read_error("reason.yaml", replaced(to_yaml(unsupported), "verdict_reason: \"none of the requested",
                                                          "verdict_reason: \"none of the asked")),
                       "verdict_reason is 'none of the asked"));
  // Nothing run at all.
  Certificate empty = shard(0, 1, 0);
  empty.tallies.pop_back();
  EXPECT_EQ(empty.why_not_certified(), "no case passed");
  EXPECT_TRUE(contains(read_error("verdict.yaml", replaced(passing, "verdict: certified\n", "")), "verdict.yaml: no verdict"));
}

// ---- The seal (certificate_seal.h). ----

// The key variable for one test, restored (unset) when the test ends.
class CertificateKey {
 public:
  explicit CertificateKey(const char* key) { ::setenv(kCertificateKeyVariable, key, 1); }
  ~CertificateKey() { ::unsetenv(kCertificateKeyVariable); }
};

// A failing shard rewritten by hand so that every count rule holds and it reads as certified:
// the failure moved into pass, the failures and their groups emptied, the verdict changed and its
// reason dropped.
std::string relabelled_as_certified(const std::string& yaml) {
  std::string text = replaced(yaml, "verdict: not certified", "verdict: certified");
  const std::size_t reason = text.find("verdict_reason:");
  if (reason != std::string::npos) text.erase(reason, text.find('\n', reason) + 1 - reason);
  text = replaced(text, "pass: 5\n      wrong-result: 1", "pass: 6");
  const std::size_t failures = text.find("failures:");
  const std::size_t groups = text.find("failure_groups:");
  const std::size_t seal = text.find("integrity:");
  EXPECT_TRUE(failures != std::string::npos && groups != std::string::npos && seal != std::string::npos) << text;
  if (failures == std::string::npos || groups == std::string::npos || seal == std::string::npos) return text;
  return text.substr(0, failures) + "failures: []\nfailure_groups: []\n" + text.substr(seal);
}

TEST(CertificateSeal, AConsistentEditAfterWritingIsRefused) {
  Certificate failing = shard(0, 1);
  add_failure(failing, Outcome::kWrongResult, "0x38 expected, 0x39 actual");
  failing.failure_groups = {{"wrong-result data", {{"corpus", 1}}, 1}};
  failing.failures.back().signature = "wrong-result data";
  const std::string yaml = to_yaml(failing);
  ASSERT_NO_THROW(read_certificate(written("failing.yaml", yaml)));
  const std::string forged = relabelled_as_certified(yaml);
  // The count and verdict rules are checked before the seal, so the seal's error on the forgery
  // says that it keeps every other rule: only the seal catches it.
  const std::string unsealed_forgery = forged.substr(0, forged.find("integrity:"));
  EXPECT_TRUE(contains(read_error("unsealed.yaml", unsealed_forgery), "unsealed.yaml: no 'integrity:' line"));
  EXPECT_TRUE(contains(read_error("forged.yaml", forged),
                       "forged.yaml: its integrity line does not match its content: it was changed after mxconform wrote it"));
  EXPECT_TRUE(contains(read_error("method.yaml", replaced(yaml, "integrity: sha256", "integrity: md5")),
                       "method.yaml: integrity method is not sha256 or hmac-sha256"));
}

TEST(CertificateSeal, WithAKeyOnlyCertificatesSealedWithThatKeyAreRead) {
  const std::string plain = to_yaml(shard(0, 1));
  std::string keyed;
  {
    const CertificateKey key("ci-secret");
    keyed = to_yaml(shard(0, 1));
    EXPECT_TRUE(contains(keyed, "\nintegrity: hmac-sha256 ")) << keyed;
    EXPECT_NO_THROW(read_certificate(written("keyed.yaml", keyed)));
    EXPECT_TRUE(contains(read_error("plain.yaml", plain),
                         "plain.yaml: sealed without a key (sha256), but MXCONFORM_CERTIFICATE_KEY is set"));
  }
  {
    const CertificateKey key("another-secret");
    EXPECT_TRUE(contains(read_error("other.yaml", keyed), "other.yaml: its integrity line does not match its content under the key"));
  }
  EXPECT_TRUE(contains(read_error("nokey.yaml", keyed),
                       "nokey.yaml: sealed with a key (hmac-sha256): set MXCONFORM_CERTIFICATE_KEY to the key it was written with"));
}

TEST(CertificateSeal, MergeRefusesATamperedShardAndSealsWhatItWrites) {
  const std::string first = to_yaml(shard(0, 2));
  const std::string second = to_yaml(shard(1, 2));
  const Certificate merged = merge({read_certificate(written("s0.yaml", first)), read_certificate(written("s1.yaml", second))});
  EXPECT_NO_THROW(read_certificate(written("merged.yaml", to_yaml(merged))));
  const std::string tampered = written("s1-tampered.yaml", replaced(second, "finished: 2024-05-02T11:00:00Z", "finished: 2024-05-02T12:00:00Z"));
  EXPECT_TRUE(contains(error_of([&] { read_certificate(tampered); }), "s1-tampered.yaml: its integrity line does not match"));
}

TEST(ReadCertificate, EveryOutcomeNameIsKnownAndNoOther) {
  Certificate c = shard(0, 1);
  add_failure(c, Outcome::kNondeterministic, "failed, then passed");
  const Certificate read = read_certificate(written("nondeterministic.yaml", to_yaml(c)));
  EXPECT_EQ(read.failures.at(0).outcome, Outcome::kNondeterministic);
  EXPECT_EQ(read.tallies[0].outcomes.at("nondeterministic"), 1u);
  const std::string yaml = to_yaml(c);
  EXPECT_TRUE(contains(read_error("names.yaml", replaced(yaml, "nondeterministic: 1", "flaky: 1")),
                       "names.yaml: results[0].outcomes: unknown outcome 'flaky'"));
  EXPECT_TRUE(contains(read_error("names.yaml", replaced(yaml, "outcome: nondeterministic", "outcome: flaky")),
                       "names.yaml: failures[0].outcome: unknown outcome 'flaky'"));
}

// The command-subject outcomes (certify/command_backend.h) survive a write and a read, by name.
TEST(ReadCertificate, CommandSubjectOutcomesRoundTrip) {
  for (const auto& [outcome, text] : {std::pair{Outcome::kProtocolError, "protocol-error"},
                                      std::pair{Outcome::kStrayOutput, "stray-output"},
                                      std::pair{Outcome::kWrongSize, "wrong-size"}}) {
    Certificate c = shard(0, 1);
    add_failure(c, outcome, "a command subject misbehaved");
    const Certificate read = read_certificate(written(std::string(text) + ".yaml", to_yaml(c)));
    EXPECT_EQ(read.failures.at(0).outcome, outcome);
    EXPECT_EQ(read.tallies[0].outcomes.at(text), 1u);
    EXPECT_FALSE(read.certified());
  }
}

TEST(ReadCertificate, MalformedFilesAreRefusedNamingTheFile) {
  const std::string yaml = to_yaml(shard(0, 1));
  EXPECT_TRUE(contains(read_error("bad.yaml", "just text\n"), "bad.yaml: not an mxconform certificate"));
  EXPECT_TRUE(contains(read_error("bad.yaml", "[1, 2\n"), "bad.yaml: not a certificate"));
  EXPECT_TRUE(contains(read_error("bad.yaml", replaced(yaml, "mxconform_certificate: 1", "mxconform_certificate: 2")),
                       "bad.yaml: not an mxconform certificate"));
  EXPECT_TRUE(contains(read_error("bad.yaml", yaml + "cases: 5\n"), "bad.yaml: cases: given twice"));
  EXPECT_TRUE(contains(read_error("bad.yaml", replaced(yaml, "pass: 5", "pass: 5\n      pass: 5")),
                       "bad.yaml: results[0].outcomes.pass: given twice"));
  EXPECT_TRUE(contains(read_error("bad.yaml", replaced(yaml, "output: float8_e4m3fn", "output: float8_e4m3fn\n    extra: 1")),
                       "bad.yaml: results[0].extra: unknown key"));
  const std::string without_failures = yaml.substr(0, yaml.find("\nfailures:") + 1);  // failures come last
  EXPECT_TRUE(contains(read_error("bad.yaml", without_failures + "failures: none\n"), "bad.yaml: failures: not a list"));
  EXPECT_TRUE(contains(read_error("bad.yaml", without_failures), "bad.yaml: failures: missing"));
  EXPECT_TRUE(contains(read_error("bad.yaml", without_failures + "failures: []\nextra: [1]\n"), "bad.yaml: extra: not text"));
  const std::string missing = temp_path("no-such-certificate.yaml");
  std::remove(missing.c_str());
  EXPECT_TRUE(contains(error_of([&] { read_certificate(missing); }), missing + ": cannot read"));
}

// ---- merge: the shards 0..N-1 of one run. ----

std::vector<Certificate> read_all(const std::vector<std::pair<std::string, Certificate>>& files) {
  std::vector<Certificate> read;
  for (const auto& [stem, certificate] : files) read.push_back(read_certificate(written(stem, to_yaml(certificate))));
  return read;
}

TEST(Merge, ThreeShardsOfOneRunMerge) {
  Certificate failing = shard(2, 3, 7);
  add_failure(failing, Outcome::kCrash, "signal 11 (SIGSEGV)");
  for (const auto& order : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{2, 0, 1}}) {
    std::vector<std::pair<std::string, Certificate>> files = {
        {"shard0.yaml", shard(0, 3, 5)}, {"shard1.yaml", shard(1, 3, 6)}, {"shard2.yaml", shard(2, 3, 7)}};
    std::vector<std::pair<std::string, Certificate>> given;
    for (std::size_t i : order) given.push_back(files[i]);
    const Certificate merged = merge(read_all(given));
    EXPECT_EQ(merged.cases, 18u);
    EXPECT_EQ(merged.tallies.at(0).outcomes.at("pass"), 18u);
    EXPECT_EQ(merged.tallies.at(1).unsupported, "not declared: output dtype float4_e2m1fn_x4");
    EXPECT_TRUE(merged.certified());
    EXPECT_EQ(merged.header.at("verdict"), "certified");
    EXPECT_EQ(merged.header.at("shard"), "merged 0/3,1/3,2/3");
    EXPECT_EQ(merged.header.at("rerun"),
              "mxconform certify --backend ./libsubject.so --level gate --seed 7 --emax-mode emax --campaign corpus");
    EXPECT_EQ(merged.header.at("started"), "2024-05-01T10:00:00Z");
    EXPECT_EQ(merged.header.at("finished"), "2024-05-03T11:00:00Z");
    EXPECT_EQ(merged.header.at("workers_started"), "6");
    EXPECT_EQ(merged.header.at("cpu_model"), "varies by shard (shard 0: cpu 0)");
    // The merged certificate is itself consistent.
    EXPECT_EQ(read_certificate(written("merged.yaml", to_yaml(merged))).cases, 18u);
  }
  const Certificate merged = merge(read_all({{"shard0.yaml", shard(0, 3, 5)}, {"shard1.yaml", shard(1, 3, 6)}, {"shard2.yaml", failing}}));
  EXPECT_EQ(merged.cases, 19u);
  EXPECT_EQ(merged.tallies.at(0).outcomes.at("crash"), 1u);
  EXPECT_EQ(merged.failures.size(), 1u);
  EXPECT_FALSE(merged.certified());
  EXPECT_EQ(merged.header.at("verdict"), "not certified");
}

TEST(Merge, EveryShardOfTheRunIsNeeded) {
  EXPECT_TRUE(contains(error_of([] { merge(read_all({{"shard0.yaml", shard(0, 2)}})); }),
                       "shard0.yaml: shard 0/2, but no certificate of shard 1/2 was given"));
  EXPECT_TRUE(contains(error_of([] { merge(read_all({{"shard1.yaml", shard(1, 3)}, {"shard2.yaml", shard(2, 3)}})); }),
                       "shard 0/3 was given"));
  EXPECT_TRUE(contains(error_of([] { merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", shard(1, 3)}})); }),
                       temp_path("shard1.yaml") + ": shard 1/3, but " + temp_path("shard0.yaml") +
                           " is 0/2: not shards of one run"));
  EXPECT_TRUE(contains(error_of([] {
                         merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", shard(1, 2)}, {"again.yaml", shard(1, 2)}}));
                       }),
                       temp_path("again.yaml") + ": shard 1/2 again (also " + temp_path("shard1.yaml") + "): each shard once"));
  EXPECT_TRUE(contains(error_of([] { merge({}); }), "merge: no certificates given"));
}

TEST(Merge, AMergedCertificateIsNotMergedAgain) {
  const Certificate merged = merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", shard(1, 2)}}));
  const std::vector<Certificate> again = read_all({{"merged.yaml", merged}, {"shard0.yaml", shard(0, 2)}});
  EXPECT_TRUE(contains(error_of([&] { merge(again); }), "merged.yaml: already a merge (shard: merged 0/2,1/2)"));
}

TEST(Merge, ShardsAgreeOnEverythingThatNamesTheRun) {
  const auto refused = [](const std::string& key, const std::string& value) {
    Certificate other = shard(1, 2);
    other.header[key] = value;
    return error_of([&] { merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", other}})); });
  };
  for (const char* key : {"backend", "backend_sha256", "corpus_sha256", "mxconform_version", "mxconform_commit", "level",
                          "seed", "campaigns", "all_knobs"}) {
    EXPECT_TRUE(contains(refused(key, "other"), temp_path("shard1.yaml") + ": " + key + " is 'other', but " + temp_path("shard0.yaml") + " has '"))
        << key;
  }
  EXPECT_TRUE(contains(refused("rerun", "mxconform certify --backend ./libsubject.so --level gate --seed 7 "
                                        "--emax-mode emax-1 --shard 1/2 --campaign corpus"),
                       "shard1.yaml: rerun (without --shard) is"));
  Certificate other = shard(1, 2);
  other.configurations.push_back("cfg-c");
  EXPECT_TRUE(contains(error_of([&] { merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", other}})); }),
                       temp_path("shard1.yaml") + ": its configurations differ from " + temp_path("shard0.yaml") + "'s"));
  // A campaign skipped in one shard only (honest shards of one run skip the same ones).
  EXPECT_TRUE(contains(refused("campaigns_skipped", "exhaustive: neuron-only"),
                       "shard1.yaml: campaigns_skipped is 'exhaustive: neuron-only', but "));
  other = shard(1, 2);
  other.header.erase("backend_sha256");
  EXPECT_TRUE(contains(error_of([&] { merge(read_all({{"shard0.yaml", shard(0, 2)}, {"shard1.yaml", other}})); }),
                       "shard1.yaml: no backend_sha256 line"));
}

// Long rerun lines that differ far in: the refusal shows where they differ (from the flag of the
// differing value on), not two identical cut-off beginnings.
TEST(Merge, RefusedRerunLinesShowWhereTheyDiffer) {
  const std::string backend = "/very/long/path/" + std::string(200, 'p') + "/libsubject.so";
  const auto with_rerun = [&](std::size_t index, const std::string& block_shape) {
    Certificate c = shard(index, 2);
    c.header["rerun"] = "mxconform certify --backend " + backend + " --level gate --seed 7 --profile microxcaling --block-shape " +
                        block_shape + " --shard " + shard_text(index, 2) + " --campaign corpus";
    return c;
  };
  const std::string message =
      error_of([&] { merge(read_all({{"shard0.yaml", with_rerun(0, "1x32")}, {"shard1.yaml", with_rerun(1, "32x1")}})); });
  EXPECT_TRUE(contains(message, "shard1.yaml: rerun (without --shard) is '...--block-shape 32x1 --campaign corpus', but "))
      << message;
  EXPECT_TRUE(contains(message, "shard0.yaml has '...--block-shape 1x32 --campaign corpus': not shards of one run")) << message;
}

TEST(Merge, EachShardMustBeConsistent) {
  // Read from files, the reader refuses them first; built in memory, merge refuses them itself.
  Certificate wrong_cases = shard(1, 2);
  wrong_cases.cases = 4;
  EXPECT_TRUE(contains(read_error("shard1.yaml", to_yaml(wrong_cases)), "shard1.yaml: cases is 4"));
  EXPECT_TRUE(contains(error_of([&] { merge({shard(0, 2), wrong_cases}); }), "certificate 2: cases is 4"));
  Certificate overflow = shard(1, 2, kMaxCount);
  overflow.tallies[0].outcomes["error"] = 1;
  overflow.cases = 0;
  EXPECT_TRUE(contains(error_of([&] { merge({shard(0, 2), overflow}); }), "certificate 2: the outcome counts in results overflow"));
  Certificate wrong_verdict = shard(1, 2);
  wrong_verdict.header["verdict"] = "not certified";
  EXPECT_TRUE(contains(read_error("shard1.yaml", replaced(to_yaml(wrong_verdict), "verdict: certified", "verdict: not certified")),
                       "shard1.yaml: verdict is 'not certified', but the counts and failures say 'certified'"));
  EXPECT_TRUE(contains(error_of([&] { merge({shard(0, 2), wrong_verdict}); }), "certificate 2: verdict is 'not certified'"));
  // Two shards whose sums overflow only together.
  EXPECT_TRUE(contains(error_of([] { merge({shard(0, 2, kMaxCount), shard(1, 2, 1)}); }), "merge: the cases of the shards overflow"));
}

// ---- The verdict table. ----

TEST(VerdictTable, TextFromOutsideIsShownEscaped) {
  const std::string table = verdict_table(hostile_certificate());
  EXPECT_EQ(control_byte(table, "\n\t"), -1) << table;  // a repro keeps its lines and tabs
  EXPECT_EQ(not_printable_utf8(table), "") << table;
  EXPECT_TRUE(contains(table, "subject 1.0 (bytes \\xFF\\xFE, esc \\x1B[31mred\\x1B[0m, nul \\x00 cdata")) << table;
  EXPECT_TRUE(contains(table, "/opt/bytes \\xFF\\xFE, esc \\x1B[31mred")) << table;
  EXPECT_TRUE(contains(table, "wrong-result in corpus case case-bytes \\xFF\\xFE: bytes \\xFF\\xFE, esc")) << table;
  EXPECT_TRUE(contains(table, "crash in corpus case bytes \\xFF\\xFE, esc \\x1B[31mred")) << table;
  EXPECT_TRUE(contains(table, "  leading blank\n\tcol \\xFF\\x0D\n- x: [\n")) << table;  // the repro, lines kept
  EXPECT_TRUE(contains(table, "NOT CERTIFIED for 1 configuration(s): cfg-a; 1 declared not supported. 7 cases run, 2 failed\n"))
      << table;
}

TEST(VerdictTable, SaysWhatWasCertifiedAndFoldsWhatWasNotSupported) {
  Certificate c = shard(0, 1);
  c.configurations.push_back("input=float16 output=float8_e5m2 emax_mode=emax fp8_nan=zero scale_layout=logical");
  c.tallies[0].configuration = c.configurations.back();
  c.tallies.push_back({"properties", "cfg-b", "float4_e2m1fn_x4", {}, "not declared: output dtype float4_e2m1fn_x4"});
  c.header["verdict"] = c.certified() ? "certified" : "not certified";
  const std::string table = verdict_table(c);
  EXPECT_TRUE(contains(table, "\nCERTIFIED for 1 configuration(s): float16 -> float8_e5m2, emax, zero, logical; "
                              "1 declared not supported. 5 cases run, 0 failed\n"))
      << table;
  EXPECT_TRUE(contains(table, "not supported, as the backend declares: 1 configuration(s): cfg-b\n")) << table;
  EXPECT_FALSE(contains(table, "corpus      cfg-b")) << "unsupported rows fold into one line\n" << table;
}

TEST(VerdictTable, SaysHowManyFailedAndHowManyAreShown) {
  Certificate c = shard(0, 1);
  add_failure(c, Outcome::kWrongResult, "scale byte 0");
  c.tallies[0].outcomes["wrong-result"] += 72;  // 73 failed, one of them kept as a failure record
  c.cases += 72;
  c.header["verdict"] = c.certified() ? "certified" : "not certified";
  const std::string table = verdict_table(c);
  EXPECT_TRUE(contains(table, "78 cases run, 73 failed, 1 shown\n")) << table;
}

}  // namespace
}  // namespace mxconform::certify

namespace mxconform::certify {
namespace {

// ---- Failure groups. ----

// `failed` more wrong results on cfg-a with `signature`, the first `listed` of them listed.
void add_group(Certificate& c, const std::string& signature, std::size_t failed, std::size_t listed) {
  c.tallies[0].outcomes["wrong-result"] += failed;
  c.cases += failed;
  for (std::size_t i = 0; i < listed; ++i) {
    Failure f{"corpus", "case-" + signature + "-" + std::to_string(i), "cfg-a shape=[8, 4]", "cfg-a",
              Outcome::kWrongResult, "data byte 0", "# repro\n", "", "", ""};
    f.signature = signature;
    f.repro_detail = "repro data byte 1";
    c.failures.push_back(f);
  }
  c.failure_groups.push_back({signature, {{"corpus", failed}}, listed});
  c.header["verdict"] = c.certified() ? "certified" : "not certified";
}

TEST(FailureGroups, RoundTripThroughTheCertificate) {
  Certificate c = shard(0, 1);
  add_group(c, "wrong-result: scale byte, nan-block, " + kHostile, 5, 2);
  add_group(c, "wrong-result: data byte, ordinary-block, tie", 1, 1);
  const Certificate read = read_certificate(written("groups.yaml", to_yaml(c)));
  ASSERT_EQ(read.failure_groups.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(read.failure_groups[i].signature, c.failure_groups[i].signature);
    EXPECT_EQ(read.failure_groups[i].failed, c.failure_groups[i].failed);
    EXPECT_EQ(read.failure_groups[i].shown, c.failure_groups[i].shown);
  }
  EXPECT_EQ(read.failures.at(0).signature, c.failures.at(0).signature);
  EXPECT_EQ(read.failures.at(0).repro_detail, "repro data byte 1");
}

TEST(FailureGroups, ReadCertificateRefusesGroupsThatDoNotAddUp) {
  Certificate c = shard(0, 1);
  add_group(c, "sig-a", 5, 2);
  const std::string yaml = to_yaml(c);
  EXPECT_NE(error_of([&] { read_certificate(written("count.yaml", replaced(yaml, "corpus: 5", "corpus: 4"))); })
                .find("every failing case is in one group"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_certificate(written("shown.yaml", replaced(yaml, "shown: 2", "shown: 1"))); })
                .find("shown is 1, but 2 failure(s)"),
            std::string::npos);
}

TEST(FailureGroups, MergeSumsEachSignature) {
  std::vector<Certificate> shards = {shard(0, 2), shard(1, 2)};
  add_group(shards[0], "sig-a", 4, 3);
  add_group(shards[1], "sig-a", 2, 1);
  add_group(shards[1], "sig-b", 1, 1);
  const Certificate merged = merge(shards);
  ASSERT_EQ(merged.failure_groups.size(), 2u);
  EXPECT_EQ(merged.failure_groups[0].signature, "sig-a");
  EXPECT_EQ(merged.failure_groups[0].failed.at("corpus"), 6u);
  EXPECT_EQ(merged.failure_groups[0].shown, 4u);
  EXPECT_EQ(merged.failure_groups[1].failed.at("corpus"), 1u);
  // And the merged certificate is itself consistent.
  EXPECT_NO_THROW(read_certificate(written("merged.yaml", to_yaml(merged))));
}

TEST(FailureGroups, JunitHasOneTestcasePerGroupAndTheTableOneLinePerGroup) {
  Certificate c = shard(0, 1);
  add_group(c, "sig-a", 40, 3);
  add_group(c, "sig-b", 2, 2);
  pugi::xml_document document;
  ASSERT_EQ(document.load_string(to_junit(c).c_str()).status, pugi::status_ok);
  const pugi::xml_node suite = document.child("testsuites").child("testsuite");
  EXPECT_STREQ(suite.attribute("tests").value(), "3");  // cfg-b skipped, then sig-a and sig-b
  EXPECT_STREQ(suite.attribute("failures").value(), "2");
  std::vector<std::string> failing;
  for (const pugi::xml_node testcase : suite.children("testcase")) {
    if (testcase.child("failure")) {
      failing.push_back(testcase.attribute("name").value() + std::string(" / ") +
                        testcase.child("failure").attribute("message").value());
    }
  }
  EXPECT_EQ(failing, (std::vector<std::string>{"sig-a / 40 failed, 3 shown", "sig-b / 2 failed, 2 shown"}));

  const std::string table = verdict_table(c);
  EXPECT_TRUE(contains(table, "\n  40 failed, 3 shown: sig-a\n")) << table;
  EXPECT_TRUE(contains(table, "\n  2 failed: sig-b\n")) << table;
  EXPECT_TRUE(contains(table, "47 cases run, 42 failed, 5 shown\n")) << table;
}

}  // namespace
}  // namespace mxconform::certify
