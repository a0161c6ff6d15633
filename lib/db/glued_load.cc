#include "lib/db/glued_load.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "lib/config/glue.h"
#include "lib/load/entry_checker.h"

namespace dirload {
namespace {

Status UsageError(const std::string& message) {
  return Status::InvalidArgument(message).WithOrigin(ErrorOrigin::kUsage);
}

// Standard input copied to a file that has no name (unlinked at once), so
// that every pass can read it and nothing is left behind, however the run
// ends.
Result<UniqueFd> SpoolStandardInput() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/dirload-stdin-XXXXXX";
  UniqueFd fd(::mkstemp(pattern.data()));
  if (!fd.valid()) {
    return Status::IoError(pattern +
                           ": cannot create a copy of standard input: " + std::strerror(errno));
  }
  ::unlink(pattern.c_str());
  std::string buf(size_t{1} << 20, '\0');
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status::IoError(std::string("<stdin>: read: ") + std::strerror(errno))
          .WithOrigin(ErrorOrigin::kInput);
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(fd.get(), buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        return Status::IoError(pattern +
                               ": writing the copy of standard input: " + std::strerror(errno))
            .WithOrigin(ErrorOrigin::kStorage);
      }
      done += w;
    }
  }
  return fd;
}

void AddUp(const LoadSummary& part, LoadSummary* total) {
  total->records_read += part.records_read;
  total->entries_loaded += part.entries_loaded;
  total->rejected += part.rejected;
  total->skipped = part.skipped;  // the same -j in every pass
  total->input_bytes = std::max(total->input_bytes, part.input_bytes);
  if (total->first_error.empty()) total->first_error = part.first_error;
  total->repeated_value_entries += part.repeated_value_entries;
  for (const std::string& r : part.repeated_values) {
    if (total->repeated_values.size() < LoadSummary::kNamedRepeats) {
      total->repeated_values.push_back(r);
    }
  }
  total->warnings.insert(total->warnings.end(), part.warnings.begin(), part.warnings.end());
  total->replaced_csns += part.replaced_csns;
}

}  // namespace

Result<std::unique_ptr<GluedLoad>> GluedLoad::Begin(const OpenOptions& open,
                                                    const LoadJobOptions& job, bool use_glue) {
  std::unique_ptr<GluedLoad> load(new GluedLoad());
  load->job_ = job;
  const DatabaseOptions& d = open.database;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<SlapdConfig> config, ReadConfiguration(d));
  std::optional<LoadRouting> plan;
  if (config && !(d.database_number && d.suffix)) {
    const std::optional<std::string>& dn = d.suffix ? d.suffix : d.select_dn;
    DIRLOAD_ASSIGN_OR_RETURN(LoadRouting p,
                             PlanLoadRouting(*config, d.database_number, dn, use_glue));
    if (p.databases.size() > 1 || !p.unloadable.empty() || p.nested) plan = std::move(p);
  }
  if (!plan) {
    // One database, whose suffix alone decides what it takes.
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(open));
    load->members_.push_back({std::move(db), nullptr, {}});
    return load;
  }
  if (plan->databases.size() > 1) {
    if (open.online) {
      return UsageError(
          "--online loads one database: the selected one has glued subordinates (give -g "
          "or -n to load one of them alone)");
    }
    if (!d.db_dir.empty() || !d.index_lines.empty()) {
      return UsageError(
          "--db and --index describe one database: the selected one has glued subordinates "
          "(give -g or -n to load one of them alone)");
    }
    if (job.ldif == "-") {
      DIRLOAD_ASSIGN_OR_RETURN(load->spooled_input_, SpoolStandardInput());
      load->job_.ldif = "/proc/self/fd/" + std::to_string(load->spooled_input_.get());
      load->job_.ldif_name = "<stdin>";
    }
  }
  // The subordinates first, the selected database last (see the header).
  std::vector<int> order(plan->databases.begin() + 1, plan->databases.end());
  order.push_back(plan->selected);
  for (int number : order) {
    OpenOptions o = open;
    o.database.database_number = number;
    o.database.suffix.reset();
    o.database.select_dn.reset();
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(o));
    load->members_.push_back({std::move(db), nullptr, {}});
  }
  std::vector<RecordRouter::Owner> holders, glued;
  for (const SuffixOwner& h : plan->holders) holders.push_back({h.database, h.suffix});
  for (const SuffixOwner& g : plan->glued) glued.push_back({g.database, g.suffix});
  // Each pass's router is made when the pass begins (Run).
  load->routing_holders_ = std::move(holders);
  load->routing_glued_ = std::move(glued);
  load->selected_ = plan->selected;
  load->routing_unloadable_ = plan->unloadable;
  return load;
}

GluedLoad::~GluedLoad() {
  // The reverse of the passes. A pass that succeeded says nothing of its
  // own when rolled back: it is said here.
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    const bool undone = it->ran && !it->committed;
    it->job.reset();
    if (undone && job_.notice) {
      job_.notice("nothing was changed in " + it->db->dir() + " either (database " +
                  std::to_string(it->db->config().database_number) +
                  ", loaded but not committed: the load stopped in another database)");
    }
  }
}

std::vector<const ResolvedDatabase*> GluedLoad::databases() const {
  std::vector<const ResolvedDatabase*> out;
  out.push_back(&members_.back().db->config());
  for (size_t i = 0; i + 1 < members_.size(); ++i) out.push_back(&members_[i].db->config());
  return out;
}

Result<LoadSummary> GluedLoad::Run() {
  LoadSummary total;
  std::vector<std::string> other_csns;
  const bool routed = selected_.has_value();
  for (size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];
    LoadJobOptions o = job_;
    if (routed) {
      const int number = m.db->config().database_number;
      // slapadd makes every entry's operational values as the selected
      // database says: its lastmod, its rootdn in creatorsName.
      const ResolvedDatabase& selected = members_.back().db->config();
      o.lastmod = selected.lastmod;
      if (o.load.rootdn.empty()) o.load.rootdn = selected.rootdn;
      o.load.router.emplace(routing_holders_, *selected_, routing_glued_, number,
                            routing_unloadable_);
      if (number == *selected_) {
        o.load.other_csns = other_csns;
      } else if (o.load.write_context_csn || !o.load.remove_sids.empty()) {
        // Only the greatest CSNs are wanted from this pass: the selected
        // database's suffix entry holds the tree's contextCSN.
        o.load.write_context_csn = true;
      }
      if (members_.size() > 1 && o.notice && o.verbose) {
        const ResolvedDatabase& c = m.db->config();
        o.notice("loading database " + std::to_string(number) + " ('" + c.suffix + "', " + c.dir +
                 "), " + std::to_string(i + 1) + " of " + std::to_string(members_.size()));
      }
    }
    DIRLOAD_ASSIGN_OR_RETURN(m.job, m.db->BeginLoad(o));
    DIRLOAD_ASSIGN_OR_RETURN(m.summary, m.job->Run());
    m.ran = true;
    other_csns.insert(other_csns.end(), m.summary.greatest_csns.begin(),
                      m.summary.greatest_csns.end());
    AddUp(m.summary, &total);
  }
  return total;
}

Status GluedLoad::Commit() {
  std::string committed;
  for (Member& m : members_) {
    Status s = m.job->Commit();
    m.committed = true;  // committed or left to `dirload recover`: no rollback
    if (!s.ok()) {
      return committed.empty()
                 ? s
                 : s.WithPrefix("after committing " + committed + " (kept as loaded): ");
    }
    committed += (committed.empty() ? "database " : ", database ") +
                 std::to_string(m.db->config().database_number);
  }
  return Status::Ok();
}

const RunStats& GluedLoad::stats() const { return members_.back().job->stats(); }

}  // namespace dirload
