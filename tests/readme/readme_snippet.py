#!/usr/bin/env python3
"""Runs a README's example exactly as written (issue 40).

    readme_snippet.py extract README LANG [--section TITLE]
        prints the first ```LANG fenced block of the "## TITLE" section
        (default "Example")

    readme_snippet.py run --readme README --lang LANG --work DIR [options]
        writes that block to a file in a fresh DIR, builds it if the language
        needs it, runs it there and checks that it exits 0 and prints text
        matching --expect (default: anything but white space)

The snippets name their model files by relative path (stories260K.bin,
tok512.bin): --model-file copies such files into DIR, where the program runs.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(```+|~~~+)\s*([^\s`]*)")


class SnippetError(Exception):
    pass


def extract(readme, lang, section="Example"):
    """The first fenced block tagged `lang` in the level-2 section `section`."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    heading = "## " + section
    try:
        start = next(i for i, line in enumerate(lines) if line.rstrip() == heading)
    except StopIteration:
        raise SnippetError(f'{readme} has no "{heading}" heading')
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            break
        fence = FENCE.match(line)
        if not fence:
            i += 1
            continue
        marker, tag = fence.group(1), fence.group(2)
        end = i + 1
        while end < len(lines) and not lines[end].startswith(marker):
            end += 1
        if end == len(lines):
            raise SnippetError(f"{readme}:{i + 1}: the fenced block is not closed")
        if tag == lang:
            return "\n".join(lines[i + 1 : end]) + "\n"
        i = end + 1
    raise SnippetError(f'{readme}: no ```{lang} block in its "{heading}" section')


def run(command, work, env, timeout=600, capture=False):
    shown = " ".join(command)
    print(f"$ {shown}", flush=True)
    try:
        result = subprocess.run(
            command, cwd=work, env=env, timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
    except subprocess.TimeoutExpired:
        raise SnippetError(f"{shown}: still running after {timeout} s")
    except OSError as e:
        raise SnippetError(f"{shown}: {e}")
    output = result.stdout.decode("utf-8", errors="replace")
    if result.returncode != 0:
        raise SnippetError(f"{shown} exited with {result.returncode}:\n{output}")
    if not capture:
        sys.stdout.write(output)
    return output


def need(args, *names):
    missing = [n for n in names if not getattr(args, n.replace("-", "_"))]
    if missing:
        raise SnippetError(f"--lang {args.lang} needs " + ", ".join("--" + n for n in missing))


def build_c(args, work, env):
    need(args, "cc", "include", "lib")
    libdir = os.path.dirname(os.path.abspath(args.lib))
    run(
        [args.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", args.include, "-o", "example", "example.c", args.lib]
        + [f"-Wl,-rpath,{libdir}"]
        + args.link,
        work,
        env,
    )
    return [os.path.join(work, "example")]


def build_go(args, work, env):
    # A module of its own, set up as the README's Install says: the replace
    # points at bindings/go (the module path is not served yet), then go get.
    need(args, "go", "go-module")
    run([args.go, "mod", "init", "example.com/readme"], work, env)
    run([args.go, "mod", "edit", f"-replace=libllm.dev/llm={args.go_module}"], work, env)
    run([args.go, "get", "libllm.dev/llm"], work, env)
    run([args.go, "build", "-o", "example", "."], work, env)
    return [os.path.join(work, "example")]


def build_node(args, work, env):
    # node_modules/libllm is the package folder with its addon built in place
    # by `npm install` (what installing the tarball does); built here if missing.
    need(args, "node", "node-package")
    os.makedirs(os.path.join(work, "node_modules"))
    os.symlink(args.node_package, os.path.join(work, "node_modules", "libllm"))
    probe = subprocess.run([args.node, "-e", "require('libllm')"], cwd=work, env=env, capture_output=True)
    if probe.returncode != 0:
        need(args, "npm")
        print("the addon does not load; building it with npm install:", probe.stderr.decode(errors="replace"))
        run([args.npm, "install", "--no-audit", "--no-fund"], args.node_package, env, timeout=1800)
    return [args.node, "example.mjs"]


def build_csharp(args, work, env):
    # The NuGet layout as an app's build output has it: lib/netstandard2.0/*
    # and runtimes/ next to the program (Llm.dll.config maps the native library).
    need(args, "mcs", "mono", "csharp-layout")
    lib = os.path.join(args.csharp_layout, "lib", "netstandard2.0")
    if not os.path.isdir(lib):
        raise SnippetError(f"{lib} does not exist: build the llm_csharp_nuget target")
    for name in os.listdir(lib):
        shutil.copy(os.path.join(lib, name), work)
    shutil.copytree(os.path.join(args.csharp_layout, "runtimes"), os.path.join(work, "runtimes"))
    run([args.mcs, "-nologo", "-warnaserror", "-out:example.exe", "-r:Llm.dll", "example.cs"], work, env)
    return [args.mono, "example.exe"]


def build_lua(args, work, env):
    need(args, "lua")
    return [args.lua, "example.lua"]


LANGUAGES = {
    "c": ("example.c", build_c),
    "go": ("main.go", build_go),
    "js": ("example.mjs", build_node),
    "csharp": ("example.cs", build_csharp),
    "lua": ("example.lua", build_lua),
}


def run_snippet(args):
    file_name, build = LANGUAGES[args.lang]
    code = extract(args.readme, args.lang, args.section)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(os.path.join(work, file_name), "w", encoding="utf-8") as f:
        f.write(code)
    for model_file in args.model_file:
        shutil.copy(model_file, work)

    env = dict(os.environ)
    for name in args.unset_env:
        env.pop(name, None)
    for assignment in args.env:
        name, _, value = assignment.partition("=")
        env[name] = value

    print(f"--- {file_name}, from {args.readme}:\n{code}---", flush=True)
    command = build(args, work, env) + args.arg
    output = run(command, work, env, capture=True)
    print(f"--- output:\n{output}---")
    if not re.search(args.expect, output, re.DOTALL):
        raise SnippetError(f"the output does not match {args.expect!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    ex = commands.add_parser("extract", help="print a README's snippet")
    ex.add_argument("readme")
    ex.add_argument("lang")
    ex.add_argument("--section", default="Example")

    r = commands.add_parser("run", help="run a README's snippet")
    r.add_argument("--readme", required=True)
    r.add_argument("--lang", required=True, choices=sorted(LANGUAGES))
    r.add_argument("--section", default="Example")
    r.add_argument("--work", required=True, help="a folder to create afresh")
    r.add_argument("--model-file", action="append", default=[], help="copied into the folder")
    r.add_argument("--arg", action="append", default=[], help="an argument of the program")
    r.add_argument("--expect", default=r"\S", help="a regular expression the output must match")
    r.add_argument("--env", action="append", default=[], help="NAME=VALUE for every command")
    r.add_argument("--unset-env", action="append", default=[], help="NAME removed for every command")
    r.add_argument("--link", action="append", default=[], help="an extra linker argument (C)")
    for tool in ("cc", "include", "lib", "go", "go-module", "node", "npm", "node-package", "mcs", "mono",
                 "csharp-layout", "lua"):
        r.add_argument("--" + tool)

    args = parser.parse_args()
    try:
        if args.command == "extract":
            sys.stdout.write(extract(args.readme, args.lang, args.section))
        else:
            run_snippet(args)
    except SnippetError as e:
        print(f"readme_snippet: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
