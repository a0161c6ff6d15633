// Throughput of the back-mdb writer on the benchmark workload (bench/
// ldif_generator.h, the 15 workload indexes). Skipped by default; run it by
// hand on a Release build:
//   DIRLOAD_MDB_BENCH_ENTRIES=100000 tests/format/mdb/mdb_writer_bench --no-skip
// (DIRLOAD_MDB_BENCH_BUDGET sets MdbIndexOptions::memory_budget in bytes.)
// It prints entries/s of phase 1 (MdbLoadWriter: id2e, ad2i, dn2i) and of
// phase 2 (MdbIndexBuilder), excluding LDIF generation and DN normalization.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "ldif/record.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/index/index_spec.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST_CASE("mdb writer bench: phase 1 and phase 2 entries/s" * doctest::skip()) {
  const uint64_t entries = std::strtoull(
      dirload::testing::Env("DIRLOAD_MDB_BENCH_ENTRIES", "100000").c_str(), nullptr, 10);
  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;

  bench::GeneratorOptions go;
  go.entries = entries;
  auto gen = bench::LdifGenerator::Create(go);
  REQUIRE(gen.ok());
  struct Input {
    ldif::Record record;
    uint64_t parent = 0;
    std::string nrdn;
  };
  std::vector<Input> input(entries);
  std::map<std::string, uint64_t> ids;
  const std::string nsuffix = *NormalizeDn(schema, go.suffix);
  for (uint64_t i = 0; i < entries; ++i) {
    REQUIRE((*gen)->Next(&input[i].record));
    auto ndn = NormalizeDn(schema, input[i].record.dn());
    REQUIRE(ndn.ok());
    if (*ndn == nsuffix) {
      input[i].nrdn = *ndn;
    } else {
      input[i].parent = ids.at(std::string(ParentDn(*ndn)));
      input[i].nrdn = std::string(MdbLeftmostRdn(*ndn));
    }
    ids[*ndn] = i + 1;
  }

  IndexConfig config;
  for (const std::string& l : bench::kWorkloadIndexLines) {
    REQUIRE(config.AddLine(schema, l, "workload").ok());
  }
  std::vector<std::string> names;
  for (const IndexSpec& s : config.specs()) names.emplace_back(s.name());

  dirload::testing::TempDir tmp;
  std::string dir = tmp.File("db");
  std::filesystem::create_directory(dir);
  MdbWriterOptions wo;
  wo.map_size = uint64_t{16} << 30;
  wo.quick = true;
  wo.index_names = names;

  auto t1 = std::chrono::steady_clock::now();
  {
    auto w = MdbLoadWriter::Create(schema, dir, wo);
    REQUIRE(w.ok());
    std::vector<MdbValue> values;
    for (uint64_t i = 0; i < entries; ++i) {
      const ldif::Record& r = input[i].record;
      values.clear();
      for (size_t a = 0; a < r.size(); ++a) {
        values.push_back(
            MdbValue{r.attribute(a).description, r.attribute(a).value, false, {}, false});
      }
      std::string_view rdn = input[i].parent == 0 ? r.dn() : MdbLeftmostRdn(r.dn());
      Status st = (*w)->AddEntry(i + 1, input[i].parent, input[i].nrdn, rdn, values);
      REQUIRE_MESSAGE(st.ok(), st.ToString());
    }
    REQUIRE((*w)->Finish().ok());
  }
  double phase1 = Seconds(t1);

  auto t2 = std::chrono::steady_clock::now();
  MdbEnvOptions eo;
  eo.index_names = names;
  eo.quick = true;
  eo.write_map = true;  // as phase 2 of a load
  auto env = MdbEnv::Open(dir, eo);
  REQUIRE(env.ok());
  MdbIndexOptions io;
  io.memory_budget = std::strtoull(
      dirload::testing::Env("DIRLOAD_MDB_BENCH_BUDGET", "1073741824").c_str(), nullptr, 10);
  auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), io);
  REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
  double phase2 = Seconds(t2);

  MESSAGE(entries << " entries; phase 1 " << phase1 << " s = " << entries / phase1
                  << " entries/s; phase 2 " << phase2 << " s = " << entries / phase2
                  << " entries/s (" << stats->keys << " keys, " << stats->ids << " IDs, "
                  << stats->ranges << " ranges, " << stats->runs << " runs)");
}

}  // namespace
}  // namespace dirload::mdb
