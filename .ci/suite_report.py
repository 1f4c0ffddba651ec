"""Read the JUnit report of the test suite's run: fail CI unless tests ran and none failed; print the counts.

Usage: python3 .ci/suite_report.py JUNIT_XML
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.etree import ElementTree

COUNTS = ("tests", "failures", "errors", "skipped")


def main(path: str) -> int:
    report = Path(path)
    if not report.is_file():
        print(f"the test suite wrote no report at {report}: it did not run")
        return 1
    root = ElementTree.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = {name: sum(int(suite.get(name, "0")) for suite in suites) for name in COUNTS}
    print("== the test suite ran {tests} tests: {failures} failed, {errors} errors, {skipped} skipped".format(**totals))
    if totals["tests"] == 0:
        print("no test ran")
        return 1
    return 1 if totals["failures"] or totals["errors"] else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
