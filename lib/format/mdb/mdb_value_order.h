// The order in which slapd 2.5 keeps the values of one attribute where it
// keeps them in order: the values of a `sortvals` attribute (slapd's
// slap_sort_vals, stored sorted and flagged in id2e) and the duplicates of
// a key in id2v (back-mdb's mdb_id2v_dupsort), both set by the type's
// equality rule's match function applied to the normalized values (the
// values themselves where the type stores no normalized copy):
//   kOctet         octetStringMatch, dnMatch and every rule built on them
//                  (caseIgnoreMatch, distinguishedNameMatch, IA5, numeric
//                  strings, generalizedTimeMatch, UUIDMatch, ...), and no
//                  equality rule, objectClass or an X-ORDERED type, which
//                  slapd compares with ber_bvcmp: shorter first, then bytes.
//   kUniqueMember  uniqueMemberMatch: values with a "#'..'B" UID first,
//                  among them by UID (shorter first, then bytes), then all by
//                  the DN part as kOctet.
//   kInteger       integerMatch: by sign, then by magnitude (more digits is
//                  bigger), negatives reversed.
//   kBoolean       booleanMatch: by length, longer first ("FALSE" < "TRUE").
// Other rules (csnMatch, authzMatch, ...) have match functions this module
// does not reproduce: MdbValueOrderFor refuses them.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "lib/util/status.h"

namespace dirload {
struct AttributeType;
}  // namespace dirload

namespace dirload::mdb {

enum class MdbValueOrder { kOctet, kUniqueMember, kInteger, kBoolean };

// The order of `type`'s values; InvalidArgument naming the type and its rule
// when slapd orders them with a rule listed above as not reproduced.
Result<MdbValueOrder> MdbValueOrderFor(const AttributeType& type);

// < 0, 0, > 0 as slapd's match function says of `a` against `b`, both
// normalized (see above).
int MdbCompareValues(MdbValueOrder order, std::string_view a, std::string_view b);

}  // namespace dirload::mdb
