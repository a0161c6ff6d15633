#include "bench/change_generator.h"

#include <charconv>
#include <string>
#include <unordered_map>
#include <utility>

namespace dirload::bench {
namespace {

// Mixed into the seed so that the change stream is not the directory's own.
constexpr uint64_t kChangeStream = 0x6368616e67657331ULL;

std::string_view Parent(std::string_view dn) {
  size_t comma = dn.find(',');
  return comma == std::string_view::npos ? std::string_view() : dn.substr(comma + 1);
}

}  // namespace

Result<ChangeCounts> ParseChangeCounts(std::string_view spec) {
  ChangeCounts counts;
  bool seen[3] = {false, false, false};
  size_t at = 0;
  for (bool more = true; more;) {
    size_t comma = spec.find(',', at);
    std::string_view item = spec.substr(at, comma - at);
    more = comma != std::string_view::npos;
    at = comma + 1;
    size_t eq = item.find('=');
    std::string_view name = item.substr(0, eq);
    int which = name == "modify" ? 0 : name == "modrdn" ? 1 : name == "delete" ? 2 : -1;
    if (which < 0 || eq == std::string_view::npos) {
      return Status::InvalidArgument("changes '" + std::string(spec) + "': '" + std::string(item) +
                                     "' is not modify=N, modrdn=N or delete=N");
    }
    if (seen[which]) {
      return Status::InvalidArgument("changes '" + std::string(spec) + "': " + std::string(name) +
                                     " given twice");
    }
    seen[which] = true;
    std::string_view digits = item.substr(eq + 1);
    uint64_t n = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
      return Status::InvalidArgument("changes '" + std::string(spec) + "': " + std::string(name) +
                                     " count '" + std::string(digits) +
                                     "' is not a decimal number");
    }
    (which == 0 ? counts.modify : which == 1 ? counts.modrdn : counts.del) = n;
  }
  return counts;
}

Result<std::unique_ptr<ChangeGenerator>> ChangeGenerator::Create(const GeneratorOptions& options,
                                                                 const ChangeCounts& counts) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<LdifGenerator> directory,
                           LdifGenerator::Create(options));
  const uint64_t people = directory->people();
  const uint64_t total = counts.total();
  if (total > people) {
    return Status::InvalidArgument(std::to_string(total) + " changes asked for, but " +
                                   std::to_string(options.entries) + " entries hold only " +
                                   std::to_string(people) + " people");
  }

  // The people to change, in output order: the first `total` places of a
  // random permutation of 0..people-1 (Fisher-Yates, with only the places
  // that moved remembered, so memory follows `total`, not `people`).
  Prng rng(options.seed ^ kChangeStream);
  std::unordered_map<uint64_t, uint64_t> moved;
  std::unordered_map<uint64_t, size_t> slot_of_person;
  moved.reserve(total);
  slot_of_person.reserve(total);
  auto at = [&moved](uint64_t i) {
    auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  for (uint64_t j = 0; j < total; ++j) {
    const uint64_t r = j + rng.Below(people - j);
    const uint64_t chosen = at(r);
    moved[r] = at(j);
    slot_of_person[chosen] = j;
  }

  // The kinds, interleaved at random with exactly the counts asked for.
  std::vector<Target> targets(total);
  uint64_t left[3] = {counts.modify, counts.modrdn, counts.del};
  for (Target& t : targets) {
    uint64_t x = rng.Below(left[0] + left[1] + left[2]);
    int k = x < left[0] ? 0 : x < left[0] + left[1] ? 1 : 2;
    --left[k];
    t.kind = k == 0 ? Kind::kModify : k == 1 ? Kind::kModrdn : Kind::kDelete;
  }

  // One pass over the directory for the departments and the chosen people.
  const std::string people_dn = "ou=People," + options.suffix;
  std::vector<std::string> department_dns;
  ldif::Record record;
  uint64_t person = 0;
  uint64_t found = 0;
  while (directory->Next(&record)) {
    std::string_view dn = record.dn();
    if (dn.starts_with("ou=") && Parent(dn) == people_dn) {
      department_dns.emplace_back(dn);
      continue;
    }
    if (!dn.starts_with("uid=")) continue;
    auto slot = slot_of_person.find(person++);
    if (slot == slot_of_person.end()) continue;
    Target& t = targets[slot->second];
    t.dn = dn;
    for (size_t i = 0; i < record.size(); ++i) {
      ldif::AttributeView a = record.attribute(i);
      if (a.description == "uid") {
        t.uid = a.value;
      } else if (a.description == "title") {
        t.title = a.value;
      } else if (a.description == "mail" && t.mail_domain.empty()) {
        t.mail_domain = a.value.substr(a.value.find('@') + 1);
      } else if (a.description == "telephoneNumber") {
        t.last_phone = a.value;
      }
    }
    for (size_t d = 0; d < department_dns.size(); ++d) {
      if (department_dns[d] == Parent(dn)) t.department = d;
    }
    ++found;
  }
  if (found != total || (total > 0 && department_dns.size() < 2)) {
    return Status::Internal("the directory of " + std::to_string(options.entries) +
                            " entries did not give the " + std::to_string(total) +
                            " people chosen to change");
  }
  return std::unique_ptr<ChangeGenerator>(
      new ChangeGenerator(rng, std::move(targets), std::move(department_dns)));
}

ChangeGenerator::ChangeGenerator(Prng rng, std::vector<Target> targets,
                                 std::vector<std::string> department_dns)
    : targets_(std::move(targets)),
      department_dns_(std::move(department_dns)),
      titles_(WorkloadTitles()),
      rng_(rng) {}

bool ChangeGenerator::Next(ldif::Record* record) {
  record->Clear();
  if (emitted_ >= targets_.size()) return false;
  const Target& t = targets_[emitted_++];
  record->SetDn(t.dn);
  switch (t.kind) {
    case Kind::kModify: {
      // Another title: one of the others, uniformly.
      size_t current = titles_.size();
      for (size_t i = 0; i < titles_.size(); ++i) {
        if (titles_[i] == t.title) current = i;
      }
      size_t pick = rng_.Below(titles_.size() - 1);
      if (pick >= current) ++pick;
      record->SetChangetype("modify");
      record->Add("replace", "title");
      record->Add("title", titles_[pick]);
      record->Add("-", "");
      record->Add("add", "mail");
      record->Add("mail", "alias-" + t.uid + "@" + t.mail_domain);
      record->Add("-", "");
      record->Add("delete", "telephoneNumber");
      record->Add("telephoneNumber", t.last_phone);
      record->Add("-", "");
      break;
    }
    case Kind::kModrdn: {
      size_t to = rng_.Below(department_dns_.size() - 1);
      if (to >= t.department) ++to;
      record->SetChangetype("modrdn");
      record->Add("newrdn", "uid=" + t.uid);
      record->Add("deleteoldrdn", "1");
      record->Add("newsuperior", department_dns_[to]);
      break;
    }
    case Kind::kDelete:
      record->SetChangetype("delete");
      break;
  }
  return true;
}

Status ChangeGenerator::Generate(ldif::ByteSink* sink) {
  ldif::Writer writer(sink, ldif::WriterOptions{76});
  ldif::Record record;
  while (Next(&record)) DIRLOAD_RETURN_IF_ERROR(writer.Write(record));
  return writer.Flush();
}

Status GenerateChangeFile(const GeneratorOptions& options, const ChangeCounts& counts,
                          const std::string& path, bool gzip) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ChangeGenerator> generator,
                           ChangeGenerator::Create(options, counts));
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink, ldif::OpenByteSink(path, gzip));
  Status written = generator->Generate(sink.get());
  Status closed = sink->Close();
  DIRLOAD_RETURN_IF_ERROR(written);
  return closed;
}

}  // namespace dirload::bench
