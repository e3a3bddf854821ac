#!/usr/bin/env python3
"""Browser tests of report.html: loads a run's report.html in headless Chromium and checks the
case grid against the run's results.csv and results.jsonl (verdicts, figures, answers), the
baseline answers and flips against the baseline run's results, that the filters and the search
change what is shown, and that the page requests nothing but itself.

usage: report_test.py RUN_DIR...   (exit 0 when every check holds, 1 with the failures)"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

ANSWER_LIMIT = 2000  # CaseGrid.answerLimit

GRID = """(() => Array.from(document.querySelectorAll('#case-grid tbody tr.case')).map(row => ({
  case: row.dataset.case, status: row.dataset.status, flipped: row.dataset.flipped === 'true',
  tags: JSON.parse(row.dataset.tags), hidden: row.hidden,
  cells: Array.from(row.querySelectorAll('td.cell')).filter(c => !c.classList.contains('empty')).map(cell => ({
    column: document.querySelector('#case-grid thead th[data-col="' + cell.dataset.col + '"]').textContent,
    status: cell.dataset.status, repeats: +cell.dataset.repeats,
    baseline: cell.querySelector('details.baseline') && cell.querySelector('details.baseline').dataset.baselineStatus,
    flip: !!cell.querySelector('.flip'),
    turns: Array.from(cell.querySelectorAll('.turn')).map(turn => ({
      turn: +turn.dataset.turn, status: turn.dataset.status,
      answer: turn.querySelector('.answer') ? turn.querySelector('.answer').textContent : null,
      latency_ms: turn.dataset.latencyMs, ttft_ms: turn.dataset.ttftMs, input_tokens: turn.dataset.inputTokens,
      cached_input_tokens: turn.dataset.cachedInputTokens, output_tokens: turn.dataset.outputTokens,
      cache_hit_ratio: turn.dataset.cacheHitRatio,
      failures: Array.from(turn.querySelectorAll('ul.failures li')).map(li => li.textContent)}))}))})))()"""

VISIBLE = "Array.from(document.querySelectorAll('#case-grid tbody tr.case')).filter(r => !r.hidden).map(r => r.dataset.case)"


def set_filter(browser, element, value):
    browser.evaluate(f"""(() => {{ const el = document.getElementById('{element}'); el.value = {json.dumps(value)};
        el.dispatchEvent(new Event('input')); el.dispatchEvent(new Event('change')); }})()""")
    return browser.evaluate(VISIBLE)


class Checks:
    def __init__(self, name):
        self.name, self.failures, self.count = name, [], 0

    def expect(self, condition, message):
        self.count += 1
        if not condition:
            self.failures.append(message)


def read_run(directory):
    with open(os.path.join(directory, "results.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    answers = {}
    with open(os.path.join(directory, "results.jsonl")) as handle:
        for line in handle:
            if line.strip():
                result = json.loads(line)
                answers[(result["suite"], result["case"], result["turn"], result["variant"], result["backend"],
                         result["reasoning"], result["repeat"])] = result.get("output")
    return rows, answers


def column_label(row):
    return f"{row['backend']} · {row['reasoning']} · {row['variant']}"


def check_grid(checks, grid, rows, answers):
    cells = {(row["case"], cell["column"]): cell for row in grid for cell in row["cells"]}
    first_repeat = [row for row in rows if row["repeat"] == "1"]
    checks.expect(len(first_repeat) > 0, "results.csv has no rows")
    for row in first_repeat:
        where = f"{row['suite']}/{row['case']} on {column_label(row)} turn {row['turn']}"
        cell = cells.get((f"{row['suite']}/{row['case']}", column_label(row)))
        checks.expect(cell is not None, f"{where}: no cell in the grid")
        if cell is None:
            continue
        turn = next((t for t in cell["turns"] if t["turn"] == int(row["turn"])), None)
        checks.expect(turn is not None, f"{where}: no turn in the cell")
        if turn is None:
            continue
        checks.expect(turn["status"] == row["status"], f"{where}: status {turn['status']} in the page, {row['status']} in results.csv")
        for figure in ("latency_ms", "ttft_ms", "input_tokens", "cached_input_tokens", "output_tokens", "cache_hit_ratio"):
            checks.expect(turn[figure] == row[figure], f"{where}: {figure} {turn[figure]!r} in the page, {row[figure]!r} in results.csv")
        key = (row["suite"], row["case"], int(row["turn"]), row["variant"], row["backend"], row["reasoning"], 1)
        expected = answers.get(key)
        shown = turn["answer"]
        checks.expect((shown or None) == ((expected or "")[:ANSWER_LIMIT] or None),
                      f"{where}: answer {shown!r} in the page, {expected!r} in results.jsonl")
        failed = row["failed_assertions"]
        checks.expect(bool(failed) == bool(turn["failures"]), f"{where}: failures {turn['failures']} in the page, {failed!r} in results.csv")
    # Failing, erroring and flipped cases first.
    notable = [row["status"] in ("fail", "error") or row["flipped"] for row in grid]
    checks.expect(notable == sorted(notable, reverse=True), f"failing cases are not first: {[row['case'] for row in grid]}")


def check_baseline(checks, grid, baseline_rows):
    before = {}
    for row in baseline_rows:
        if row["repeat"] == "1":
            key = (f"{row['suite']}/{row['case']}", column_label(row))
            status = before.get(key)
            # A case run's verdict: error, then fail, then pass, over its turns.
            order = {"error": 3, "fail": 2, "pass": 1, "skipped": 0}
            if status is None or order[row["status"]] > order[status]:
                before[key] = row["status"]
    flipped = 0
    for row in grid:
        for cell in row["cells"]:
            old = before.get((row["case"], cell["column"]))
            checks.expect(cell["baseline"] == old, f"{row['case']} on {cell['column']}: baseline {cell['baseline']} in the page, {old} in the baseline's results.csv")
            should_flip = old is not None and (old == "pass") != (cell["status"] == "pass")
            checks.expect(cell["flip"] == should_flip, f"{row['case']} on {cell['column']}: flip mark {cell['flip']}, expected {should_flip}")
            flipped += should_flip
    checks.expect(flipped > 0, "the baseline run was arranged to flip a case, but no flip is shown")


def check_filters(checks, browser, grid):
    everything = [row["case"] for row in grid]
    failing = [row["case"] for row in grid if any(cell["status"] == "fail" for cell in row["cells"])]
    checks.expect(set_filter(browser, "filter-status", "fail") == failing, "status filter 'failing' does not show exactly the failing cases")
    count = browser.evaluate("document.getElementById('filter-count').textContent")
    checks.expect(count == f"{len(failing)} of {len(grid)} cases shown", f"the count says {count!r}")
    checks.expect(set_filter(browser, "filter-status", "") == everything, "clearing the status filter does not show every case")
    tagged = [row for row in grid if row["tags"]]
    if tagged:
        tag = tagged[-1]["tags"][0]
        expected = [row["case"] for row in grid if tag in row["tags"]]
        shown = set_filter(browser, "filter-tag", tag)
        checks.expect(shown == expected and len(shown) < len(grid), f"tag filter {tag!r} shows {shown}")
        set_filter(browser, "filter-tag", "")
    answered = [(row["case"], turn["answer"].strip()) for row in grid for cell in row["cells"] for turn in cell["turns"]
                if turn["answer"] and len(turn["answer"].strip()) >= 3]
    if answered:
        case, answer = answered[-1]
        shown = set_filter(browser, "filter-text", answer.upper())
        checks.expect(case in shown and len(shown) < len(grid), f"searching for {answer!r} shows {shown}")
        shown = set_filter(browser, "filter-text", "no answer contains this ✕✕✕")
        checks.expect(shown == [], f"a search nothing matches shows {shown}")
        set_filter(browser, "filter-text", "")
    checks.expect(browser.evaluate(VISIBLE) == everything, "with every filter cleared, not every case is shown")


def check_run(browser, directory):
    checks = Checks(directory)
    page = "file://" + os.path.abspath(os.path.join(directory, "report.html"))
    browser.open(page)
    requested = browser.requested_urls()
    outside = [url for url in requested if url != page and not url.startswith("data:")]
    checks.expect(outside == [], f"the page requested {outside}")
    rows, answers = read_run(directory)
    grid = browser.evaluate(GRID)
    checks.expect(len(grid) == len({(row["suite"], row["case"]) for row in rows}), f"{len(grid)} rows for the run's cases")
    check_grid(checks, grid, rows, answers)
    with open(os.path.join(directory, "run.json")) as handle:
        baseline = json.load(handle).get("baseline")
    if baseline:
        baseline_rows, _ = read_run(baseline)
        check_baseline(checks, grid, baseline_rows)
    check_filters(checks, browser, grid)
    headline = browser.evaluate("Array.from(document.querySelectorAll('table.headline td')).map(td => td.textContent)")
    checks.expect(not any(cell.startswith("0.") and len(cell) == 6 for cell in headline), f"a fraction in the headline: {headline}")
    width = browser.evaluate("document.documentElement.scrollWidth")
    checks.expect(width <= 1280, f"the page is {width} px wide at a 1,280 px window: only the tables may scroll")
    return checks


def main(directories):
    browser = Browser(width=1280)
    failed = False
    try:
        for directory in directories:
            checks = check_run(browser, directory)
            print(f"browser tests: {directory}: {checks.count - len(checks.failures)} of {checks.count} checks passed")
            for failure in checks.failures[:30]:
                print(f"  ✗ {failure}")
            failed |= bool(checks.failures)
    finally:
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1:]))
