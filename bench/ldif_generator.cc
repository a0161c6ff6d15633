#include "bench/ldif_generator.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "ldif/base64.h"
#include "lib/util/ascii.h"

namespace dirload::bench {
namespace {

// A name as displayed (possibly UTF-8) and its ASCII transliteration, which
// feeds the IA5 attributes (mail, gecos, homeDirectory) and uid.
struct Name {
  std::string_view display;
  std::string_view ascii;
};

constexpr std::string_view kGivenNames[] = {
    "Aaron",   "Abigail",  "Adam",    "Adrian",  "Aisha",     "Alan",     "Albert",    "Alice",
    "Amanda",  "Amir",     "Andrea",  "Andrew",  "Angela",    "Anna",     "Anthony",   "Arjun",
    "Barbara", "Benjamin", "Beth",    "Brian",   "Carlos",    "Carol",    "Catherine", "Charles",
    "Chen",    "Chris",    "Claire",  "Daniel",  "David",     "Deborah",  "Dennis",    "Diana",
    "Dmitri",  "Donna",    "Edward",  "Elena",   "Elizabeth", "Emily",    "Emma",      "Eric",
    "Fatima",  "Frank",    "Gabriel", "George",  "Grace",     "Hannah",   "Harold",    "Hassan",
    "Helen",   "Henry",    "Ian",     "Irene",   "Isaac",     "Jack",     "James",     "Jane",
    "Jason",   "Jennifer", "Jessica", "John",    "Jonathan",  "Joseph",   "Joyce",     "Julia",
    "Karen",   "Kenji",    "Kevin",   "Laura",   "Linda",     "Lisa",     "Lucas",     "Margaret",
    "Maria",   "Mark",     "Martha",  "Matthew", "Mei",       "Michael",  "Michelle",  "Mohammed",
    "Nancy",   "Nathan",   "Nicole",  "Olga",    "Oliver",    "Patricia", "Paul",      "Peter",
    "Priya",   "Rachel",   "Raj",     "Rebecca", "Richard",   "Robert",   "Ruth",      "Samuel",
    "Sandra",  "Sarah",    "Scott",   "Sharon",  "Sophia",    "Stephen",  "Steven",    "Susan",
    "Thomas",  "Timothy",  "Victor",  "Walter",  "William",   "Yuki",     "Zachary",   "Zara",
};

constexpr std::string_view kSurnames[] = {
    "Adams",   "Ahmed",    "Allen",     "Anderson", "Bailey", "Baker",      "Barnes",
    "Bell",    "Bennett",  "Brooks",    "Brown",    "Butler", "Campbell",   "Carter",
    "Chen",    "Clark",    "Collins",   "Cook",     "Cooper", "Cox",        "Davis",
    "Diaz",    "Edwards",  "Evans",     "Fischer",  "Fisher", "Flores",     "Foster",
    "Garcia",  "Gomez",    "Gonzalez",  "Gray",     "Green",  "Gupta",      "Hall",
    "Harris",  "Hayes",    "Hernandez", "Hill",     "Howard", "Hughes",     "Jackson",
    "James",   "Jenkins",  "Johnson",   "Jones",    "Kelly",  "Khan",       "Kim",
    "King",    "Kowalski", "Kumar",     "Lee",      "Lewis",  "Long",       "Lopez",
    "Martin",  "Martinez", "Miller",    "Mitchell", "Moore",  "Morgan",     "Morris",
    "Murphy",  "Murray",   "Nakamura",  "Nelson",   "Nguyen", "O'Brien",    "Ortiz",
    "Park",    "Parker",   "Patel",     "Perez",    "Perry",  "Peterson",   "Phillips",
    "Powell",  "Price",    "Ramirez",   "Reed",     "Reyes",  "Richardson", "Rivera",
    "Roberts", "Robinson", "Rodriguez", "Rogers",   "Ross",   "Russell",    "Sanchez",
    "Sanders", "Schmidt",  "Scott",     "Sharma",   "Silva",  "Singh",      "Smith",
    "Stewart", "Sullivan", "Suzuki",    "Taylor",   "Thomas", "Thompson",   "Torres",
    "Turner",  "Walker",   "Ward",      "Watson",   "White",  "Williams",   "Wilson",
    "Wood",    "Wright",   "Yamamoto",  "Young",    "Zhang",
};

// Surnames are also built from syllables, so the sn and cn indexes see many
// distinct values, as a real directory's do.
constexpr std::string_view kSurnameHeads[] = {
    "Ash", "Bal",  "Bran", "Cal",  "Dun", "Ell", "Fair", "Gal", "Hal",  "Hol",
    "Kel", "Lang", "Mar",  "Nor",  "Old", "Pen", "Quin", "Rad", "Stan", "Thorn",
    "Vel", "Wes",  "Whit", "Brad", "Car", "Dal", "Fen",  "Gil", "Har",  "Lin",
};
constexpr std::string_view kSurnameMiddles[] = {"", "", "", "a", "e", "in", "er", "o", "ing", "en"};
constexpr std::string_view kSurnameTails[] = {
    "berg", "bourne",  "brook", "by",  "croft", "dale", "field", "ford", "gate",  "ham",
    "holm", "hurst",   "ley",   "low", "man",   "more", "ridge", "sen",  "son",   "stead",
    "ston", "thwaite", "ton",   "vik", "wall",  "well", "wick",  "wood", "worth", "stein",
};

constexpr Name kUtf8GivenNames[] = {
    {"José", "Jose"},
    {"Øyvind", "Oyvind"},
    {"Zoë", "Zoe"},
    {"Björn", "Bjorn"},
    {"François", "Francois"},
    {"Søren", "Soren"},
    {"Jürgen", "Juergen"},
    {"Inés", "Ines"},
    {"Łukasz", "Lukasz"},
    {"Renée", "Renee"},
    {"Chloé", "Chloe"},
    {"André", "Andre"},
    {"伟", "Wei"},
    {"明", "Ming"},
    {"さくら", "Sakura"},
    {"Илья", "Ilya"},
    {"Αλέξανδρος", "Alexandros"},
    {"Mårten", "Marten"},
    {"Ángel", "Angel"},
    {"Dagný", "Dagny"},
};

constexpr Name kUtf8Surnames[] = {
    {"Müller", "Mueller"},
    {"Ångström", "Angstrom"},
    {"王", "Wang"},
    {"李", "Li"},
    {"García", "Garcia"},
    {"Núñez", "Nunez"},
    {"Østergaard", "Ostergaard"},
    {"Schäfer", "Schaefer"},
    {"Dvořák", "Dvorak"},
    {"Łukasiewicz", "Lukasiewicz"},
    {"Fernández", "Fernandez"},
    {"Gößmann", "Goessmann"},
    {"Şahin", "Sahin"},
    {"Nguyễn", "Nguyen"},
    {"Иванов", "Ivanov"},
    {"Παπαδόπουλος", "Papadopoulos"},
    {"田中", "Tanaka"},
    {"Lefèvre", "Lefevre"},
    {"Jönsson", "Jonsson"},
    {"Kovačević", "Kovacevic"},
};

struct Department {
  std::string_view name;
  std::string_view slug;  // used in mail domains and group names
  unsigned weight;        // relative head count
};

constexpr Department kDepartments[] = {
    {"Engineering", "eng", 22}, {"Sales", "sales", 14},       {"Marketing", "mktg", 8},
    {"Finance", "fin", 6},      {"Human Resources", "hr", 4}, {"Legal", "legal", 3},
    {"Operations", "ops", 10},  {"Support", "support", 12},   {"Research", "research", 8},
    {"Facilities", "fac", 3},   {"Purchasing", "purch", 3},   {"Information Technology", "it", 7},
};
constexpr size_t kDepartmentCount = std::size(kDepartments);

struct City {
  std::string_view name;
  std::string_view state;
  unsigned weight;
};

constexpr City kCities[] = {
    {"Springfield", "IL", 8},    {"Portland", "OR", 8},     {"Austin", "TX", 8},
    {"Denver", "CO", 7},         {"Boston", "MA", 8},       {"Seattle", "WA", 8},
    {"Chicago", "IL", 8},        {"Atlanta", "GA", 6},      {"Phoenix", "AZ", 5},
    {"Raleigh", "NC", 5},        {"Madison", "WI", 4},      {"San Diego", "CA", 6},
    {"London", "England", 6},    {"Dublin", "Leinster", 4}, {"Berlin", "Berlin", 4},
    {"Toronto", "ON", 5},        {"Sydney", "NSW", 4},      {"Singapore", "Central", 3},
    {"Zürich", "ZH", 1},         {"Malmö", "Skåne", 1},     {"São Paulo", "SP", 1},
    {"Kraków", "Małopolska", 1}, {"Montréal", "QC", 1},
};

constexpr std::string_view kStreetNames[] = {
    "Main",   "Oak",    "Maple",    "Cedar",  "Elm",      "Pine",    "Washington", "Lake",
    "Hill",   "Park",   "Sunset",   "River",  "Church",   "Mill",    "Highland",   "Meadow",
    "Forest", "Spring", "Railroad", "Market", "Chestnut", "Lincoln", "Jackson",    "Franklin",
};
constexpr std::string_view kStreetTypes[] = {"Street", "Avenue", "Road",      "Lane",
                                             "Drive",  "Way",    "Boulevard", "Court"};

struct Title {
  std::string_view name;
  unsigned weight;
  bool manager;  // may appear as another person's manager
};

constexpr Title kTitles[] = {
    {"Engineer", 14, false},
    {"Senior Engineer", 10, false},
    {"Staff Engineer", 4, false},
    {"Analyst", 8, false},
    {"Senior Analyst", 4, false},
    {"Account Executive", 6, false},
    {"Sales Representative", 6, false},
    {"Support Specialist", 8, false},
    {"Technician", 5, false},
    {"Administrator", 4, false},
    {"Coordinator", 4, false},
    {"Consultant", 3, false},
    {"Designer", 3, false},
    {"Accountant", 3, false},
    {"Researcher", 3, false},
    {"Associate", 3, false},
    {"Team Lead", 5, true},
    {"Manager", 4, true},
    {"Senior Manager", 2, true},
    {"Director", 1, true},
};

constexpr std::string_view kEmployeeTypes[] = {"Employee", "Employee", "Employee",   "Employee",
                                               "Employee", "Employee", "Contractor", "Contractor",
                                               "Intern",   "Temporary"};
constexpr std::string_view kLanguages[] = {"en", "en-US", "en-GB", "de", "fr",
                                           "es", "ja",    "zh",    "sv", "pt-BR"};
constexpr std::string_view kShells[] = {"/bin/bash", "/bin/bash", "/bin/bash", "/bin/bash",
                                        "/bin/zsh",  "/bin/zsh",  "/bin/sh",   "/usr/bin/fish"};
constexpr std::string_view kGroupTopics[] = {
    "apollo", "atlas",   "builds",  "compliance", "dashboards", "delivery", "hiring",
    "infra",  "mercury", "mobile",  "oncall",     "planning",   "platform", "release",
    "review", "search",  "storage", "training",   "travel",     "web",
};

constexpr std::string_view kWords[] = {
    "account",     "across",        "analysis",   "and",        "application", "architecture",
    "assists",     "audit",         "backlog",    "budget",     "build",       "business",
    "capacity",    "change",        "client",     "cloud",      "coordinates", "contracts",
    "customer",    "data",          "delivery",   "deployment", "design",      "develops",
    "directory",   "documentation", "drives",     "enterprise", "escalations", "evaluates",
    "for",         "forecasts",     "global",     "handles",    "improves",    "incident",
    "integration", "internal",      "inventory",  "leads",      "maintains",   "manages",
    "metrics",     "migration",     "monitoring", "network",    "new",         "of",
    "onboarding",  "operations",    "owns",       "partner",    "payroll",     "performance",
    "pipeline",    "planning",      "platform",   "policy",     "pricing",     "process",
    "procurement", "product",       "program",    "quality",    "quarterly",   "regional",
    "release",     "reliability",   "reporting",  "requests",   "research",    "review",
    "risk",        "roadmap",       "security",   "service",    "services",    "strategy",
    "supports",    "systems",       "teams",      "the",        "tooling",     "training",
    "vendor",      "with",          "workflow",   "works",
};

template <typename T, size_t N>
const T& Pick(Prng* rng, const T (&items)[N]) {
  return items[rng->Below(N)];
}

template <typename T, size_t N>
const T& PickWeighted(Prng* rng, const T (&items)[N]) {
  unsigned total = 0;
  for (const T& item : items) total += item.weight;
  uint64_t r = rng->Below(total);
  for (const T& item : items) {
    if (r < item.weight) return item;
    r -= item.weight;
  }
  return items[N - 1];
}

void AppendDigits(Prng* rng, size_t n, std::string* out) {
  for (size_t i = 0; i < n; ++i) out->push_back(static_cast<char>('0' + rng->Below(10)));
}

// Lower-cased ASCII letters and digits of `s`; everything else is dropped.
std::string Slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (IsAsciiAlpha(c) || IsAsciiDigit(c)) out.push_back(AsciiLower(c));
  }
  return out;
}

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

constexpr uint64_t kPeoplePerGroup = 50;
constexpr size_t kBlockSize = size_t{1} << 20;

}  // namespace

Prng::Prng(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& s : s_) s = SplitMix64(&state);
}

uint64_t Prng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Prng::Below(uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
}

uint64_t LdifGenerator::StructuralCount() { return 3 + kDepartmentCount; }

Result<std::unique_ptr<LdifGenerator>> LdifGenerator::Create(GeneratorOptions options) {
  const std::string& suffix = options.suffix;
  size_t comma = suffix.find(',');
  std::string_view rdn = std::string_view(suffix).substr(0, comma);
  size_t eq = rdn.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == rdn.size()) {
    return Status::InvalidArgument("suffix '" + suffix + "': first RDN is not type=value");
  }
  std::string type = Slug(rdn.substr(0, eq));
  std::string value(rdn.substr(eq + 1));
  if (type != "dc" && type != "o" && type != "ou") {
    return Status::Unsupported("suffix '" + suffix + "': first RDN type must be dc, o or ou");
  }
  if (value.find_first_of("\\+\"") != std::string::npos || value.front() == ' ' ||
      value.back() == ' ' || value.front() == '#') {
    return Status::Unsupported("suffix '" + suffix +
                               "': first RDN value must be plain (no escapes or '+')");
  }
  return std::unique_ptr<LdifGenerator>(
      new LdifGenerator(std::move(options), std::move(type), std::move(value)));
}

LdifGenerator::LdifGenerator(GeneratorOptions options, std::string suffix_type,
                             std::string suffix_value)
    : options_(std::move(options)),
      suffix_type_(std::move(suffix_type)),
      suffix_value_(std::move(suffix_value)),
      rng_(options_.seed) {
  // A suffix made only of dc= components names the mail domain.
  std::string_view rest = options_.suffix;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view rdn = rest.substr(0, comma);
    while (!rdn.empty() && rdn.front() == ' ') rdn.remove_prefix(1);
    if (rdn.size() < 4 || Slug(rdn.substr(0, 2)) != "dc" || rdn[2] != '=') {
      mail_domain_.clear();
      break;
    }
    if (!mail_domain_.empty()) mail_domain_.push_back('.');
    mail_domain_.append(Slug(rdn.substr(3)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (mail_domain_.empty()) mail_domain_ = "example.com";

  // Everything after the structural entries is people and groups; a group
  // follows every kPeoplePerGroup people. With G = R / 51 groups and
  // P = R - G >= 50 * G people, group g (0-based) becomes due once
  // 50 * (g + 1) <= P people exist, so the schedule in Next() emits exactly
  // P people and G groups.
  uint64_t structural = StructuralCount();
  uint64_t rest_count = options_.entries > structural ? options_.entries - structural : 0;
  groups_total_ = rest_count / (kPeoplePerGroup + 1);
  people_total_ = rest_count - groups_total_;
}

bool LdifGenerator::Next(ldif::Record* record) {
  record->Clear();
  if (emitted_ >= options_.entries) return false;
  if (emitted_ < StructuralCount()) {
    StructuralEntry(emitted_, record);
  } else if (groups_emitted_ < groups_total_ &&
             people_emitted_ >= (groups_emitted_ + 1) * kPeoplePerGroup) {
    GroupEntry(record);
  } else {
    PersonEntry(record);
  }
  ++emitted_;
  return true;
}

Status LdifGenerator::Generate(ldif::ByteSink* sink) {
  const ldif::WriterOptions options{76};
  ldif::Record record;
  std::string buf;
  buf.reserve(kBlockSize + (size_t{64} << 10));
  while (Next(&record)) {
    ldif::AppendRecord(record, options, &buf);
    if (buf.size() >= kBlockSize) {
      DIRLOAD_RETURN_IF_ERROR(sink->Write(buf));
      buf.clear();
    }
  }
  if (!buf.empty()) DIRLOAD_RETURN_IF_ERROR(sink->Write(buf));
  return Status::Ok();
}

void LdifGenerator::StructuralEntry(uint64_t index, ldif::Record* record) {
  const std::string& suffix = options_.suffix;
  if (index == 0) {
    record->SetDn(suffix);
    record->Add("objectClass", "top");
    if (suffix_type_ == "dc") {
      record->Add("objectClass", "dcObject");
      record->Add("objectClass", "organization");
      std::string o = suffix_value_;
      if (o[0] >= 'a' && o[0] <= 'z') o[0] = static_cast<char>(o[0] - 'a' + 'A');
      record->Add("o", o);
      record->Add("dc", suffix_value_);
    } else if (suffix_type_ == "o") {
      record->Add("objectClass", "organization");
      record->Add("o", suffix_value_);
    } else {
      record->Add("objectClass", "organizationalUnit");
      record->Add("ou", suffix_value_);
    }
    record->Add("description", "Synthetic directory generated for benchmarks");
    return;
  }
  std::string name;
  std::string dn;
  std::string description;
  if (index == 1 || index == 2) {
    name = index == 1 ? "People" : "Groups";
    dn = "ou=" + name + "," + suffix;
    description = index == 1 ? "All people, by department" : "Groups of people";
  } else {
    const Department& dept = kDepartments[index - 3];
    name = dept.name;
    dn = "ou=" + name + ",ou=People," + suffix;
    description = "The " + name + " department";
  }
  record->SetDn(dn);
  record->Add("objectClass", "top");
  record->Add("objectClass", "organizationalUnit");
  record->Add("ou", name);
  record->Add("description", description);
}

std::string_view LdifGenerator::PersonDn(uint64_t person) const {
  uint64_t begin = person == 0 ? 0 : person_dn_end_[person - 1];
  return std::string_view(person_dns_).substr(begin, person_dn_end_[person] - begin);
}

std::string LdifGenerator::Unique(std::unordered_map<std::string, uint32_t>* table,
                                  const std::string& base) {
  uint32_t n = ++(*table)[base];
  return n == 1 ? base : base + std::to_string(n);
}

void LdifGenerator::AppendProse(size_t words, std::string* out) {
  bool sentence_start = true;
  for (size_t i = 0; i < words; ++i) {
    std::string_view word = Pick(&rng_, kWords);
    if (i > 0) out->push_back(' ');
    size_t at = out->size();
    out->append(word);
    if (sentence_start) (*out)[at] = static_cast<char>((*out)[at] - 'a' + 'A');
    sentence_start = i + 1 == words || rng_.Percent(12);
    if (sentence_start) out->push_back('.');
  }
}

void LdifGenerator::PersonEntry(ldif::Record* record) {
  const uint64_t p = people_emitted_;
  const size_t dept_index = &PickWeighted(&rng_, kDepartments) - kDepartments;
  const Department& dept = kDepartments[dept_index];

  // Names: about 7% of people have a UTF-8 given name, surname or both.
  Name given{Pick(&rng_, kGivenNames), {}};
  given.ascii = given.display;
  std::string synthesized;
  Name sn;
  if (rng_.Percent(45)) {
    synthesized.append(Pick(&rng_, kSurnameHeads));
    synthesized.append(Pick(&rng_, kSurnameMiddles));
    synthesized.append(Pick(&rng_, kSurnameTails));
    sn = {synthesized, synthesized};
  } else {
    sn.display = sn.ascii = Pick(&rng_, kSurnames);
  }
  if (rng_.Percent(7)) {
    uint64_t which = rng_.Below(5);  // 0-1 given, 2-3 surname, 4 both
    if (which != 2 && which != 3) given = Pick(&rng_, kUtf8GivenNames);
    if (which >= 2) sn = Pick(&rng_, kUtf8Surnames);
  }
  const bool utf8 = given.display != given.ascii || sn.display != sn.ascii;
  const char middle = static_cast<char>('A' + rng_.Below(26));

  const std::string uid = Unique(&uid_seen_, Slug(given.ascii.substr(0, 1)) + Slug(sn.ascii));
  std::string dn = "uid=" + uid + ",ou=";
  dn.append(dept.name).append(",ou=People,").append(options_.suffix);
  record->SetDn(dn);

  record->Add("objectClass", "top");
  record->Add("objectClass", "person");
  record->Add("objectClass", "organizationalPerson");
  record->Add("objectClass", "inetOrgPerson");
  record->Add("objectClass", "posixAccount");
  record->Add("uid", uid);

  std::string cn = std::string(given.display) + " " + std::string(sn.display);
  std::string ascii_cn = std::string(given.ascii) + " " + std::string(sn.ascii);
  record->Add("cn", cn);
  if (utf8) {
    if (rng_.Percent(60)) record->Add("cn", ascii_cn);
  } else if (rng_.Percent(35)) {
    record->Add("cn", std::string(given.display) + " " + middle + ". " + std::string(sn.display));
  }
  record->Add("sn", sn.display);
  record->Add("givenName", given.display);
  if (rng_.Percent(30)) {
    record->Add("initials", std::string(1, given.ascii[0]) + "." + middle + ".");
  }
  record->Add("displayName", std::string(sn.display) + ", " + std::string(given.display));

  const std::string mail_local = Unique(&mail_seen_, Slug(given.ascii) + "." + Slug(sn.ascii));
  record->Add("mail", mail_local + "@" + mail_domain_);
  if (rng_.Percent(40)) {
    record->Add("mail", uid + "@" + std::string(dept.slug) + "." + mail_domain_);
  }

  const uint64_t phones = rng_.Percent(60) ? 1 : (rng_.Percent(75) ? 2 : 3);
  const std::string area = std::to_string(rng_.Between(201, 989));
  std::string earlier[3];
  for (uint64_t i = 0; i < phones; ++i) {
    scratch_ = "+1 " + area + " ";
    AppendDigits(&rng_, 3, &scratch_);
    scratch_.push_back(' ');
    AppendDigits(&rng_, 4, &scratch_);
    // An attribute holds each value once: a number drawn twice (about one
    // entry in 17 million) is changed in its last digit, without another
    // draw, so that the rest of the output stays as it was.
    for (bool again = true; again;) {
      again = false;
      for (uint64_t j = 0; j < i; ++j) {
        if (earlier[j] == scratch_) {
          scratch_.back() = static_cast<char>('0' + (scratch_.back() - '0' + 1) % 10);
          again = true;
        }
      }
    }
    earlier[i] = scratch_;
    record->Add("telephoneNumber", scratch_);
  }
  if (rng_.Percent(45)) {
    scratch_ = "+1 ";
    scratch_.append(std::to_string(rng_.Between(201, 989))).push_back(' ');
    AppendDigits(&rng_, 3, &scratch_);
    scratch_.push_back(' ');
    AppendDigits(&rng_, 4, &scratch_);
    record->Add("mobile", scratch_);
  }

  record->Add("employeeNumber", std::to_string(100000 + p));
  record->Add("employeeType", Pick(&rng_, kEmployeeTypes));
  record->Add("departmentNumber", std::to_string((dept_index + 1) * 100 + rng_.Below(20)));
  const Title& title = PickWeighted(&rng_, kTitles);
  record->Add("title", title.name);
  record->Add("ou", dept.name);

  const City& city = PickWeighted(&rng_, kCities);
  record->Add("l", city.name);
  record->Add("st", city.state);
  std::string street = std::to_string(rng_.Between(1, 9999)) + " " +
                       std::string(Pick(&rng_, kStreetNames)) + " " +
                       std::string(Pick(&rng_, kStreetTypes));
  record->Add("street", street);
  std::string postal_code;
  AppendDigits(&rng_, 5, &postal_code);
  record->Add("postalCode", postal_code);
  if (rng_.Percent(35)) {
    record->Add("postalAddress", std::string(cn) + "$" + street + "$" + std::string(city.name) +
                                     ", " + std::string(city.state) + " " + postal_code);
  }
  scratch_.clear();
  scratch_.push_back(static_cast<char>('A' + rng_.Below(6)));
  scratch_.append(std::to_string(rng_.Between(1, 12))).push_back('-');
  AppendDigits(&rng_, 3, &scratch_);
  record->Add("roomNumber", scratch_);
  if (rng_.Percent(50)) record->Add("preferredLanguage", Pick(&rng_, kLanguages));
  if (!managers_.empty()) record->Add("manager", PersonDn(managers_[rng_.Below(managers_.size())]));

  record->Add("uidNumber", std::to_string(10000 + p));
  record->Add("gidNumber", std::to_string(5000 + dept_index));
  record->Add("homeDirectory", "/home/" + uid);
  record->Add("loginShell", Pick(&rng_, kShells));
  record->Add("gecos", ascii_cn);
  if (rng_.Percent(30)) {
    std::string raw;
    for (int i = 0; i < 3; ++i) {
      uint64_t x = rng_.Next();
      for (int b = 0; b < 8; ++b) raw.push_back(static_cast<char>((x >> (8 * b)) & 0xff));
    }
    scratch_ = "{SSHA}";
    ldif::Base64Encode(raw, &scratch_);
    record->Add("userPassword", scratch_);
  }
  // Two people in five carry a paragraph long enough to fold at 76 columns.
  scratch_.clear();
  if (rng_.Percent(40)) {
    AppendProse(rng_.Between(45, 114), &scratch_);
  } else {
    AppendProse(rng_.Between(4, 14), &scratch_);
  }
  record->Add("description", scratch_);

  if (p < kRememberedPeople) {
    person_dns_.append(dn);
    person_dn_end_.push_back(person_dns_.size());
    if (title.manager) managers_.push_back(static_cast<uint32_t>(p));
  }
  ++people_emitted_;
}

void LdifGenerator::GroupEntry(ldif::Record* record) {
  const uint64_t g = groups_emitted_;
  const Department& dept = kDepartments[rng_.Below(kDepartmentCount)];
  const std::string cn = std::string(dept.slug) + "-" + std::string(Pick(&rng_, kGroupTopics)) +
                         "-" + std::to_string(g + 1);
  record->SetDn("cn=" + cn + ",ou=Groups," + options_.suffix);
  record->Add("objectClass", "top");
  record->Add("objectClass", "groupOfNames");
  record->Add("cn", cn);
  record->Add("ou", dept.name);
  scratch_.clear();
  AppendProse(rng_.Between(5, 16), &scratch_);
  record->Add("description", scratch_);
  if (!managers_.empty()) record->Add("owner", PersonDn(managers_[rng_.Below(managers_.size())]));

  // Distinct members among the people so far (Floyd's sampling: exactly
  // `count` draws, no retries).
  const uint64_t pool = std::min(people_emitted_, kRememberedPeople);
  const uint64_t count = std::min<uint64_t>(rng_.Between(10, 200), pool);
  members_.clear();
  for (uint64_t j = pool - count; j < pool; ++j) {
    uint32_t t = static_cast<uint32_t>(rng_.Below(j + 1));
    bool seen = false;
    for (uint32_t m : members_) {
      if (m == t) {
        seen = true;
        break;
      }
    }
    members_.push_back(seen ? static_cast<uint32_t>(j) : t);
  }
  for (uint32_t m : members_) record->Add("member", PersonDn(m));
  ++groups_emitted_;
}

const std::vector<std::string> kWorkloadIndexLines = {
    "objectClass eq",
    "uid eq",
    "mail eq,sub",
    "cn eq,sub",
    "sn eq,sub",
    "givenName eq,sub",
    "telephoneNumber eq",
    "employeeNumber eq",
    "departmentNumber eq",
    "title eq",
    "l eq",
    "ou eq",
    "member eq",
    "manager eq",
    "postalCode eq",
};

std::vector<std::string_view> WorkloadTitles() {
  std::vector<std::string_view> titles;
  for (const Title& title : kTitles) titles.push_back(title.name);
  return titles;
}

Status GenerateLdifFile(const GeneratorOptions& options, const std::string& path, bool gzip) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<LdifGenerator> generator,
                           LdifGenerator::Create(options));
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink, ldif::OpenByteSink(path, gzip));
  Status written = generator->Generate(sink.get());
  // The first error is the one worth reporting.
  Status closed = sink->Close();
  DIRLOAD_RETURN_IF_ERROR(written);
  return closed;
}

}  // namespace dirload::bench
