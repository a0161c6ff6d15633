// Fuzz target for the cn=config reader (lib/config/cn_config.h), from
// memory: the input is a whole slapd.d tree in one text, each file starting
// at a line "==> PATH" (PATH relative to the tree, as `head` prints file
// names) and a line "==> PATH/" naming an empty directory. ParseCnConfig
// must give a configuration or an error for any tree, never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/config/cn_config.h"

namespace {

void AddParents(dirload::CnConfigTree* tree, const std::string& path) {
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    tree->directories.insert(path.substr(0, slash));
  }
}

dirload::CnConfigTree Split(std::string_view text) {
  dirload::CnConfigTree tree;
  tree.dir = "/nonexistent/slapd.d";
  std::string* file = nullptr;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol == std::string_view::npos ? text.size() : eol + 1);
    text.remove_prefix(line.size());
    if (line.starts_with("==> ")) {
      std::string path(line.substr(4));
      while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
      if (path.empty()) continue;
      if (path.back() == '/') {
        path.pop_back();
        AddParents(&tree, path + "/");
        file = nullptr;
        continue;
      }
      AddParents(&tree, path);
      file = &tree.files[path];
      file->clear();
      continue;
    }
    if (file != nullptr) file->append(line);
  }
  return tree;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  CnConfigTree tree = Split(std::string_view(reinterpret_cast<const char*>(data), size));
  Result<SlapdConfig> config = ParseCnConfig(tree);
  if (config.ok()) {
    // A tree without the config database is refused, and the databases come
    // out in their numbers' order, each found by its number.
    if (config->FindDatabase(0) == nullptr) std::abort();
    for (size_t i = 0; i < config->databases.size(); ++i) {
      const SlapdDatabase& db = config->databases[i];
      if (config->FindDatabase(db.number) != &db) std::abort();
      if (i > 0 && config->databases[i - 1].number >= db.number) std::abort();
    }
  } else if (config.status().origin() != ErrorOrigin::kConfiguration) {
    std::abort();
  }
  return 0;
}
