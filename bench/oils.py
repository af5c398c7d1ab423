#!/usr/bin/env python3
"""How often guard-sh does what bash does on the Oils spec suite.

Every case of the chosen spec files (`#### name`, its code up to the first
`## ` line) runs under bash and under guard-sh in a built arm (the tea arm,
Landlock on), each with the code on stdin in a fresh folder, as the Oils
runner feeds it; a case matches when stdout and exit status agree. A case
guard-sh refused (its stderr says `denied`) is counted apart from one it got
wrong. Each shell runs in a folder of its own (guard-sh's in the arm), so
the folder's path and the checkout's are compared by name. The spec helpers (argv.py and its kind) are one native program both
shells run (bench/oils_helpers.c), added to the arm as utilities with the
utilities the cases use (`od`, `touch`, `rm`, …; the shipped arms leave
them out): the figure is the shell's, not the arm's. What stays
refused is the policy's: `PATH=` assignments, `sed`, `env`, path-qualified
names.

    python3 bench/oils.py --oils OILS_CHECKOUT [--files a.test.sh ...]
                          [--show-failures] [--cases REGEX]

The figure is written to docs/bash.md by hand. The file list below is the
part of the suite an agent's command lines use; `--files all` runs every
bash-relevant file.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

AGENT_FILES = [
    # The categories the conformance issue counted.
    "builtin-printf", "vars-special", "assign-extended", "background",
    "var-op-test", "extglob-match", "dbracket", "builtin-set", "builtin-cd",
    "brace-expansion", "var-op-strip", "builtin-trap", "command_",
    "exit-status", "here-doc", "redirect",
    # What every agent line leans on.
    "smoke", "quote", "word-split", "var-sub-quote", "var-op-patsub",
    "var-op-slice", "var-op-len", "arith", "array", "assign", "case_",
    "loop", "if_", "pipeline", "command-sub", "sh-func", "builtin-echo",
    "builtin-read", "builtin-bracket", "builtin-eval-source", "errexit",
    "glob", "tilde", "redirect-command", "shell-grammar",
]

NOT_BASH = re.compile(r"^(ysh-|hay|zsh-|ble-|toysh|osh-|errexit-osh|interactive|"
                      r"builtin-completion|builtin-bind|prompt|builtin-fc|"
                      r"builtin-history|sh-usage|spec-harness)")

HELPERS = ["argv.py", "printenv.py", "stdout_stderr.py", "read_from_fd.py"]
# Utilities the cases use that the shipped arms leave out: the figure is
# the shell's, so the measuring arm adds them (none starts a program;
# `sed` can, with its `e` command, and stays refused whatever the arm says).
FILE_UTILITIES = ["od", "touch", "chmod", "rm", "ln", "mkfifo", "hostname", "whoami", "which"]
TIMEOUT = 10
# What the Oils runner gives every case besides the code. `$SH` names the
# shell under test: `bash` for both (found on PATH by bash; in guard-sh a
# new shell of its own interpreter).
RUNNER_VARS = ["TMP", "REPO_ROOT", "SH"]


def cases(path):
    """(name, code) of each case of one spec file."""
    out, name, code, in_code = [], None, [], False
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#### "):
                if name is not None:
                    out.append((name, "".join(code)))
                name, code, in_code = line[5:].strip(), [], True
            elif name is not None and in_code:
                if line.startswith("## "):
                    in_code = False
                else:
                    code.append(line)
    if name is not None:
        out.append((name, "".join(code)))
    return out


def run(argv, code, cwd, env):
    try:
        p = subprocess.run(argv, input=code.encode("utf-8", "surrogateescape"),
                           cwd=cwd, env=env, capture_output=True,
                           timeout=TIMEOUT)
        return p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b""), b"TIMEOUT", None


def build_arm(root, repo_dir, guard_dir):
    """The tea arm with the helpers as utilities; returns (arm, env)."""
    stubs = os.path.join(root, "stubs")
    os.makedirs(stubs)
    helper = os.path.join(stubs, "oils_helpers")
    subprocess.run(["gcc", "-O2", "-o", helper,
                    os.path.join(repo_dir, "bench", "oils_helpers.c")],
                   check=True)
    for name in HELPERS:
        os.link(helper, os.path.join(stubs, name))
    shutil.copy("/bin/echo", os.path.join(stubs, "tea"))
    arms = os.path.join(root, "arms")
    shutil.copytree(os.path.join(repo_dir, "arms"), arms)
    harmless = os.path.join(arms, "harmless.toml")
    with open(harmless) as f:
        text = f.read()
    # The runner's own variables (a scratch folder, the suite's checkout):
    # bash sees them, so the measuring arm lets the shell see them too.
    text = text.replace('"TMPDIR",', '"TMPDIR", ' + ", ".join(f'"{v}"' for v in RUNNER_VARS) + ",", 1)
    with open(harmless, "w") as f:
        f.write(text)
    with open(harmless, "a") as f:
        for name in HELPERS + FILE_UTILITIES:
            f.write(f'\n# Used by the Oils spec cases.\n[utilities."{name}"]\n')
    arm = os.path.join(root, "arm")
    env = dict(os.environ, PATH=f"{stubs}:{guard_dir}:/usr/bin:/bin",
               T="abcdefghijklmnopqrstuvwxyz")
    subprocess.run([os.path.join(guard_dir, "arm-build"), "tea", "--arms", arms,
                    "--host", "http://127.0.0.1:9", "--repo", "o/r",
                    "--token-env", "T", "--out", arm,
                    "--guard-sh", os.path.join(guard_dir, "guard-sh")],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(arm, "arm.json")) as f:
        shell_env = json.load(f)["shell"]["env"]
    return arm, stubs, shell_env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oils", required=True, help="an Oils checkout (has spec/)")
    ap.add_argument("--files", nargs="*", default=None)
    ap.add_argument("--bin", default=None, help="folder with guard-sh and arm-build "
                    "(default: target/release)")
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--cases", default=None, help="only cases whose name matches")
    args = ap.parse_args()
    repo_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    guard_dir = os.path.abspath(args.bin or os.path.join(repo_dir, "target", "release"))
    spec = os.path.join(args.oils, "spec")
    if args.files == ["all"]:
        names = sorted(f[:-len(".test.sh")] for f in os.listdir(spec)
                       if f.endswith(".test.sh") and not NOT_BASH.match(f))
    else:
        names = [f.removesuffix(".test.sh") for f in (args.files or AGENT_FILES)]
    bash = shutil.which("bash")
    root = tempfile.mkdtemp(prefix="oils-")
    try:
        arm, stubs, shell_env = build_arm(root, repo_dir, guard_dir)
        # Commands of an arm read nothing outside it: the cases' data files
        # are copied into its work folder.
        arm_checkout = os.path.join(arm, "work", "oils")
        shutil.copytree(os.path.join(spec, "testdata"),
                        os.path.join(arm_checkout, "spec", "testdata"), symlinks=True)
        total = {"cases": 0, "match": 0, "refused": 0}
        print(f"{'file':28} {'cases':>5} {'match':>5} {'refused':>7} {'differ':>6}")
        for name in names:
            row = {"cases": 0, "match": 0, "refused": 0}
            for i, (case, code) in enumerate(cases(os.path.join(spec, name + ".test.sh"))):
                if args.cases and not re.search(args.cases, case):
                    continue
                got = []
                for shell in ("bash", "guard-sh"):
                    base = os.path.join(arm, "work") if shell == "guard-sh" else root
                    cwd = os.path.join(base, "case", f"{name}-{i}-{shell}")
                    os.makedirs(cwd)
                    checkout = arm_checkout if shell == "guard-sh" else args.oils
                    common = {"TMP": cwd, "SH": "bash", "REPO_ROOT": checkout,
                              "LC_ALL": "C.UTF-8"}
                    if shell == "bash":
                        env = dict(common, PATH=f"{stubs}:/usr/bin:/bin", HOME=cwd)
                        got.append(run([bash, "--norc", "--noprofile"], code, cwd, env))
                    else:
                        env = dict(shell_env, **common)
                        got.append(run([os.path.join(guard_dir, "guard-sh")], code, cwd, env))
                    # Each shell runs in its own folder (guard-sh's inside
                    # the arm): a path printed is compared from there on.
                    out, err, status = got[-1]
                    for path, name_of in ((cwd, b"$TMP"), (checkout, b"$REPO_ROOT")):
                        out = out.replace(path.encode(), name_of)
                    got[-1] = (out, err, status)
                (bo, be, bs), (go, ge, gs) = got
                row["cases"] += 1
                if bo == go and bs == gs:
                    row["match"] += 1
                    continue
                refused = b"guard-sh: denied" in ge
                row["refused"] += refused
                if args.show_failures:
                    print(f"--- {name} #{i} {case} ({'refused' if refused else 'differs'})")
                    print(f"    bash:     {bs} {bo[:300]!r} {be[:200]!r}")
                    print(f"    guard-sh: {gs} {go[:300]!r} {ge[:300]!r}")
            differ = row["cases"] - row["match"] - row["refused"]
            print(f"{name:28} {row['cases']:5} {row['match']:5} {row['refused']:7} {differ:6}")
            for k in total:
                total[k] += row[k]
        pct = 100.0 * total["match"] / max(total["cases"], 1)
        print(f"{'all':28} {total['cases']:5} {total['match']:5} {total['refused']:7} "
              f"{total['cases'] - total['match'] - total['refused']:6}   {pct:.1f}% match")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
