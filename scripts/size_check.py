#!/usr/bin/env python3
"""Fails when a C function is longer than --max-function lines or a C file longer than
--max-file lines (defaults 150 and 800), and prints every violation.

    scripts/size_check.py [--exclude DIR]... PATH...   (files, or folders searched for .c/.h)
    scripts/size_check.py --self-test                  the checker on synthetic input

A function is counted from the first line of its signature (static, return type, a signature
over several lines) to its closing brace, inclusive. The scan follows braces outside comments,
strings and character literals, so a `{` or `}` in a comment or string does not count, and a
top-level `{` is a function body only when the declaration before it ends with `)` and holds
no `=` (so initialisers and struct/enum/union bodies are not functions).
"""
import os
import re
import sys
import tempfile

MAX_FUNCTION = 150
MAX_FILE = 800


def strip(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of every function definition, 1-based."""
    code = strip(text)
    lines = code.split("\n")
    # preprocessor lines (and their continuations) do not take part in the scan
    keep = []
    cont = False
    for line in lines:
        is_pp = cont or line.lstrip().startswith("#")
        cont = is_pp and line.rstrip().endswith("\\")
        keep.append("" if is_pp else line)
    found = []
    depth = 0
    start = None  # (line, column) where the current top-level declaration began
    head = []  # its text up to the opening brace
    current = None
    for ln, line in enumerate(keep, 1):
        for col, ch in enumerate(line):
            if depth == 0:
                if start is None and not ch.isspace():
                    start = ln
                    head = []
                if ch == "{":
                    sig = "".join(head)
                    # a signature ends with its parameter list (or an attribute's); an
                    # initialiser has "=", a struct/enum/union body no ")" before "{"
                    is_function = sig.rstrip().endswith(")") and "=" not in sig
                    if is_function:
                        m = re.search(r"([A-Za-z_]\w*)\s*\(", sig)
                        current = (m.group(1) if m else "?", start)
                    else:
                        current = None
                    depth = 1
                    continue
                if ch == ";":
                    start = None
                    continue
                if start is not None:
                    head.append(ch)
            else:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        if current:
                            found.append((current[0], current[1], ln))
                        current = None
                        start = None
        if depth == 0 and start is not None:
            head.append(" ")
    return found


def check(paths, excludes, max_function=MAX_FUNCTION, max_file=MAX_FILE, out=sys.stdout):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith((".c", ".h"))]
        else:
            files.append(p)
    ex = [os.path.normpath(e) + os.sep for e in excludes]
    files = sorted(f for f in files if not any(os.path.normpath(f).startswith(e) for e in ex))
    bad = 0
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if count > max_file:
            print(f"{f}: {count} lines (more than {max_file})", file=out)
            bad += 1
        for name, first, last in functions(text):
            length = last - first + 1
            if length > max_function:
                print(f"{f}:{first}: {name}() is {length} lines (more than {max_function})",
                      file=out)
                bad += 1
    print(f"size-check: {len(files)} files, {bad} over the limits", file=out)
    return bad


def self_test():
    def body(n):  # a function of exactly n lines, with a multi-line static signature
        inner = "\n".join("    x += 1; /* { not a brace */" if i % 2 else '    s = "}";'
                          for i in range(n - 4))
        return ("static int\nlong_one(int a,\n         int b) {\n" + inner + "\n}\n")

    cases = [
        (body(150), 0, "a 150-line function passes"),
        (body(151), 1, "a 151-line function fails"),
        ("static const int t[] = {\n" + "1,\n" * 200 + "};\n", 0, "an initialiser is no function"),
        ("struct s {\n" + "int a;\n" * 200 + "};\n", 0, "a struct is no function"),
        ("int f(void) {\n    return 0;\n}\n" * 2 + "/*\n" + "\n" * 800 + "*/\n", 1,
         "an 800+-line file fails"),
        ("#define M(x) { x }\nint g(void)\n{\n" + "    ;\n" * 160 + "}\n", 1,
         "a brace on its own line and a macro"),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as d:
        for i, (text, want, what) in enumerate(cases):
            path = os.path.join(d, f"case{i}.c")
            with open(path, "w") as fh:
                fh.write(text)
            with open(os.devnull, "w") as null:
                got = check([path], [], out=null)
            status = "ok" if got == want else "FAILED"
            ok &= got == want
            print(f"self-test: {what}: {got} violations (want {want}) {status}")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    excludes, paths, i = [], [], 1
    while i < len(argv):
        if argv[i] == "--exclude" and i + 1 < len(argv):
            excludes.append(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if check(paths, excludes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
