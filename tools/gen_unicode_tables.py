#!/usr/bin/env python3
"""Generates src/tokenizer/unicode_tables.cpp (and the NFC/NFD test vectors
tests/data/normalization_cases.txt) from the Unicode Character Database.

The UCD comes from Debian's `unicode-data` package (/usr/share/unicode). The
generated files are committed, so building libllm does not need that package;
only re-running this script does:

    tools/gen_unicode_tables.py [--ucd /usr/share/unicode]

What the tokenizer needs (see src/tokenizer/unicode_data.h):
  * per code point: general category, White_Space, and whether NFC may change
    it (NFC_Quick_Check != Yes or a non-zero combining class) -> a two-stage
    table of one byte per code point;
  * canonical combining classes, full canonical decompositions and the
    primary composites (canonical pairs minus Full_Composition_Exclusion);
  * simple case folding (CaseFolding.txt statuses C and S) for regex (?i).
"""

import argparse
import bz2
import os
import sys

# Must match enum class GeneralCategory in src/tokenizer/unicode_data.h.
CATEGORIES = [
    "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
    "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn",
]
MAX_CP = 0x110000
WHITE_SPACE_BIT = 0x20
NFC_CHECK_BIT = 0x40


def data_lines(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [field.strip() for field in line.split(";")]


def cp_range(text):
    if ".." in text:
        a, b = text.split("..")
        return range(int(a, 16), int(b, 16) + 1)
    return range(int(text, 16), int(text, 16) + 1)


def read_unicode_data(ucd):
    category = [CATEGORIES.index("Cn")] * MAX_CP
    ccc = {}
    decomposition = {}
    first = None
    for fields in data_lines(os.path.join(ucd, "UnicodeData.txt")):
        cp, name, gc = int(fields[0], 16), fields[1], CATEGORIES.index(fields[2])
        if name.endswith(", First>"):
            first = cp
            continue
        start = first if name.endswith(", Last>") else cp
        first = None
        for c in range(start, cp + 1):
            category[c] = gc
            if int(fields[3]):
                ccc[c] = int(fields[3])
        if fields[5] and not fields[5].startswith("<"):
            decomposition[cp] = [int(x, 16) for x in fields[5].split()]
    return category, ccc, decomposition


def read_property(path, name, value=None):
    result = set()
    for fields in data_lines(path):
        if fields[1] == name and (value is None or fields[2] == value):
            result.update(cp_range(fields[0]))
    return result


def full_decomposition(cp, decomposition):
    if cp not in decomposition:
        return [cp]
    out = []
    for c in decomposition[cp]:
        out.extend(full_decomposition(c, decomposition))
    return out


def two_stage(values, block):
    blocks, index, stage2 = {}, [], []
    for start in range(0, MAX_CP, block):
        chunk = tuple(values[start:start + block])
        if chunk not in blocks:
            blocks[chunk] = len(blocks)
            stage2.extend(chunk)
        index.append(blocks[chunk])
    return index, stage2


def c_array(ctype, name, values, per_line=16, fmt="{}"):
    lines = [f"const {ctype} {name}[{len(values)}] = {{"]
    for i in range(0, len(values), per_line):
        lines.append("    " + ", ".join(fmt.format(v) for v in values[i:i + per_line]) + ",")
    lines.append("};")
    return "\n".join(lines)


def generate_tables(ucd):
    category, ccc, decomposition = read_unicode_data(ucd)
    derived = os.path.join(ucd, "DerivedNormalizationProps.txt")
    white_space = read_property(os.path.join(ucd, "PropList.txt"), "White_Space")
    nfc_not_yes = read_property(derived, "NFC_QC", "N") | read_property(derived, "NFC_QC", "M")
    exclusions = read_property(derived, "Full_Composition_Exclusion")

    props = []
    for cp in range(MAX_CP):
        v = category[cp]
        if cp in white_space:
            v |= WHITE_SPACE_BIT
        if cp in nfc_not_yes or cp in ccc:
            v |= NFC_CHECK_BIT
        props.append(v)
    block = min((64, 128, 256), key=lambda b: (lambda i, s: len(i) * 2 + len(s))(*two_stage(props, b)))
    index, stage2 = two_stage(props, block)
    shift = block.bit_length() - 1

    ccc_ranges = []
    for cp in sorted(ccc):
        if ccc_ranges and ccc_ranges[-1][1] == cp - 1 and ccc_ranges[-1][2] == ccc[cp]:
            ccc_ranges[-1][1] = cp
        else:
            ccc_ranges.append([cp, cp, ccc[cp]])

    decomp_entries, pool = [], []
    for cp in sorted(decomposition):
        full = full_decomposition(cp, decomposition)
        decomp_entries.append((cp, len(pool), len(full)))
        pool.extend(full)

    compositions = []
    for cp, parts in decomposition.items():
        if len(parts) == 2 and cp not in exclusions:
            compositions.append(((parts[0] << 21) | parts[1], cp))
    compositions.sort()

    folds = []
    for fields in data_lines(os.path.join(ucd, "CaseFolding.txt")):
        if fields[1] in ("C", "S"):
            folds.append((int(fields[0], 16), int(fields[2], 16)))
    folds.sort()

    out = [
        "// GENERATED by tools/gen_unicode_tables.py from the Unicode Character",
        "// Database (Debian package unicode-data). Do not edit by hand.",
        '#include "tokenizer/unicode_data.h"',
        "",
        "namespace llm {",
        "namespace unicode_tables {",
        "",
    ]
    for i, name in enumerate(CATEGORIES):
        out.append(f"static_assert(static_cast<int>(GeneralCategory::{name}) == {i}, "
                   f'"GeneralCategory order differs from the generator");')
    out += [
        "",
        f"const int kPropBlockShift = {shift};",
        c_array("uint16_t", "kPropIndex", index, 24),
        c_array("uint8_t", "kPropBlocks", stage2, 32),
        "",
        f"const size_t kCombiningClassCount = {len(ccc_ranges)};",
        c_array("CombiningClassRange", "kCombiningClasses",
                [f"{{0x{a:x}, 0x{b:x}, {c}}}" for a, b, c in ccc_ranges], 6),
        "",
        f"const size_t kDecompositionCount = {len(decomp_entries)};",
        c_array("Decomposition", "kDecompositions",
                [f"{{0x{a:x}, {o}, {n}}}" for a, o, n in decomp_entries], 6),
        c_array("uint32_t", "kDecompositionPool", pool, 12, "0x{:x}"),
        "",
        f"const size_t kCompositionCount = {len(compositions)};",
        c_array("Composition", "kCompositions", [f"{{0x{k:x}, 0x{c:x}}}" for k, c in compositions], 5),
        "",
        f"const size_t kCaseFoldCount = {len(folds)};",
        c_array("CaseFold", "kCaseFolds", [f"{{0x{a:x}, 0x{b:x}}}" for a, b in folds], 8),
        "",
        "} // namespace unicode_tables",
        "} // namespace llm",
        "",
    ]
    return "\n".join(out)


def generate_test_cases(ucd):
    """NormalizationTest.txt reduced to `source;NFC` (hex code points)."""
    out = [
        "# Derived from the Unicode Character Database NormalizationTest.txt by",
        "# tools/gen_unicode_tables.py: source;NFC, code points in hex.",
    ]
    with bz2.open(os.path.join(ucd, "NormalizationTest.txt.bz2"), "rt", encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line or line.startswith("@"):
                continue
            c = line.split(";")
            out.append(f"{c[0]};{c[1]}")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ucd", default="/usr/share/unicode")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "src/tokenizer/unicode_tables.cpp"))
    parser.add_argument("--tests", default=os.path.join(root, "tests/data/normalization_cases.txt"))
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.ucd, "UnicodeData.txt")):
        sys.exit(f"{args.ucd}/UnicodeData.txt not found: apt-get install unicode-data")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(generate_tables(args.ucd))
    os.makedirs(os.path.dirname(args.tests), exist_ok=True)
    with open(args.tests, "w", encoding="utf-8") as f:
        f.write(generate_test_cases(args.ucd))


if __name__ == "__main__":
    main()
