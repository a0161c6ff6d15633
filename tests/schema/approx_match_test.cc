// slapd's approximate matching: phonetic codes, words and the match rule.
// Every expected code here is what slapadd 2.5.13 stored: each word was the
// whole `description` value of its own entry under `index description
// approx`, read back with mdb_dump (a word without a key has the code "").
#include "lib/schema/approx_match.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/schema/lunicode.h"
#include "lib/schema/matching_rule.h"

namespace dirload {
namespace {

struct Known {
  const char* word;
  const char* code;
};

// The keys slapadd made, one word a value.
constexpr Known kSlapaddCodes[] = {
    {"smith", "SM0"},
    {"smyth", "SM0"},
    {"schmidt", "SKMT"},
    {"thomas", "0MS"},
    {"thompson", "0MPS"},
    {"tomson", "TMSN"},
    {"diana", "TN"},
    {"dianne", "TN"},
    {"yamamoto", "YMMT"},
    {"knight", "NKT"},
    {"night", "NKT"},
    {"phone", "FN"},
    {"fone", "FN"},
    {"xavier", "SFR"},
    {"wright", "RKT"},
    {"write", "RT"},
    {"wrong", "RNK"},
    {"whale", "WL"},
    {"when", "WN"},
    {"what", "WT"},
    {"white", "WT"},
    {"gnome", "NM"},
    {"gnat", "NT"},
    {"pneumonia", "NMN"},
    {"knee", "N"},
    {"aeon", "EN"},
    {"aerial", "ERL"},
    {"ache", "AX"},
    {"science", "SNS"},
    {"scene", "SN"},
    {"school", "SKL"},
    {"schooner", "SKNR"},
    {"chris", "KRS"},
    {"christian", "KRSX"},
    {"church", "XRX"},
    {"chorus", "XRS"},
    {"character", "XRKT"},
    {"cia", "X"},
    {"ciao", "X"},
    {"special", "SPXL"},
    {"social", "SXL"},
    {"nation", "NXN"},
    {"ratio", "RX"},
    {"station", "STXN"},
    {"bush", "X"},
    {"shoe", "X"},
    {"sugar", "SKR"},
    {"sion", "XN"},
    {"vision", "FXN"},
    {"edge", "EJ"},
    {"judge", "JJ"},
    {"dodge", "TJ"},
    {"ledge", "LJ"},
    {"hedge", "HJ"},
    {"ridge", "RJ"},
    {"gnu", "N"},
    {"sign", "SKN"},
    {"signed", "SNT"},
    {"reigned", "RNT"},
    {"campaign", "KMPK"},
    {"design", "TSKN"},
    {"designed", "TSNT"},
    {"laugh", "LK"},
    {"tough", "TK"},
    {"cough", "KK"},
    {"though", "0K"},
    {"through", "0RK"},
    {"thought", "0KT"},
    {"bough", "K"},
    {"high", "HK"},
    {"weigh", "WK"},
    {"neighbour", "NKR"},
    {"daughter", "TKTR"},
    {"ghost", "KST"},
    {"gheorghe", "KRK"},
    {"hugh", "HK"},
    {"hugo", "HK"},
    {"hag", "HK"},
    {"egg", "EK"},
    {"eggs", "EKS"},
    {"beggar", "KR"},
    {"bigger", "KR"},
    {"ghetto", "KT"},
    {"gym", "GM"},
    {"gem", "GM"},
    {"gin", "GN"},
    {"giraffe", "GRF"},
    {"goat", "KT"},
    {"lamb", "LM"},
    {"climb", "KLM"},
    {"comb", "KM"},
    {"dumb", "TM"},
    {"bomb", "M"},
    {"tomb", "TM"},
    {"numb", "NM"},
    {"bob", "B"},
    {"bobby", ""},
    {"b", "B"},
    {"bb", ""},
    {"abbey", "A"},
    {"mb", "M"},
    {"amb", "AM"},
    {"ambler", "AMLR"},
    {"axe", "AKS"},
    {"box", "KS"},
    {"fox", "FKS"},
    {"x", "S"},
    {"xerxes", "SRKS"},
    {"xylophone", "SLFN"},
    {"maxim", "MKSM"},
    {"taxi", "TKS"},
    {"xx", "SKS"},
    {"exxon", "EKSN"},
    {"zoe", "S"},
    {"zebra", "SR"},
    {"pizza", "PS"},
    {"quick", "KK"},
    {"queen", "KN"},
    {"quartz", "KRTS"},
    {"kite", "KT"},
    {"ck", "K"},
    {"check", "XK"},
    {"acknowledge", "AKNL"},
    {"who", "W"},
    {"whom", "WM"},
    {"whose", "WS"},
    {"wharf", "WRF"},
    {"hello", "HL"},
    {"ahead", "AHT"},
    {"aha", "AH"},
    {"oho", "OH"},
    {"ha", "H"},
    {"he", "H"},
    {"hi", "H"},
    {"help", "HLP"},
    {"yes", "YS"},
    {"yellow", "YL"},
    {"you", "Y"},
    {"boy", ""},
    {"toy", "T"},
    {"yacht", "YXT"},
    {"eye", "EY"},
    {"aye", "AY"},
    {"victor", "FKTR"},
    {"vivian", "FFN"},
    {"view", "F"},
    {"wave", "WF"},
    {"th", "0"},
    {"the", "0"},
    {"then", "0N"},
    {"thin", "0N"},
    {"that", "0T"},
    {"bath", "0"},
    {"bathe", "0"},
    {"chute", "XT"},
    {"tch", "X"},
    {"watch", "WX"},
    {"match", "MX"},
    {"kitchen", "KXN"},
    {"batch", "X"},
    {"muller", "MLR"},
    {"mueller", "MLR"},
    {"mller", "MLR"},
    {"emile", "EML"},
    {"o", "O"},
    {"brien", "RN"},
    {"obrien", "ORN"},
    {"o'brien", "O"},
    {"mac", "MK"},
    {"macdonald", "MKTN"},
    {"mcdonald", "MKTN"},
    {"a", "A"},
    {"e", "E"},
    {"i", "I"},
    {"u", "U"},
    {"aa", "A"},
    {"ee", "E"},
    {"ai", "A"},
    {"ei", "E"},
    {"ou", "O"},
    {"ae", "E"},
    {"oe", "O"},
    {"jose", "JS"},
    {"juan", "JN"},
    {"jorge", "JRG"},
    {"garcia", "KRX"},
    {"gonzalez", "KNSL"},
    {"rodriguez", "RTRK"},
    {"hernandez", "HRNN"},
    {"lopez", "LPS"},
    {"martinez", "MRTN"},
    {"nguyen", "NKYN"},
    {"tran", "TRN"},
    {"le", "L"},
    {"pham", "FM"},
    {"hoang", "HNK"},
    {"phan", "FN"},
    {"vu", "F"},
    {"vo", "F"},
    {"dang", "TNK"},
    {"bui", ""},
    {"mohammed", "MHMT"},
    {"muhammad", "MHMT"},
    {"ahmed", "AMT"},
    {"ali", "AL"},
    {"hassan", "HSN"},
    {"hussein", "HSN"},
    {"wang", "WNK"},
    {"li", "L"},
    {"zhang", "SHNK"},
    {"liu", "L"},
    {"chen", "XN"},
    {"yang", "YNK"},
    {"huang", "HNK"},
    {"zhao", "SH"},
    {"wu", "W"},
    {"zhou", "SH"},
    {"kowalski", "KWLS"},
    {"nowak", "NWK"},
    {"wisniewski", "WSNS"},
    {"wojcik", "WJSK"},
    {"kaminski", "KMNS"},
    {"abcdefghijklmnopqrstuvwxyzabcdefghij", "AKTF"},
    {"aeiouaeiouaeiou", "E"},
    {"bcdfghjklmnpqrstvwxz", "KTFK"},
    {"cc", "KK"},
    {"ccc", "KKK"},
    {"scc", "SKK"},
    {"sci", "S"},
    {"sce", "S"},
    {"scy", "S"},
    {"acia", "AX"},
    {"tia", "X"},
    {"tio", "X"},
    {"sia", "X"},
    {"sio", "X"},
    {"dg", "TK"},
    {"dge", "J"},
    {"dgi", "J"},
    {"dgy", "J"},
    {"gned", "NT"},
    {"gn", "N"},
    {"gnx", "NKS"},
    {"agn", "AKN"},
    {"agned", "ANT"},
    {"hh", "H"},
    {"hhh", "H"},
    {"ah", "A"},
    {"eh", "E"},
    {"ih", "I"},
    {"oh", "O"},
    {"uh", "U"},
    {"bh", "H"},
    {"ch", "K"},
    {"dh", "TH"},
    {"gh", "K"},
    {"ph", "F"},
    {"sh", "X"},
    {"wh", ""},
    {"kn", "N"},
    {"pn", "N"},
    {"wr", "R"},
};

std::vector<std::string> IndexCodes(std::string_view normalized) {
  std::vector<std::string> codes;
  REQUIRE(ApproxIndexCodes(normalized, &codes).ok());
  return codes;
}

TEST_CASE("phonetic codes are slapadd's") {
  for (const Known& k : kSlapaddCodes) {
    CAPTURE(k.word);
    CHECK(PhoneticCode(k.word) == k.code);
  }
}

TEST_CASE("a word ends at a digit, punctuation, a space or a byte outside ASCII") {
  // slapadd: "o'brien" -> O, "123abc" and "-dash" -> no key,
  // "john.smith@example.com" (mail, IA5) -> JN.
  CHECK(PhoneticCode("o'brien") == "O");
  CHECK(PhoneticCode("123abc") == "");
  CHECK(PhoneticCode("-dash") == "");
  CHECK(PhoneticCode("john.smith@example.com") == "JN");
  CHECK(PhoneticCode("smith jones") == "SM0");
  CHECK(PhoneticCode("") == "");
}

TEST_CASE("values in words: slapadd's keys of multi-word and non-ASCII values") {
  // The keys slapadd stored for these description values (normalized by
  // caseIgnoreMatch first, as slapd indexes its stored copies).
  CHECK(IndexCodes("knight phone xavier wright o'brien 123abc -dash \xc3\xa9mile m\xc3\xbcller "
                   "\xe4\xb8\xad\xe6\x96\x87 ab") ==
        std::vector<std::string>{"NKT", "FN", "SFR", "RKT", "O", "EML", "MLR", "AB"});
  CHECK(IndexCodes("na\xc3\xafve caf\xc3\xa9") == std::vector<std::string>{"NF", "KF"});
  CHECK(IndexCodes("\xe4\xb8\xad\xe6\x96\x87 smith") == std::vector<std::string>{"SM0"});
  CHECK(IndexCodes("\xef\xac\x81sh") == std::vector<std::string>{"FX"});  // U+FB01 fi
  CHECK(IndexCodes("\xe2\x85\xab") == std::vector<std::string>{"S"});     // U+216B XII
  CHECK(IndexCodes("stra\xc3\x9f"
                   "e") == std::vector<std::string>{"STR"});               // sharp s: none
  CHECK(IndexCodes("\xc5\x82ukasz") == std::vector<std::string>{"UKSS"});  // l-stroke: none
  CHECK(IndexCodes("\xc7\x86"
                   "emal") == std::vector<std::string>{"TSML"});           // U+01C6 dz
  CHECK(IndexCodes("\xc5\x93uvre") == std::vector<std::string>{"UFR"});    // oe: none
  CHECK(IndexCodes("\xc4\xb3ssel") == std::vector<std::string>{"IJSL"});   // U+0133 ij
  CHECK(IndexCodes("\xe2\x93\x90nna") == std::vector<std::string>{"AN"});  // circled a
  CHECK(IndexCodes("\xef\xbd\x94\xef\xbd\x8f\xef\xbd\x8d") ==
        std::vector<std::string>{"TM"});  // fullwidth
  CHECK(IndexCodes("").empty());
  CHECK(IndexCodes("123 -- 456").empty());
}

TEST_CASE("NormalizeApprox keeps the ASCII of each code point's decomposition") {
  std::string out;
  REQUIRE(lunicode::NormalizeApprox("\xc3\x89mile M\xc3\xbcller", false, &out).ok());
  CHECK(out == "Emile Muller");
  REQUIRE(lunicode::NormalizeApprox("\xc3\x89mile M\xc3\xbcller", true, &out).ok());
  CHECK(out == "emile muller");
  REQUIRE(lunicode::NormalizeApprox("a \xe4\xb8\xad b", false, &out).ok());
  CHECK(out == "a  b");
  // U+0130 folds to 'i' (slapd's uctolower), otherwise decomposes to I + dot.
  REQUIRE(lunicode::NormalizeApprox("\xc4\xb0", true, &out).ok());
  CHECK(out == "i");
  REQUIRE(lunicode::NormalizeApprox("\xc4\xb0", false, &out).ok());
  CHECK(out == "I");
  CHECK(!lunicode::NormalizeApprox("\xc3", false, &out).ok());
}

std::vector<std::string> ValueCodes(std::string_view v) {
  std::vector<std::string> codes;
  REQUIRE(ApproxValueCodes(v, &codes).ok());
  return codes;
}

std::vector<std::string> AssertionCodes(std::string_view v) {
  std::vector<std::string> codes;
  REQUIRE(ApproxAssertionCodes(v, &codes).ok());
  return codes;
}

bool Match(std::string_view value, std::string_view assertion) {
  return ApproxCodesMatch(ValueCodes(value), AssertionCodes(assertion));
}

TEST_CASE("approxMatch: the assertion's words, in order, among the value's") {
  // Each answer is slapd's, searching these values with ldapsearch.
  CHECK(Match("smith", "smyth"));
  CHECK(Match("diana yamamoto", "diana"));
  CHECK(Match("diana yamamoto", "dianne yamamoto"));
  CHECK_FALSE(Match("diana yamamoto", "yamamoto diana"));
  CHECK_FALSE(Match("thompson", "tomson"));
  const std::string d =
      "knight phone xavier wright o'brien 123abc -dash \xc3\xa9mile m\xc3\xbcller "
      "\xe4\xb8\xad\xe6\x96\x87 ab";
  CHECK(Match(d, "123"));  // "" is the code of 123abc too
  CHECK(Match(d, "knight 123"));
  CHECK_FALSE(Match(d, "123 knight"));
  CHECK(Match(d, "o"));
  CHECK(Match(d, "o'brien"));
  CHECK_FALSE(Match(d, "o brien"));
  CHECK(Match(d, "-dash"));
  CHECK(Match(d, "emile"));
  CHECK(Match("john.smith@example.com", "jon.x"));
  CHECK_FALSE(Match("john.smith@example.com", "x jon"));
  // No words: no match (slapd: nothing for "(description~=<CJK>)").
  CHECK_FALSE(Match(d, ""));
  CHECK_FALSE(Match(d, "   "));
  // Spaces left where characters were dropped are empty words of the value.
  CHECK(ValueCodes("a  b") == std::vector<std::string>{"A", "", "B"});
  CHECK(AssertionCodes("  a  b ") == std::vector<std::string>{"A", "B"});
}

TEST_CASE("which equality rules carry slapd's approximate rule") {
  for (const char* name :
       {"caseIgnoreMatch", "caseExactMatch", "caseIgnoreIA5Match", "caseExactIA5Match"}) {
    CAPTURE(name);
    CHECK(HasApproxRule(FindMatchingRule(name)));
  }
  for (const char* name : {"telephoneNumberMatch", "integerMatch", "distinguishedNameMatch",
                           "caseIgnoreListMatch", "numericStringMatch", "octetStringMatch",
                           "caseIgnoreSubstringsMatch", "caseIgnoreOrderingMatch"}) {
    CAPTURE(name);
    CHECK_FALSE(HasApproxRule(FindMatchingRule(name)));
  }
  CHECK_FALSE(HasApproxRule(nullptr));
}

}  // namespace
}  // namespace dirload
