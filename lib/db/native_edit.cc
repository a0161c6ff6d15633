#include "lib/db/native_edit.h"

#include <optional>

#include "lib/db/write_guard.h"
#include "lib/format/native/native_entry_editor.h"

namespace dirload {
namespace {

class GuardedEditor final : public EntryEditor {
 public:
  GuardedEditor(WriteGuard guard, std::unique_ptr<NativeEntryEditor> inner)
      : guard_(std::move(guard)), inner_(std::move(inner)) {}
  ~GuardedEditor() override {
    if (committed_) return;
    inner_.reset();  // the store closed before its files go back
    (void)guard_.RollBack();
  }

  Result<std::optional<EntryId>> Find(std::string_view ndn) override { return inner_->Find(ndn); }
  Result<Entry> Read(EntryId id) override { return inner_->Read(id); }
  Result<std::vector<EntryId>> Children(EntryId id) override { return inner_->Children(id); }
  Result<EntryId> Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                      std::span<const Value> values) override {
    return inner_->Add(parent, nrdn, rdn, values);
  }
  Status Replace(EntryId id, std::span<const Value> values) override {
    return inner_->Replace(id, values);
  }
  Status Delete(EntryId id) override { return inner_->Delete(id); }
  Status Move(EntryId id, EntryId new_parent, std::string_view nrdn,
              std::string_view rdn) override {
    return inner_->Move(id, new_parent, nrdn, rdn);
  }
  void SetIndexBatch(size_t pairs) override {
    if (inner_) inner_->SetIndexBatch(pairs);
  }
  Status Commit() override {
    DIRLOAD_RETURN_IF_ERROR(inner_->Commit());
    stats_ = inner_->stats();
    inner_.reset();
    DIRLOAD_RETURN_IF_ERROR(guard_.Done());
    committed_ = true;
    return Status::Ok();
  }
  const Stats& stats() const override { return inner_ ? inner_->stats() : stats_; }

 private:
  WriteGuard guard_;
  std::unique_ptr<NativeEntryEditor> inner_;
  Stats stats_;
  bool committed_ = false;
};

}  // namespace

Result<std::unique_ptr<EntryEditor>> BeginNativeEdit(const ResolvedDatabase& db,
                                                     const Schema& schema, std::string nsuffix) {
  DIRLOAD_ASSIGN_OR_RETURN(WriteGuard guard, WriteGuard::BeginModify(db.dir));
  StoreOptions so = db.store_options;
  so.create = false;
  Result<std::unique_ptr<Store>> store = Store::Open(db.backend, db.dir, so);
  Result<std::unique_ptr<NativeEntryEditor>> editor =
      store.ok() ? NativeEntryEditor::Open(schema, std::move(*store), std::move(nsuffix))
                 : Result<std::unique_ptr<NativeEntryEditor>>(store.status());
  if (!editor.ok()) {
    (void)guard.RollBack();
    return editor.status();
  }
  return std::unique_ptr<EntryEditor>(
      std::make_unique<GuardedEditor>(std::move(guard), std::move(*editor)));
}

}  // namespace dirload
