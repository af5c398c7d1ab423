#!/usr/bin/env bash
# Seeds fuzz/corpus/{parse,parse_guard} from the test corpora: every input of
# tests/corpus/*/*.yaml (needs python3 with PyYAML) and every script of
# tests/diff/cases.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
mkdir -p corpus/parse corpus/parse_guard
for f in ../tests/diff/cases/*.sh; do
    h=$(sha1sum "$f" | cut -c1-40)
    cp "$f" "corpus/parse/$h"
    cp "$f" "corpus/parse_guard/$h"
done
python3 - <<'PY' || echo "PyYAML missing: seeded from tests/diff/cases only" >&2
import glob, hashlib, yaml
def inputs(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("inputs", "input"):
                yield from (i for i in (v if isinstance(v, list) else [v]) if isinstance(i, str))
            else:
                yield from inputs(v)
    elif isinstance(x, list):
        for v in x:
            yield from inputs(v)
for f in glob.glob("../tests/corpus/*/*.yaml"):
    for i in inputs(yaml.safe_load(open(f))):
        b = i.encode()
        h = hashlib.sha1(b).hexdigest()
        for t in ("parse", "parse_guard"):
            open(f"corpus/{t}/{h}", "wb").write(b)
PY
echo "corpus: $(ls corpus/parse | wc -l) inputs"
