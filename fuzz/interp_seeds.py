#!/usr/bin/env python3
"""Seed corpus for fuzz/ptx_interp_fuzzer: one kernel per file.

Usage: fuzz/interp_seeds.py OUT_DIR FILE...

FILE is PTX (a module with several kernels becomes one file per kernel, each keeping the rest of
the module: its .func, .global and .shared declarations) or C++ test source, whose raw string
literals holding an `.entry` become modules (a header is added where they have none). The
fuzzer launches at most 64 threads, so `.reqntid`/`.maxntid` directives asking for more are
dropped. Files are named after a hash of their text.
"""
import hashlib
import os
import re
import sys

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n\n"


def drop_large_shapes(text):
    def keep(m):
        threads = 1
        for v in re.findall(r"\d+", m.group(2)):
            threads *= int(v)
        return m.group(0) if threads <= 64 else ""

    return re.sub(r"(\.reqntid|\.maxntid)\s+([\d,\s]+)", keep, text)


def entry_spans(text):
    """(start, end) of every `.entry NAME(...) {...}`, braces matched."""
    spans = []
    for m in re.finditer(r"^[^\n]*\.entry\s+[\w$]+", text, re.M):
        at = text.find("{", m.end())
        depth = 0
        for end in range(at, len(text) if at >= 0 else at):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                spans.append((m.start(), end + 1))
                break
    return spans


def one_kernel_modules(text):
    spans = entry_spans(text)
    if len(spans) <= 1:
        return [text]
    out = []
    for keep in spans:
        t = text
        for span in reversed(spans):
            if span != keep:
                t = t[: span[0]] + t[span[1]:]
        out.append(t)
    return out


def modules_of(path):
    text = open(path, errors="replace").read()
    if not path.endswith(".cpp"):
        return one_kernel_modules(text)
    literals = re.findall(r'R"\((.*?)\)"', text, re.S)
    modules = [s if ".version" in s else HEADER + s for s in literals if ".entry" in s]
    return [k for m in modules for k in one_kernel_modules(m)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    count = 0
    for path in sys.argv[2:]:
        for module in modules_of(path):
            text = drop_large_shapes(module)
            name = hashlib.sha1(text.encode()).hexdigest()[:16] + ".ptx"
            with open(os.path.join(out_dir, name), "w") as f:
                f.write(text)
            count += 1
    print(f"{count} seeds in {out_dir}")


if __name__ == "__main__":
    main()
