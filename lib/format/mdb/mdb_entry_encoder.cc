#include "lib/format/mdb/mdb_entry_encoder.h"

#include <algorithm>
#include <cstring>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/schema/schema.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {
namespace {

constexpr std::string_view kObjectClassOid = "2.5.4.0";

Status ConfigError(std::string message) {
  return Status::InvalidArgument(std::move(message)).WithOrigin(ErrorOrigin::kConfiguration);
}

bool IsXOrdered(const AttributeType& type) {
  for (const SchemaExtension& x : type.extensions) {
    if (EqualsIgnoreCase(x.name, "X-ORDERED")) return true;
  }
  return false;
}

}  // namespace

Status MdbEntryEncoder::SetValueRules(const MdbValueRules& rules) {
  sorted_types_.clear();
  multival_hi_ = StringMap<uint32_t>();
  default_multival_hi_ = UINT32_MAX;
  for (const std::string& name : rules.sorted_types) {
    const AttributeType* t = schema_.FindAttribute(name);
    if (t == nullptr) return ConfigError("sortvals: attribute type '" + name + "' is not defined");
    // slapd's own refusal: such values have an order of their own, or none.
    if (t->single_value || IsXOrdered(*t)) {
      return ConfigError("sortvals: attribute type '" + name +
                         "' is single-valued or X-ORDERED, which slapd does not sort");
    }
    Result<MdbValueOrder> order = MdbValueOrderFor(*t);
    if (!order.ok()) return order.status().WithPrefix("sortvals: ");
    if (sorted_types_.size() <= t->id) sorted_types_.resize(t->id + 1, false);
    sorted_types_[t->id] = true;
  }
  for (const MdbValueRules::Multival& m : rules.multival) {
    if (m.lo > m.hi) {
      return ConfigError("multival " + m.description + " " + std::to_string(m.hi) + "," +
                         std::to_string(m.lo) + ": the low threshold is above the high one");
    }
    if (EqualsIgnoreCase(m.description, "default")) {
      default_multival_hi_ = m.hi;
      continue;
    }
    Result<AttributeDescription> desc = schema_.ParseAttributeDescription(m.description);
    if (!desc.ok()) {
      return ConfigError("multival: attribute '" + m.description + "' is not defined");
    }
    Result<MdbValueOrder> order = MdbValueOrderFor(*desc->type);
    if (!order.ok()) return order.status().WithPrefix("multival: ");
    if (!multival_hi_.Insert(desc->ToString(), m.hi).second) {
      return ConfigError("multival: attribute '" + m.description + "' is named twice");
    }
  }
  return Status::Ok();
}

std::string_view MdbEntryEncoder::Ordered(std::span<const MdbValue> values, const Record& rec,
                                          uint32_t k) const {
  if (!rec.normalized) return values[k].value;
  return rec.all_given ? values[k].normalized : std::string_view(computed_[k]);
}

Status MdbEntryEncoder::SortRecord(uint64_t id, std::span<const MdbValue> values, Record& rec) {
  const MdbValueOrder order = rec.d->order;
  auto begin = order_.begin() + rec.first;
  auto end = begin + rec.count;
  std::sort(begin, end, [&](uint32_t a, uint32_t b) {
    return MdbCompareValues(order, Ordered(values, rec, a), Ordered(values, rec, b)) < 0;
  });
  // slapd refuses a sorted attribute's repeated value (str2entry); id2v
  // would keep one duplicate of it under a count that says two.
  for (auto it = begin; it != end && it + 1 != end; ++it) {
    if (MdbCompareValues(order, Ordered(values, rec, *it), Ordered(values, rec, *(it + 1))) == 0) {
      return Status::InvalidArgument("entry ID " + std::to_string(id) + ": attribute '" +
                                     rec.d->name + "' has the value '" +
                                     std::string(values[*it].value) + "' more than once")
          .WithOrigin(ErrorOrigin::kInput);
    }
  }
  return Status::Ok();
}

Status MdbEntryEncoder::ForEachId2vRecord(std::span<const MdbValue> values,
                                          const Id2vRecordFn& fn) {
  std::vector<const Record*> multival;
  for (const Record& rec : records_) {
    if (rec.multival) multival.push_back(&rec);
  }
  std::sort(multival.begin(), multival.end(),
            [](const Record* a, const Record* b) { return a->d->adx < b->d->adx; });
  for (const Record* rec : multival) {
    if (id2v_dups_.size() < rec->count) id2v_dups_.resize(rec->count);
    for (uint32_t i = 0; i < rec->count; ++i) {
      const uint32_t k = order_[rec->first + i];
      std::string& dup = id2v_dups_[i];
      dup.clear();
      const std::string_view normalized = Ordered(values, *rec, k);
      AppendMdbId2vValue(values[k].value, rec->normalized ? &normalized : nullptr, &dup);
    }
    DIRLOAD_RETURN_IF_ERROR(fn(rec->d->adx, rec->d->order,
                               std::span<const std::string>(id2v_dups_.data(), rec->count)));
  }
  return Status::Ok();
}

uint32_t MdbEntryEncoder::OcFlags(size_t position, std::string_view object_class) {
  if (position < last_classes_.size() && last_classes_[position].first == object_class) {
    return last_classes_[position].second;
  }
  uint32_t flags;
  if (const uint32_t* known = oc_flags_.Find(object_class)) {
    flags = *known;
  } else {
    // Entries name a handful of classes, millions of times over.
    if (oc_flags_.size() >= kMaxOcFlags) oc_flags_ = StringMap<uint32_t>();
    const std::string_view one[] = {object_class};
    flags = MdbEntryOcFlags(schema_, one);
    oc_flags_.Insert(object_class, flags);
  }
  if (position >= last_classes_.size()) last_classes_.resize(position + 1);
  last_classes_[position] = {std::string(object_class), flags};
  return flags;
}

Result<MdbEntryEncoder::Description*> MdbEntryEncoder::AddDescription(std::string_view written) {
  Description nd;
  nd.written = std::string(written);
  Result<AttributeDescription> desc = schema_.ParseAttributeDescription(written);
  // An undefined type reaches here only from a load without schema checks
  // (slapadd -s stores those too): kept as written, with no normalized copy.
  nd.name = desc.ok() ? desc->ToString() : std::string(written);
  nd.type = desc.ok() ? desc->type : nullptr;
  nd.normalized = nd.type != nullptr && MdbStoresNormalized(*nd.type);
  nd.object_class = nd.type != nullptr && nd.type->oid == kObjectClassOid;
  nd.sorted =
      nd.type != nullptr && nd.type->id < sorted_types_.size() && sorted_types_[nd.type->id];
  // A multival threshold names the description exactly, options and all.
  const uint32_t* hi = multival_hi_.Find(nd.name);
  nd.multival_hi = hi != nullptr ? *hi : default_multival_hi_;
  if (nd.type != nullptr && (nd.sorted || nd.multival_hi != UINT32_MAX)) {
    Result<MdbValueOrder> order = MdbValueOrderFor(*nd.type);
    if (!order.ok()) return order.status().WithPrefix("multival default: ");
    nd.order = *order;
  }
  auto [id, added] = canonical_ids_.Insert(nd.name, static_cast<uint32_t>(canonical_ids_.size()));
  if (added) canonical_.emplace_back();
  nd.canonical = *id;
  return descriptions_.Insert(written, std::move(nd)).first;
}

Status MdbEntryEncoder::Layout(uint64_t id, std::span<const MdbValue> values,
                               const Ad2iNumber& ad2i) {
  // One record per canonical description, in the order of first use
  // (mdb_entry_codec.h has the layout); Write then writes the bytes.
  // This runs once per entry on the writing thread.
  records_.clear();
  record_of_.resize(values.size());
  ++encoded_entries_;
  entry_oc_flags_ = MdbEntryOcFlags(schema_, {});  // an entry without classes
  size_t classes = 0;                              // objectClass values so far
  sequence_.Start();
  Status described;
  auto describe = [&](std::string_view written) -> Description* {
    if (Description* known = descriptions_.Find(written)) return known;
    Result<Description*> added = AddDescription(written);
    if (!added.ok()) described = added.status();
    return added.ok() ? *added : nullptr;
  };
  for (size_t i = 0; i < values.size(); ++i) {
    const MdbValue& v = values[i];
    Description* d = sequence_.Next(v.description, describe);
    if (d == nullptr) return described;
    // One record per canonical name, whichever spelling comes first.
    Canonical& c = canonical_[d->canonical];
    if (c.entry != encoded_entries_) {
      c.entry = encoded_entries_;
      c.record = static_cast<uint32_t>(records_.size());
      Record rec;
      rec.d = d;
      rec.generated = v.generated;
      rec.normalized = !v.generated && d->normalized;
      records_.push_back(rec);
    }
    Record& rec = records_[c.record];
    ++rec.count;
    if (!v.has_normalized) rec.all_given = false;
    record_of_[i] = c.record;
    if (d->object_class) entry_oc_flags_ |= OcFlags(classes++, v.value);
  }
  if (records_.size() > 0x7fffffffu)
    return Status::InvalidArgument("mdb entry: too many attributes");
  // Value indexes grouped by record, each record's values in input order.
  {
    uint32_t at = 0;
    for (Record& rec : records_) {
      rec.first = at;
      at += rec.count;
      rec.count = 0;
    }
    order_.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      Record& rec = records_[record_of_[i]];
      order_[rec.first + rec.count++] = static_cast<uint32_t>(i);
    }
  }
  // ad2i numbers in the order of first use, then the normalized copies this
  // thread still has to make.
  if (computed_.size() < values.size()) computed_.resize(values.size());
  uint64_t table_words = 0, data_bytes = 0, nvals = 0;
  id2v_records_ = 0;
  for (Record& rec : records_) {
    const uint64_t data_before = data_bytes;
    if (rec.d->adx == 0) {
      DIRLOAD_ASSIGN_OR_RETURN(rec.d->adx, ad2i(rec.d->name));
      if (rec.d->adx > 0x3fffffffu) {
        return Status::InvalidArgument("mdb entry: more attribute descriptions than ad2i numbers");
      }
    }
    const uint64_t copies = rec.normalized ? 2 : 1;
    table_words += 2 + rec.count * copies;
    nvals += (uint64_t{rec.count} + 1) * copies;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) {
      const MdbValue& v = values[order_[k]];
      data_bytes += v.value.size() + 1;
      if (v.value.size() > UINT32_MAX) return Status::InvalidArgument("mdb entry: value too long");
      if (!rec.normalized) continue;
      if (rec.all_given) {
        data_bytes += v.normalized.size() + 1;
        continue;
      }
      std::string& out = computed_[order_[k]];
      // What this thread normalizes are mostly the operational values the
      // load adds: creatorsName and modifiersName repeat one DN.
      Description& d = *rec.d;
      if (d.has_last && d.last_value == v.value) {
        out = d.last_normalized;
      } else {
        Status st = MdbNormalizedValue(schema_, *d.type, v.value, &out);
        if (!st.ok()) return st.WithPrefix("entry ID " + std::to_string(id) + ": ");
        d.last_value.assign(v.value);
        d.last_normalized = out;
        d.has_last = true;
      }
      data_bytes += out.size() + 1;
    }
    rec.multival = rec.count > rec.d->multival_hi;
    if (rec.multival) {
      // Only the counts stay in id2e: the values' lengths and bytes go to id2v.
      table_words -= uint64_t{rec.count} * copies;
      data_bytes = data_before;
      if (rec.d->adx > kMdbId2vMaxAdx) {
        return Status::InvalidArgument(
            "entry ID " + std::to_string(id) + ": attribute '" + rec.d->name +
            "' has ad2i number " + std::to_string(rec.d->adx) + ", more than an id2v key holds");
      }
      for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) {
        if (values[order_[k]].value.size() > kMdbId2vMaxValue) {
          return Status::InvalidArgument("entry ID " + std::to_string(id) + ": a value of '" +
                                         rec.d->name + "' is longer than id2v holds (" +
                                         std::to_string(kMdbId2vMaxValue) + " bytes)")
              .WithOrigin(ErrorOrigin::kInput);
        }
      }
      ++id2v_records_;
    }
    if (rec.d->sorted || rec.multival) DIRLOAD_RETURN_IF_ERROR(SortRecord(id, values, rec));
  }
  if (nvals > UINT32_MAX || table_words > UINT32_MAX) {
    return Status::InvalidArgument("mdb entry: too many values");
  }
  table_words_ = table_words;
  nvals_ = nvals;
  encoded_size_ = (16 + 4 * table_words + data_bytes + 7) & ~uint64_t{7};
  return Status::Ok();
}

void MdbEntryEncoder::Write(std::span<const MdbValue> values, char* base) const {
  const uint64_t table_words = table_words_;
  const uint64_t nvals = nvals_;
  auto put_word = [](uint32_t w, char* p) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(w >> (8 * i));
  };
  put_word(static_cast<uint32_t>(records_.size()), base);
  put_word(static_cast<uint32_t>(nvals), base + 4);
  put_word(entry_oc_flags_, base + 8);
  put_word(static_cast<uint32_t>(table_words), base + 12);
  char* word = base + 16;
  char* data = base + 16 + 4 * table_words;
  auto put_value = [&](std::string_view v) {
    put_word(static_cast<uint32_t>(v.size()), word);
    word += 4;
    std::memcpy(data, v.data(), v.size());
    data[v.size()] = '\0';
    data += v.size() + 1;
  };
  for (const Record& rec : records_) {
    put_word(
        rec.d->adx | (rec.d->sorted ? kMdbAdxSorted : 0) | (rec.multival ? kMdbAdxMultival : 0),
        word);
    put_word(rec.count | (rec.normalized ? kMdbNumvalsNormalized : 0), word + 4);
    word += 8;
    if (rec.multival) continue;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) put_value(values[order_[k]].value);
    if (!rec.normalized) continue;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) {
      put_value(rec.all_given ? values[order_[k]].normalized
                              : std::string_view(computed_[order_[k]]));
    }
  }
  // Every byte is written once: the padding to 8 bytes is zeros.
  std::memset(data, 0, static_cast<size_t>(base + encoded_size_ - data));
}

}  // namespace dirload::mdb
