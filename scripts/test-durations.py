"""Write tests/durations.json, each test file's summed seconds, from a junit XML file of a whole
run (pytest --junitxml=FILE): the parallel run hands out the costliest files first
(tests/conftest.py), so the longest file does not start last and stretch the run's tail.

    .venv/bin/python scripts/test-durations.py run.xml [more.xml ...]
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "durations.json"


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    seconds: Counter[str] = Counter()
    for path in paths:
        for case in ET.parse(path).iter("testcase"):
            name = (case.get("classname") or "").replace(".", "/") + ".py"
            seconds[name] += float(case.get("time") or 0)
    ordered = {name: round(s, 1) for name, s in sorted(seconds.items())}
    OUT.write_text(json.dumps(ordered, indent=0) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(ordered)} files, {sum(seconds.values()):.0f} s summed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
