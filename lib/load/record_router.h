// RecordRouter: which database of a load takes each record, when one input
// fills several databases (glued subordinates, lib/config/glue.h). Each
// database is loaded by its own pass over the whole input; the pass's Loader
// asks the router, by normalized DN, whether a record is its own, another
// pass's, or no database's of this load (refused, by the selected
// database's pass alone so that each refusal is reported once).
//
// Thread safety: after Prepare(), Route() may be called from any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

class EntryChecker;

class RecordRouter {
 public:
  struct Owner {
    int database = 0;
    std::string suffix;  // as written in the configuration
  };
  // `holders`: select_backend's candidates in configuration order;
  // `selected`: the database the load selected; `glued`: its subordinates
  // this load writes; `loading`: the database of this pass.
  // `unloadable`: glued databases no pass loads, with why; their entries
  // are refused.
  RecordRouter(std::vector<Owner> holders, int selected, std::vector<Owner> glued, int loading,
               std::vector<std::pair<int, std::string>> unloadable = {});

  // Normalizes the suffixes as `checker` normalizes the records' DNs.
  Status Prepare(const EntryChecker& checker);

  enum class Verdict { kHere, kElsewhere, kRefused };
  // Where the entry named `ndn` goes. kRefused comes with the reason in
  // *why, and only to the selected database's pass; the others get
  // kElsewhere for it.
  Verdict Route(std::string_view ndn, std::string* why) const;

  // The selected database's pass reports what no database takes (and the
  // records that fail before their DN is known), and writes -w's contextCSN.
  bool selected_pass() const { return loading_ == selected_; }

 private:
  struct Normalized {
    int database;
    std::string suffix;
    std::string nsuffix;
  };
  std::vector<Normalized> holders_;
  std::vector<Normalized> glued_;
  std::vector<std::pair<int, std::string>> unloadable_;
  int selected_;
  int loading_;
  std::string selected_suffix_;
};

}  // namespace dirload
