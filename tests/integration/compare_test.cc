// dirload compare and dirload stat --digest: two replicas loaded apart with
// the same identity options are equal and digest equal; an entry missing on
// one side, a value changed and an entryCSN changed are each found and
// named; the change records compare writes, applied to A with `dirload
// modify --relax`, make A equal to B (compare and the digests agree); the
// content digest is the same across formats and for slapadd's twin of a
// database; and two replicas one of which slapd's syncrepl keeps in sync
// compare and digest equal after a change on the provider.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

const std::vector<std::string> kIndexes = {"objectClass eq", "entryCSN,entryUUID eq", "uid eq",
                                           "cn,sn,mail eq,sub", "telephoneNumber eq"};

std::string Conf(const TempDir& tmp, const std::string& name,
                 const std::vector<std::string>& modules = {},
                 const std::vector<std::string>& extra = {}) {
  const std::string dir = tmp.File(name);
  fs::create_directories(dir);
  testing::SlapdConf conf;
  conf.LoadBackMdb().Include(testing::kExampleSchemas);
  for (const std::string& m : modules) conf.ModuleLoad(m);
  return conf.Line("sizelimit unlimited")
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Line("rootpw secret")
      .Directory(dir)
      .MaxSize(uint64_t{1} << 30)
      .Indexes(kIndexes)
      .Lines(extra)
      .Write(tmp, name + ".conf");
}

std::string Generate(const TempDir& tmp, uint64_t entries) {
  bench::GeneratorOptions options;
  options.entries = entries;
  options.seed = 11;
  const std::string path = tmp.File("in.ldif");
  Status s = bench::GenerateLdifFile(options, path, false);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return path;
}

// A replica loaded on its own, with the identity options.
void LoadReplica(const std::string& conf, const std::string& ldif) {
  RunResult r = RunDirload({"add", "-f", conf, "-l", ldif, "-S", "1", "-w", "-o", "uuid=dn", "-o",
                            "csn-time=20260101000000Z"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
}

// `dirload stat --digest`'s line NAME ("digest", "content", "indexes").
std::string DigestLine(const std::vector<std::string>& selection, const std::string& name) {
  std::vector<std::string> args = {"stat", "--digest"};
  args.insert(args.end(), selection.begin(), selection.end());
  RunResult r = RunDirload(args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string key = name + ": ";
  size_t at = r.out.find(key);
  REQUIRE_MESSAGE(at != std::string::npos, r.out);
  at += key.size();
  return r.out.substr(at, r.out.find('\n', at) - at);
}

RunResult Compare(const std::string& a_conf, const std::string& b_conf,
                  std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"compare", "-f", a_conf, "--with-config", b_conf};
  args.insert(args.end(), more.begin(), more.end());
  return RunDirload(args);
}

RunResult Modify(const std::string& conf, const std::string& ldif,
                 std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"modify", "-f", conf, "-l", ldif};
  args.insert(args.end(), more.begin(), more.end());
  return RunDirload(args);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("compare and stat --digest find injected differences; compare's changes repair them") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const std::string ldif = Generate(tmp, 300);
  const std::string a = Conf(tmp, "a");
  const std::string b = Conf(tmp, "b");
  LoadReplica(a, ldif);
  LoadReplica(b, ldif);

  // Loaded apart, the same: equal, every digest equal.
  RunResult same = Compare(a, b);
  CHECK_MESSAGE(same.exit_code == 0, same.Describe());
  CHECK(Has(same.out, "entries: A 300, B 300"));
  CHECK(Has(same.out, "equal 300"));
  const std::string digest_a = DigestLine({"-f", a}, "digest");
  CHECK(digest_a.size() == 40);
  CHECK(DigestLine({"-f", b}, "digest") == digest_a);
  CHECK(DigestLine({"-f", a}, "contextCSN") == "20260101000000.000000Z#00012b#001#000000");

  // B loses an entry, gains one, has a value changed (a modify, which
  // makes a new entryCSN too) and an entryCSN alone changed.
  RunResult listed = RunDirload({"search", "-f", a, "-b", testing::kExampleSuffix, "-s", "sub",
                                 "(telephoneNumber=*)", "--dn"});
  REQUIRE_MESSAGE(listed.exit_code == 0, listed.Describe());
  std::vector<std::string> dns;
  for (size_t at = 0, end; at < listed.out.size(); at = end + 1) {
    end = listed.out.find('\n', at);
    if (end == std::string::npos) end = listed.out.size();
    if (end > at) dns.push_back(listed.out.substr(at, end - at));
  }
  REQUIRE(dns.size() >= 3);
  const std::string gone = dns[0], changed = dns[1], csn_only = dns[2];
  const std::string new_csn = "20270101000000.000000Z#000000#002#000000";
  const std::string edits = tmp.Write(
      "edits.ldif", "dn: " + gone + "\nchangetype: delete\n\n" + "dn: " + changed +
                        "\nchangetype: modify\nreplace: telephoneNumber\ntelephoneNumber: +1 555 "
                        "0100\n-\n\n" +
                        "dn: ou=Added,dc=example,dc=com\nchangetype: add\nobjectClass: "
                        "organizationalUnit\nou: Added\n\n");
  RunResult edited = Modify(b, edits);
  REQUIRE_MESSAGE(edited.exit_code == 0, edited.Describe());
  const std::string csn_edit = tmp.Write(
      "csn.ldif", "dn: " + csn_only +
                      "\nchangetype: modify\nreplace: entryCSN\nentryCSN: " + new_csn + "\n-\n\n");
  RunResult refused = Modify(b, csn_edit);
  CHECK_MESSAGE(refused.exit_code == 1, refused.Describe());  // not without --relax
  RunResult relaxed = Modify(b, csn_edit, {"--relax"});
  REQUIRE_MESSAGE(relaxed.exit_code == 0, relaxed.Describe());

  CHECK(DigestLine({"-f", b}, "content") != DigestLine({"-f", a}, "content"));
  CHECK(DigestLine({"-f", b}, "digest") != digest_a);
  const std::string changes = tmp.File("changes.ldif");
  RunResult diff = Compare(a, b, {"--changes", changes});
  CHECK_MESSAGE(diff.exit_code == 1, diff.Describe());
  const std::string& out = diff.out;
  CHECK_MESSAGE(Has(out, "only in A: 1\n  " + gone + " (entryCSN 20260101000000.000000Z#"), out);
  CHECK_MESSAGE(Has(out, "only in B: 1\n  ou=Added,dc=example,dc=com (entryCSN "), out);
  CHECK_MESSAGE(Has(out, "differing: 2\n"), out);
  CHECK_MESSAGE(Has(out, "  " + csn_only + " (entryCSN A 20260101000000.000000Z#"), out);
  CHECK_MESSAGE(Has(out, ", B " + new_csn + ")\n    entryCSN:\n"), out);
  CHECK_MESSAGE(Has(out, "      B: +1 555 0100\n"), out);
  CHECK_MESSAGE(Has(out, "    modifyTimestamp:\n"), out);
  CHECK(Has(out, "different\n"));
  const std::string change_text = testing::ReadFile(changes);
  CHECK_MESSAGE(Has(change_text, "dn: " + gone + "\nchangetype: delete\n"), change_text);
  CHECK_MESSAGE(Has(change_text, "replace: entryCSN\nentryCSN: " + new_csn + "\n-\n"), change_text);
  CHECK_MESSAGE(Has(change_text, "changetype: add\nobjectClass: organizationalUnit\n"),
                change_text);

  // B against its own export as LDIF: equal; A against it: the same
  // differences.
  const std::string b_ldif = tmp.File("b.ldif");
  RunResult cat = RunDirload({"cat", "-f", b, "-l", b_ldif});
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  RunResult b_self = RunDirload({"compare", "-f", b, "--with-ldif", b_ldif});
  CHECK_MESSAGE(b_self.exit_code == 0, b_self.Describe());
  RunResult a_ldif = RunDirload({"compare", "-f", a, "--with-ldif", b_ldif});
  CHECK(a_ldif.exit_code == 1);
  CHECK(Has(a_ldif.out, "only in A: 1\n"));
  CHECK(Has(a_ldif.out, "differing: 2\n"));
  // The generator's input has no operational attributes: compared on user
  // attributes only, A equals it.
  RunResult a_input = RunDirload({"compare", "-f", a, "--with-ldif", ldif, "--user-attributes"});
  CHECK_MESSAGE(a_input.exit_code == 0, a_input.Describe());
  // --ignore leaves entryCSN and modifyTimestamp out: one entry fewer differs.
  RunResult ignoring = Compare(a, b, {"--ignore", "entryCSN,modifyTimestamp"});
  CHECK(Has(ignoring.out, "differing: 1\n"));

  // The change records make A what B is.
  RunResult applied = Modify(a, changes, {"--relax"});
  REQUIRE_MESSAGE(applied.exit_code == 0, applied.Describe());
  RunResult after = Compare(a, b);
  CHECK_MESSAGE(after.exit_code == 0, after.Describe());
  CHECK(DigestLine({"-f", a}, "content") == DigestLine({"-f", b}, "content"));
  CHECK(DigestLine({"-f", a}, "indexes") == DigestLine({"-f", b}, "indexes"));
  CHECK(DigestLine({"-f", a}, "digest") == DigestLine({"-f", b}, "digest"));
}

TEST_CASE("stat --digest: the content digest holds across formats and for slapadd's twin") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const std::string ldif = Generate(tmp, 200);
  const std::string a = Conf(tmp, "a");
  LoadReplica(a, ldif);
  // The export with every operational attribute, loaded by slapadd and by
  // dirload's native format.
  const std::string full = tmp.File("full.ldif");
  RunResult cat = RunDirload({"cat", "-f", a, "-l", full});
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  const std::string twin = Conf(tmp, "twin");
  RunResult slapadd = testing::RunSlapadd({"-f", twin, "-q", "-l", full, "-w"}, 120);
  REQUIRE_MESSAGE(slapadd.exit_code == 0, slapadd.Describe());
  RunResult native =
      RunDirload({"add", "-f", a, "--db", tmp.File("native"), "--format", "native", "-l", full});
  REQUIRE_MESSAGE(native.exit_code == 0, native.Describe());

  const std::string content = DigestLine({"-f", a}, "content");
  CHECK(DigestLine({"-f", twin}, "content") == content);
  CHECK(DigestLine({"-f", twin}, "digest") == DigestLine({"-f", a}, "digest"));
  const std::vector<std::string> native_db = {"--db", tmp.File("native")};
  CHECK(DigestLine(native_db, "content") == content);
  // The index tables are the format's own.
  CHECK(DigestLine(native_db, "indexes") != DigestLine({"-f", a}, "indexes"));
  RunResult across = RunDirload({"compare", "-f", a, "--with-db", tmp.File("native")});
  CHECK_MESSAGE(across.exit_code == 0, across.Describe());
  RunResult with_twin = Compare(a, twin);
  CHECK_MESSAGE(with_twin.exit_code == 0, with_twin.Describe());

  // Usage: B named twice, or not at all.
  CHECK(RunDirload({"compare", "-f", a}).exit_code == 2);
  CHECK(RunDirload({"compare", "-f", a, "--with-config", twin, "--with-ldif", full}).exit_code ==
        2);
  CHECK(RunDirload({"compare", "-f", a, "--with-ldif", full, "--ignore", "noSuchType"}).exit_code ==
        2);
}

TEST_CASE("replicas loaded apart, one kept by syncrepl, compare and digest equal") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapadd", "ldapmodify");
  if (!fs::exists("/usr/lib/ldap/syncprov.la")) {
    MESSAGE("slapd's syncprov module is not installed: skipping");
    return;
  }
  TempDir tmp;
  const std::string ldif = Generate(tmp, 500);
  const std::string provider_conf = Conf(tmp, "provider", {"syncprov"}, {"overlay syncprov"});
  LoadReplica(provider_conf, ldif);
  std::string consumer_conf;
  {
    testing::Slapd provider(tmp, "provider", provider_conf);
    consumer_conf =
        Conf(tmp, "consumer", {},
             {"syncrepl rid=001 provider=" + provider.url() + " bindmethod=simple binddn=\"" +
              testing::kExampleRootDn + "\" credentials=secret searchbase=\"" +
              testing::kExampleSuffix + "\" type=refreshAndPersist retry=\"1 +\""});
    LoadReplica(consumer_conf, ldif);
    testing::Slapd consumer(tmp, "consumer", consumer_conf);
    const std::string change =
        tmp.Write("change.ldif",
                  "dn: ou=Later,dc=example,dc=com\nchangetype: add\nobjectClass: "
                  "organizationalUnit\nou: Later\n\n");
    testing::ProcessResult added = testing::RunLdapClient("ldapmodify", provider.url(), change);
    REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
    // Converged when the consumer's contextCSN is the provider's.
    auto context_csn = [](const testing::Slapd& s) {
      testing::Slapd::Answer a =
          s.Search(testing::kExampleSuffix, "base", "(objectClass=*)", {"contextCSN"});
      return a.entries.empty() ? std::string() : a.entries[0];
    };
    bool converged = false;
    for (int i = 0; i < 150 && !converged; ++i) {
      converged = context_csn(consumer) == context_csn(provider) &&
                  consumer.Search(testing::kExampleSuffix, "sub", "(ou=Later)").entries.size() == 1;
      if (!converged) testing::SleepSeconds(0.2);
    }
    REQUIRE_MESSAGE(converged, testing::ReadFile(consumer.log()));
  }  // both slapd stopped
  RunResult same = Compare(consumer_conf, provider_conf);
  CHECK_MESSAGE(same.exit_code == 0, same.Describe());
  CHECK(Has(same.out, "entries: A 501, B 501"));
  CHECK(DigestLine({"-f", consumer_conf}, "content") ==
        DigestLine({"-f", provider_conf}, "content"));
  CHECK(DigestLine({"-f", consumer_conf}, "digest") == DigestLine({"-f", provider_conf}, "digest"));
}

}  // namespace
}  // namespace dirload
