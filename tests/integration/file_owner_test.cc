// Files as slapd needs them: a database directory owned by `openldap` (as
// Debian's slapd runs) keeps every file dirload creates or replaces in it
// owned by that user, data.mdb readable by its owner alone (0600, as
// slapadd creates it, or the mode it had), and runs as root and as the
// owner follow each other in either order. Runs as root only, with an
// `openldap` user (Debian's slapd package makes it).
#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

struct User {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The `openldap` user, when this process may act for it.
std::optional<User> OpenLdapUser() {
  if (::geteuid() != 0 || testing::FindProgram("runuser").empty()) return std::nullopt;
  const passwd* pw = ::getpwnam("openldap");
  if (pw == nullptr) return std::nullopt;
  return User{pw->pw_uid, pw->pw_gid};
}

// The copy of dirload `openldap` runs: the build tree may lie where that
// user cannot reach (a checkout under /root).
std::string& OwnersDirload() {
  static std::string path;
  return path;
}

// dirload run as `openldap`.
testing::ProcessResult AsOpenLdap(std::vector<std::string> args) {
  std::vector<std::string> argv = {testing::FindProgram("runuser"), "-u", "openldap", "--",
                                   OwnersDirload()};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunProcess(argv, 120);
}

// Every regular file in `dir` belongs to `user`; data.mdb and the
// Berkeley DB tables are 0600.
void CheckFiles(const std::string& dir, const User& user, const std::string& step) {
  CAPTURE(step);
  int seen = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    struct stat st {};
    REQUIRE(::stat(e.path().c_str(), &st) == 0);
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    CHECK(st.st_uid == user.uid);
    CHECK(st.st_gid == user.gid);
    if (name == "data.mdb" || name.ends_with(".bdb")) {
      CHECK((st.st_mode & 07777) == 0600);
      ++seen;
    }
  }
  CHECK(seen > 0);
}

struct Case {
  const char* name;
  std::vector<std::string> format;  // dirload add's format options
};

TEST_CASE("files in a directory owned by openldap stay openldap's, data.mdb 0600, every path") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  const std::optional<User> user = OpenLdapUser();
  if (!user) {
    MESSAGE("skipped: needs root and an openldap user");
    return;
  }
  TempDir t;
  // The owner must reach the files: the temporary directory is root's 0700.
  fs::permissions(t.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  OwnersDirload() = t.File("dirload");
  fs::copy_file(testing::DirloadPath(), OwnersDirload());
  fs::permissions(OwnersDirload(), fs::perms::owner_all | fs::perms::group_read |
                                       fs::perms::group_exec | fs::perms::others_read |
                                       fs::perms::others_exec);
  bench::GeneratorOptions g;
  g.entries = 300;
  g.seed = 3;
  g.suffix = "dc=example,dc=com";
  const std::string base = t.File("base.ldif");
  REQUIRE(bench::GenerateLdifFile(g, base).ok());
  // Entries to append, under an organizational unit of their own.
  auto appended = [&](const std::string& ou) {
    std::string text =
        "dn: ou=" + ou + ",dc=example,dc=com\nobjectClass: organizationalUnit\nou: " + ou + "\n\n";
    for (int i = 0; i < 20; ++i) {
      const std::string uid = ou + std::to_string(i);
      text += "dn: uid=" + uid + ",ou=" + ou + ",dc=example,dc=com\nobjectClass: inetOrgPerson\n" +
              "uid: " + uid + "\ncn: " + uid + "\nsn: " + uid + "\n\n";
    }
    return t.Write(ou + ".ldif", text);
  };
  const std::string more = appended("byroot"), theirs = appended("byowner");
  for (const std::string& f : {base, more, theirs}) {
    fs::permissions(f, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  }
  const std::vector<Case> cases = {
      {"native LMDB", {"--format", "native"}},
      {"native Berkeley DB", {"--format", "native", "--backend", "bdb"}},
      {"slapd's format", {"--format", "mdb"}},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    const std::string dir = t.File(std::string("db-") + std::to_string(&c - cases.data()));
    fs::create_directory(dir);
    REQUIRE(::chown(dir.c_str(), user->uid, user->gid) == 0);
    std::vector<std::string> common = {"--db",    dir,      "--suffix",   "dc=example,dc=com",
                                       "--index", "uid eq", "--progress", "never"};
    auto args = [&](std::vector<std::string> head) {
      head.insert(head.end(), common.begin(), common.end());
      if (head[0] == "add") head.insert(head.end(), c.format.begin(), c.format.end());
      return head;
    };
    // A first load as root.
    RunResult loaded = RunDirload(args({"add", "-l", base}));
    REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
    CheckFiles(dir, *user, "first load as root");
    // A rebuild as the owner, after root's run.
    testing::ProcessResult indexed = AsOpenLdap(args({"index", "--all"}));
    CHECK_MESSAGE(indexed.exit_code == 0, indexed.err);
    CheckFiles(dir, *user, "index as openldap");
    // An append as root keeps data.mdb 0600 and openldap's.
    RunResult appended = RunDirload(args({"add", "-l", more}));
    CHECK_MESSAGE(appended.exit_code == 0, appended.Describe());
    CheckFiles(dir, *user, "append as root");
    // Reading as the owner.
    testing::ProcessResult cat = AsOpenLdap({"cat", "--db", dir, "--suffix", "dc=example,dc=com"});
    CHECK_MESSAGE(cat.exit_code == 0, cat.err);
    testing::ProcessResult stat = AsOpenLdap({"stat", "--db", dir});
    CHECK_MESSAGE(stat.exit_code == 0, stat.err);
    CheckFiles(dir, *user, "cat and stat as openldap");
    // Writing as the owner after root's runs, and searching.
    testing::ProcessResult added = AsOpenLdap(args({"add", "-l", theirs}));
    CHECK_MESSAGE(added.exit_code == 0, added.err);
    testing::ProcessResult found = AsOpenLdap(
        {"search", "--db", dir, "-b", "dc=example,dc=com", "--index", "uid eq", "(uid=byowner3)"});
    CHECK_MESSAGE(found.exit_code == 0, found.err);
    CHECK(found.out.find("dn: uid=byowner3,ou=byowner,dc=example,dc=com") != std::string::npos);
    testing::ProcessResult recovered = AsOpenLdap({"recover", "--db", dir});
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.err);
    CheckFiles(dir, *user, "add, search and recover as openldap");
    // And root again after the owner's runs.
    RunResult reindexed = RunDirload(args({"index", "--all"}));
    CHECK_MESSAGE(reindexed.exit_code == 0, reindexed.Describe());
    CheckFiles(dir, *user, "index as root after openldap");
  }
}

}  // namespace
}  // namespace dirload
