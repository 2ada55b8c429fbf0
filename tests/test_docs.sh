#!/bin/sh
# tests/test_docs.sh - the documents say what the code does:
#
#   1. every relative link and image of README.md, BENCHMARKS.md and doc/*.md
#      names a file or folder of the tree;
#   2. every LF_* variable that lib/platform/env.c reads, and any other that
#      the shims (lib/shim, lib/gomp, lib/kmp) name, has a row in README.md's
#      environment table;
#   3. every schedule of the registry (tests/list-schedules, built from
#      lib/policy/registry.c) has a row in doc/schedules.md;
#   4. README.md's ```c and ```cpp blocks compile (warnings as errors) and
#      link as a shared object against this build's libloopfarm;
#   5. README.md's headline table is what scripts/bench-matrix.sh --from
#      computes from the committed matrix it names; README.md and
#      BENCHMARKS.md stay within 300 lines, the headline and its picture
#      within README.md's first 80; no file names a DESIGN.md that the tree
#      does not hold.
#
# Run from the build directory (make check).  --self-test breaks a link and
# drops a variable's row in a copy of the documents and expects the check
# to fail on each, naming it.
top=${srcdir:-.}
build=$(pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the checks are in Python)"; exit 77; }

if [ "${1:-}" = --self-test ]; then
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    st=0
    for breakage in link variable; do
        rm -rf "$tmp/src" && mkdir "$tmp/src"
        (cd "$top" && tar cf - --exclude=./build --exclude=./.git .) | (cd "$tmp/src" && tar xf -)
        case $breakage in
        link) sed -i 's|(doc/auto.md)|(doc/no-such-page.md)|' "$tmp/src/README.md"; want='doc/no-such-page.md' ;;
        variable) sed -i '/^| `LF_CLOCK/d' "$tmp/src/README.md"; want='LF_CLOCK' ;;
        esac
        out=$(srcdir="$tmp/src" sh "$0" 2>&1)
        if [ $? -eq 0 ]; then
            echo "FAIL: self-test: a broken $breakage passed"; st=1
        elif ! echo "$out" | grep -q "$want"; then
            echo "FAIL: self-test: a broken $breakage failed without naming $want:"; echo "$out"; st=1
        else
            echo "ok: self-test: a broken $breakage fails:"; echo "$out" | grep "$want" | sed 's/^/    /'
        fi
    done
    exit $st
fi

[ -x "$build/tests/list-schedules" ] || { echo "FAIL: $build/tests/list-schedules not built"; exit 1; }
[ -f "$build/.libs/libloopfarm.so" ] || { echo "FAIL: $build/.libs/libloopfarm.so not built"; exit 1; }
schedules=$("$build/tests/list-schedules") || { echo "FAIL: tests/list-schedules failed"; exit 1; }

LF_SCHEDULES="$schedules" python3 - "$top" "$build" <<'PYEOF'
import glob, os, re, subprocess, sys, tempfile

top, build = sys.argv[1], sys.argv[2]
fails = []
def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)

def read(rel):
    with open(os.path.join(top, rel), encoding="utf-8") as f:
        return f.read()

def prose(text):
    """The text outside fenced code blocks."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        out.append("" if fenced else line)
    return "\n".join(out)

# 1. relative links and images
docs = ["README.md", "BENCHMARKS.md"] + sorted(
    os.path.relpath(p, top) for p in glob.glob(os.path.join(top, "doc", "*.md")))
links = 0
for d in docs:
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose(read(d))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = target.split("#")[0]
        links += 1
        if not os.path.exists(os.path.normpath(os.path.join(top, os.path.dirname(d), path))):
            fail("%s: link to %s: no such file or folder" % (d, target))
print("links: %d relative links in %d documents checked" % (links, len(docs)))

# 2. the environment table
readme = read("README.md")
rows = set(re.findall(r"^\| `(LF_[A-Z0-9_]+)", readme, re.M))
names = set(re.findall(r'"(LF_[A-Z0-9_]+)"', read("lib/platform/env.c")))
for pat in ("lib/shim/*.c", "lib/gomp/*.c", "lib/kmp/*.c"):
    for p in glob.glob(os.path.join(top, pat)):
        names |= set(re.findall(r'getenv\("(LF_[A-Z0-9_]+)"\)', open(p).read()))
if not names:
    fail("lib/platform/env.c: no LF_* variable found (expected its table of names)")
for n in sorted(names - rows):
    fail("README.md: %s is read (lib/platform/env.c or a shim) but has no row in the "
         "environment table (a line starting | `%s)" % (n, n))
print("environment: %d variables, %d documented" % (len(names), len(names & rows)))

# 3. the registry in doc/schedules.md
firsts = [l.split("|")[1] for l in read("doc/schedules.md").split("\n")
          if l.startswith("|") and l.count("|") >= 3]
scheds = os.environ["LF_SCHEDULES"].split()
for s in scheds:
    if not any(re.search(r"`%s(?=[\[,`])" % re.escape(s), c) for c in firsts):
        fail("doc/schedules.md: schedule %s of the registry has no row (first column "
             "`%s`, `%s[,...]` or `%s,...`)" % (s, s, s, s))
print("schedules: %d in the registry, each checked in doc/schedules.md" % len(scheds))

# 4. README.md's C and C++ blocks compile against this build
blocks = re.findall(r"^```(c|cpp)\n(.*?)^```", readme, re.M | re.S)
if not blocks:
    fail("README.md: no ```c or ```cpp block found")
tmp = tempfile.mkdtemp()
for i, (lang, code) in enumerate(blocks):
    src = os.path.join(tmp, "snippet%d.%s" % (i, "c" if lang == "c" else "cc"))
    open(src, "w").write(code)
    cc = ["gcc", "-std=c11"] if lang == "c" else ["g++", "-std=c++17"]
    cmd = cc + ["-fopenmp", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                "-Wl,--no-undefined", "-I" + os.path.join(top, "include"), src,
                "-o", src + ".so", "-L" + os.path.join(build, ".libs"), "-lloopfarm", "-lm"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("README.md: ```%s block %d does not compile:\n%s\n%s" % (lang, i + 1, code, r.stdout))
print("snippets: %d README.md blocks compiled and linked" % len(blocks))

# 5. the headline, the sizes, DESIGN.md
lines = readme.split("\n")
m = re.search(r"\[doc/results/([^\]]*/matrix)/\]", readme)
if not m:
    fail("README.md: the headline names no doc/results/.../matrix/ folder")
else:
    csv = os.path.join(top, "doc", "results", m.group(1), "matrix.csv")
    r = subprocess.run(["sh", os.path.join(top, "scripts", "bench-matrix.sh"), "--from", csv,
                        "-o", tmp], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("bench-matrix.sh --from %s failed:\n%s" % (csv, r.stdout))
    else:
        head = "\n".join(lines[:80])
        for row in open(os.path.join(tmp, "headline.md")).read().strip().split("\n"):
            if row not in head:
                fail("README.md: the headline row computed from %s is not in the first 80 "
                     "lines: %s" % (csv, row))
if "doc/img/matrix-heatmap.png" not in "\n".join(lines[:80]):
    fail("README.md: the heat map (doc/img/matrix-heatmap.png) is not in the first 80 lines")
for d, most in (("README.md", 300), ("BENCHMARKS.md", 300)):
    n = read(d).count("\n")
    if n > most:
        fail("%s: %d lines, at most %d expected" % (d, n, most))
if not os.path.exists(os.path.join(top, "DESIGN.md")):
    for root, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in (".git", "build", "autom4te.cache", "_build",
                                                 "_inst") and not x.startswith("loopfarm-")]
        for f in files:
            p = os.path.join(root, f)
            if f.endswith((".png", ".csv", ".o", ".so", ".la", ".lo", ".a")) or \
                    os.path.relpath(p, top) == os.path.join("tests", "test_docs.sh"):
                continue
            try:
                if re.search(r"(?<![/\w])DESIGN\.md", open(p, errors="ignore").read()):
                    fail("%s names DESIGN.md, which the tree does not hold (doc/design.md)"
                         % os.path.relpath(p, top))
            except OSError:
                pass
sys.exit(1 if fails else 0)
PYEOF
