#!/usr/bin/env python3
"""Doxygen input filter for include/llm.h.

llm.h is written in plain C comments so that it reads well as a header. This
filter shows Doxygen the same text as documentation, without changing the
file: a comment block before a declaration becomes a /** block, a comment
after code on the same line becomes /**<, and a run of #defines under one
comment becomes a member group that shares it. Section rulers
("/* ---- context ---- */") become plain // comments.
"""
import re
import sys

RULER = re.compile(r"^\s*/\*\s*-{2,}.*-{2,}\s*\*/\s*$")
DECL_START = re.compile(r"^(#define\s+LLM_\w+|LLM_API\s)")


def filter_lines(lines):
    out = []
    i = 0
    first_comment = True
    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if RULER.match(line):
            out.append("// " + stripped.strip("/* -") + "\n")
            i += 1
            continue
        if stripped.startswith("/*") and not stripped.startswith("/**"):
            # a comment block: collect it
            j = i
            block = []
            while True:
                block.append(lines[j])
                if "*/" in lines[j]:
                    break
                j += 1
            if first_comment:
                block[0] = block[0].replace("/*", "/** @file llm.h\n *", 1)
                first_comment = False
                out.extend(block)
                i = j + 1
                continue
            # what follows the comment?
            k = j + 1
            while k < n and not lines[k].strip():
                k += 1
            nxt = lines[k] if k < n else ""
            if nxt.strip().startswith(("#ifndef", "#endif", "#if ", "#ifdef", "#else", "#elif")):
                out.extend(block)  # not documentation of a declaration
                i = j + 1
                continue
            block[0] = block[0].replace("/*", "/**", 1)
            i = j + 1
            # a paragraph of several declarations under one comment (a run of
            # #defines, a list of getters) is a member group sharing it
            run_end = k
            while (run_end + 1 < n and lines[run_end + 1].strip()
                   and not lines[run_end + 1].strip().startswith("/*")):
                run_end += 1
            paragraph = lines[k : run_end + 1]
            starts = sum(1 for l in paragraph if DECL_START.match(l))
            if starts > 1 and not any(l.strip().startswith("typedef struct") for l in paragraph):
                out.append("/**@{*/\n")
                out.extend(block)
                out.extend(lines[i:k])
                out.extend(trailing(l) for l in paragraph)
                out.append("/**@}*/\n")
                i = run_end + 1
            else:
                out.extend(block)
            continue
        out.append(trailing(line))
        i += 1
    return out


TAG = re.compile(r"<(/?[A-Za-z_|][^<>\s]*)>")
STRUCT_SIZE = re.compile(r"^(\s*uint32_t struct_size;)\s*$")


def in_comment(line):
    """Text such as <think> in a comment is not HTML to Doxygen."""
    return TAG.sub(lambda m: "\\<" + m.group(1) + "\\>", line)


def trailing(line):
    m = STRUCT_SIZE.match(line)
    if m:
        return m.group(1) + " /**< sizeof the struct, set by its *_default_params() */\n"
    # code followed by a comment on the same line: document the member
    m = re.match(r"^(\s*[^\s/].*?)(/\*)(?!\*)(.*)$", line)
    if m and not m.group(1).strip().startswith("*"):
        return m.group(1) + "/**<" + m.group(3) + "\n"
    return line


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.readlines()
    out, inside = [], False
    for line in filter_lines(lines):
        if "/*" in line or inside:
            line = in_comment(line)
            inside = "*/" not in line[line.find("/*") if "/*" in line else 0 :]
        out.append(line)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
