#!/usr/bin/env python3
"""Generates lib/schema/lunicode_tables.cc: the Unicode tables slapd 2.5 folds
and normalises Directory Strings with.

slapd does not use a current Unicode database. OpenLDAP's liblunicode builds
its tables (ucdata/uctable.h, by ucdata/ucgendat.c) from the Unicode 3.2.0
UnicodeData.txt and CompositionExclusions.txt kept in its source tree, and its
tool derives them with rules of its own. This script applies the same rules to
the same two files, so the tables hold what slapd's lookups answer:

  lower case   uctolower(): a code point whose category is Ll is left alone;
               category Lu: its simple lowercase mapping, if it has one;
               any other code point: the lowercase field of its entry in the
               title-case table (category Lt with an upper or lower mapping),
               else itself. So U+24B6 (So, maps to U+24D0) and U+2160 (Nl) are
               not lowered, U+0130 becomes 'i'.
  combining    canonical combining classes as listed (non-zero only).
  decomposition
               every listed decomposition, canonical or compatibility (the tag
               dropped), each code point of it decomposed again, recursively,
               through the same table (uckdecomp), as far as slapd's lookup
               reaches (see below: not beyond U+1D60E).
  composition  pairs from canonical decompositions of exactly two code points
               as listed (before recursive expansion), minus the code points
               in CompositionExclusions.txt (uccomp).
Hangul syllables are not in the tables; they are computed (lunicode.cc).

Usage, from an OpenLDAP checkout or mirror:
  git -C OPENLDAP show OPENLDAP_REL_ENG_2_5_13:libraries/liblunicode/UnicodeData.txt > UnicodeData.txt
  git -C OPENLDAP show OPENLDAP_REL_ENG_2_5_13:libraries/liblunicode/CompositionExclusions.txt > CompositionExclusions.txt
  lib/schema/gen/gen_lunicode_tables.py UnicodeData.txt CompositionExclusions.txt > lib/schema/lunicode_tables.cc
(the same files are Unicode 3.2.0's UnicodeData-3.2.0.txt and
CompositionExclusions-3.2.0.txt). The inputs' SHA-256 are checked, so a table
is never built from another Unicode version by mistake.
"""

import hashlib
import sys

SHA256 = {
    "UnicodeData": "5e444028b6e76d96f9dc509609c5e3222bf609056f35e5fcde7e6fb8a58cd446",
    "CompositionExclusions": "1d3a450d0f39902710df4972ac4a60ec31fbcb54ffd4d53cd812fc1200c732cb",
}

# Ranges ucgendat replaces by a default entry (category Lo, Co or Cs): no case,
# no decomposition, no combining class. Keyed by the code of the "First" line.
RANGE_STARTS = {0x3400, 0x4E00, 0xAC00, 0xD800, 0xE000, 0xF900, 0x20000, 0xF0000, 0x100000}


def read_checked(path, name):
    data = open(path, "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        sys.exit(f"{path}: SHA-256 {digest} is not OpenLDAP 2.5's {name}.txt")
    return data.decode("ascii")


def hexes(field):
    return [int(x, 16) for x in field.split()]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    unicode_data = read_checked(sys.argv[1], "UnicodeData")
    exclusions_text = read_checked(sys.argv[2], "CompositionExclusions")

    lower = {}      # code -> what uctolower returns, where it differs
    ccc = {}        # code -> non-zero combining class
    canon = {}      # code -> canonical decomposition as listed
    compat = {}     # code -> any decomposition as listed (tag dropped)
    skip = 0
    skip_counts = {0xD800: 5}
    for line in unicode_data.splitlines():
        if not line or line.startswith("#"):
            continue
        if skip:
            skip -= 1
            continue
        f = line.split(";")
        code = int(f[0], 16)
        if code in RANGE_STARTS:
            skip = skip_counts.get(code, 1)
            continue
        category, klass, decomp = f[2], int(f[3] or 0), f[5]
        upper_map = int(f[12], 16) if f[12] else 0
        lower_map = int(f[13], 16) if f[13] else 0
        if klass:
            ccc[code] = klass
        if decomp:
            if decomp.startswith("<"):
                compat[code] = hexes(decomp[decomp.index(">") + 1:])
            else:
                canon[code] = hexes(decomp)
                compat[code] = hexes(decomp)
        if category == "Lt" and (upper_map or lower_map):
            if lower_map != code:
                lower[code] = lower_map  # ucgendat keeps even a missing (0) mapping
        elif category == "Lu" and lower_map and lower_map != code:
            lower[code] = lower_map

    def expand(code):
        out = []
        for c in compat[code]:
            out.extend(expand(c) if c in compat else [c])
        return out

    decomps = {code: expand(code) for code in compat}
    # uckdecomp() searches its table of (code, offset) pairs with the upper
    # bound set to the total number of decomposed code points, a count of
    # data words, not of pairs. Only the pairs whose word index lies below it
    # are ever found: in 2.5's tables the decompositions of U+1D60F and above
    # (the later mathematical alphanumerics, the CJK compatibility ideograph
    # supplement) are unreachable, and slapd leaves those characters as they
    # are. Keep exactly the reachable ones.
    total = sum(len(d) for d in decomps.values())
    reachable = sorted(decomps)[:(total - 1) // 2 + 1]
    decomps = {code: decomps[code] for code in reachable}

    excluded = set()
    for line in exclusions_text.splitlines():
        if not line or line.startswith("#"):
            continue
        excluded.add(int(line.split("#")[0].split()[0], 16))
    compose = sorted((d[0], d[1], code) for code, d in canon.items()
                     if len(d) == 2 and code not in excluded)

    ranges = []
    for code in sorted(ccc):
        if ranges and ranges[-1][1] == code - 1 and ranges[-1][2] == ccc[code]:
            ranges[-1][1] = code
        else:
            ranges.append([code, code, ccc[code]])

    w = sys.stdout.write
    w("// Generated by lib/schema/gen/gen_lunicode_tables.py from OpenLDAP 2.5's\n"
      "// liblunicode/UnicodeData.txt and CompositionExclusions.txt (Unicode 3.2.0).\n"
      "// Do not edit; rerun the script.\n")
    w("// clang-format off\n")
    w('#include "lib/schema/lunicode_tables.h"\n\nnamespace dirload::lunicode {\n\n')
    w(f"const CaseEntry kLowerCase[] = {{\n")
    for code in sorted(lower):
        w(f"  {{0x{code:X}, 0x{lower[code]:X}}},\n")
    w("};\nconst size_t kLowerCaseSize = sizeof(kLowerCase) / sizeof(kLowerCase[0]);\n\n")
    w("const ClassRange kCombiningClass[] = {\n")
    for a, b, k in ranges:
        w(f"  {{0x{a:X}, 0x{b:X}, {k}}},\n")
    w("};\nconst size_t kCombiningClassSize = sizeof(kCombiningClass) / sizeof(kCombiningClass[0]);\n\n")
    data = []
    index = []
    for code in sorted(decomps):
        index.append((code, len(data), len(decomps[code])))
        data.extend(decomps[code])
    w("const DecompEntry kDecomposition[] = {\n")
    for code, off, n in index:
        w(f"  {{0x{code:X}, {off}, {n}}},\n")
    w("};\nconst size_t kDecompositionSize = sizeof(kDecomposition) / sizeof(kDecomposition[0]);\n\n")
    w("const char32_t kDecompositionData[] = {\n")
    for i in range(0, len(data), 8):
        w("  " + " ".join(f"0x{c:X}," for c in data[i:i + 8]) + "\n")
    w("};\n\n")
    w("const CompositionEntry kComposition[] = {\n")
    for a, b, c in compose:
        w(f"  {{0x{a:X}, 0x{b:X}, 0x{c:X}}},\n")
    w("};\nconst size_t kCompositionSize = sizeof(kComposition) / sizeof(kComposition[0]);\n\n")
    w("}  // namespace dirload::lunicode\n")


if __name__ == "__main__":
    main()
