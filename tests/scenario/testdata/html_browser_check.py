#!/usr/bin/python3
"""Opens a `perflens export --format html` file in headless Chromium (selenium 4) and
checks the viewer against what `perflens report` said, given in an expectations JSON
file (written by tests/scenario/html_report_test.cc):

  {"total": N,                      # report's "# Samples: N"
   "top": ["_start", ...],          # the report's top --children symbols (ties)
   "roots": ["_start", ...],        # the folded export's outermost frames
   "matched": {"name": samples},    # samples whose stack holds the function
   "self": ["name", samples],       # the report's top self symbol and its samples
   "events": [{"total": N, "self": ["name", samples]}, ...],  # per event, in file order
   "threads": K}                    # threads with samples (selector options - 1)

Prints one "ok: ..." line per check and "screenshot: PATH"; exits 1 with "FAIL: ..."
lines when a check fails, 2 when the browser cannot start (or selenium is missing). Waits are explicit
(WebDriverWait on DOM state), never sleeps. No network: the page has a CSP of
default-src 'none' and Chromium runs with a fresh profile in a temporary directory.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as e:  # no selenium: the browser cannot start (exit 2)
    print("FAIL: cannot import selenium (python3-selenium): %s" % e)
    sys.exit(2)

WAIT = 30  # seconds, an upper bound for each wait, not a delay

failures = []


def check(ok, what):
    if ok:
        print("ok: " + what)
    else:
        print("FAIL: " + what)
        failures.append(what)


def start_browser(chromium, chromedriver, profile):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--window-size=1400,1000", "--no-first-run",
                "--disable-background-networking", "--disable-extensions", "--disable-sync",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def frames(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#flame .frame")


def wait_for(driver, cond, what):
    try:
        return WebDriverWait(driver, WAIT).until(lambda d: cond(d))
    except Exception:
        check(False, "timed out waiting for " + what)
        return None


def run(driver, args, expect):
    driver.get("file://" + os.path.abspath(args.html))
    wait_for(driver, lambda d: d.execute_script("return document.body.getAttribute('data-ready')") == "1",
             "the viewer to render")
    errors = console_errors(driver)
    check(not errors, "no console errors at load %s" % (errors or ""))
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check(resources == [], "no resource loaded besides the page %s" % (resources or ""))

    # Totals.
    total = driver.find_element(By.ID, "total-samples")
    check(total.get_attribute("data-total") == str(expect["total"]),
          "total samples %s == report's %s" % (total.get_attribute("data-total"), expect["total"]))
    root = [f for f in frames(driver) if f.get_attribute("data-depth") == "0"]
    check(len(root) == 1 and root[0].get_attribute("data-samples") == str(expect["total"]),
          "root frame 'all' holds every sample")

    # The root's children are the folded export's outermost frames, and include the
    # report's top symbol when that is an outermost frame; zoom into the top symbol.
    children = {f.get_attribute("data-name"): f for f in frames(driver) if f.get_attribute("data-depth") == "1"}
    check(sorted(children) == sorted(expect["roots"]), "root's children %s == folded's outermost frames %s"
          % (sorted(children), expect["roots"]))
    top_roots = [name for name in expect["top"] if name in expect["roots"]]
    if top_roots:
        check(top_roots[0] in children, "root's children include the report's top symbol " + top_roots[0])
        name = top_roots[0]
    else:
        print("note: the report's top symbols %s are not outermost frames here" % expect["top"])
        name = expect["top"][0]
    named = sorted((f for f in frames(driver) if f.get_attribute("data-name") == name),
                   key=lambda f: -int(f.get_attribute("data-samples")))
    check(bool(named), "a frame named " + name)
    if named:
        depth = int(named[0].get_attribute("data-depth"))
        named[0].click()
        wait_for(driver, lambda d: d.find_element(By.ID, "flame").get_attribute("data-root") == name, "zoom into " + name)
        zroot = [f for f in frames(driver) if f.get_attribute("data-depth") == "0"]
        check(len(zroot) == 1 and zroot[0].get_attribute("data-name") == name, "zoomed view's root is " + name)
        crumbs = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#breadcrumb .crumb")]
        check(len(crumbs) == depth + 1 and crumbs[-1:] == [name], "breadcrumb ends with %s: %s" % (name, crumbs))
        driver.find_element(By.ID, "reset-zoom").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "flame").get_attribute("data-root") == "all", "reset zoom")

    # Search: the matched samples of each name equal the report's.
    search = driver.find_element(By.ID, "search")
    exact = driver.find_element(By.ID, "search-exact")
    if not exact.is_selected():
        exact.click()
    for name, samples in expect["matched"].items():
        search.clear()
        search.send_keys(name)
        info = driver.find_element(By.ID, "match-info")
        got = wait_for(driver, lambda d: info.get_attribute("data-matched") if info.get_attribute("data-query") == name
                       else None, "search results for " + name)
        check(got == str(samples), "search %r matched %s samples == report's %s (%s)" % (name, got, samples, info.text))
        highlighted = driver.find_elements(By.CSS_SELECTOR, "#flame .frame.match")
        check(all(h.get_attribute("data-name") == name for h in highlighted) and highlighted,
              "search %r highlights %d frames of that name" % (name, len(highlighted)))
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.DELETE)
    wait_for(driver, lambda d: d.find_element(By.ID, "match-info").get_attribute("data-matched") is None, "search cleared")
    check(not driver.find_elements(By.CSS_SELECTOR, ".frame.match"), "no highlight after clearing the search")

    # Names are text: a frame holds no element, its text is its name ('<' and all).
    check(not driver.find_elements(By.CSS_SELECTOR, "#flame .frame *"), "frames hold only text")
    for f in frames(driver):
        if f.get_attribute("textContent") != f.get_attribute("data-name"):
            check(False, "frame text %r == its name %r" % (f.get_attribute("textContent"), f.get_attribute("data-name")))
            break

    # Bottom-up: the top self symbol with the report's self samples.
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=bottomup]").click()
    rows = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bottomup .row[data-depth='0']"), "bottom-up rows")
    if rows:
        first = rows[0]
        self_name, self_samples = expect["self"]
        check(first.get_attribute("data-name") == self_name and first.get_attribute("data-self") == str(self_samples),
              "bottom-up's first row %s self %s == report's %s %s" % (first.get_attribute("data-name"),
                                                                     first.get_attribute("data-self"), self_name, self_samples))
        # Expanding it lists its callers.
        first.click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bottomup .row[data-depth='1']"), "callers of " + self_name)
        check(bool(driver.find_elements(By.CSS_SELECTOR, "#bottomup .row[data-depth='1']")), "bottom-up row expands")

    # Top-down: the first row's total is the report's top symbol's.
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=topdown]").click()
    rows = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#topdown .row[data-depth='0']"), "top-down rows")
    if rows:
        total_sum = sum(int(r.get_attribute("data-total")) for r in rows)
        check(total_sum == expect["total"], "top-down roots sum to %d == %d" % (total_sum, expect["total"]))

    # Callers / callees of the top self symbol.
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=callers]").click()
    select = wait_for(driver, lambda d: d.find_elements(By.ID, "function-select"), "callers view")
    if select:
        sel = Select(select[0])
        wanted = [o for o in sel.options if o.text.startswith(expect["self"][0] + " (")]
        check(bool(wanted), "function list holds " + expect["self"][0])
        if wanted:
            sel.select_by_value(wanted[0].get_attribute("value"))
            callees = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#callees-list .row[data-samples]"),
                               "callees list")
            self_rows = [r for r in callees or [] if r.get_attribute("data-name") == "self (no callee)"]
            check(bool(self_rows) and self_rows[0].get_attribute("data-samples") == str(expect["self"][1]),
                  "callees' self entry == report's self samples %s" % expect["self"][1])
            # Its source line, where report knows its file: "entry at /path/FILE:LINE".
            srcline = driver.find_elements(By.ID, "selected-srcline")
            srcfile = expect.get("self_srcfile", "")
            if srcfile:
                text = srcline[0].text if srcline else ""
                check(re.search(r"entry at (.*/)?" + re.escape(srcfile) + r":\d+$", text) is not None,
                      "%s's source line %r is in report's srcfile %s" % (expect["self"][0], text, srcfile))
            else:
                check(not srcline, "no source line without DWARF (%r)" % [e.text for e in srcline])

    # Thread selector: one thread, then all again.
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=flame]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "flame"), "flame graph")
    tsel = Select(driver.find_element(By.ID, "thread-select"))
    check(len(tsel.options) == expect["threads"] + 1, "thread selector: All + %d threads" % expect["threads"])
    if len(tsel.options) > 1:
        option = tsel.options[1]
        tsel.select_by_index(1)
        want = option.text.rsplit("(", 1)[1].rstrip(")").replace(",", "")
        wait_for(driver, lambda d: d.find_element(By.ID, "total-samples").get_attribute("data-total") == want,
                 "thread total " + want)
        check(driver.find_element(By.ID, "total-samples").get_attribute("data-total") == want,
              "one thread's total %s is its option's count" % want)
        tsel.select_by_index(0)
        wait_for(driver, lambda d: d.find_element(By.ID, "total-samples").get_attribute("data-total") == str(expect["total"]),
                 "all threads again")

    # Event selector: each event's total and top self symbol.
    esel = Select(driver.find_element(By.ID, "event-select"))
    check(len(esel.options) == len(expect["events"]), "event selector: %d events" % len(expect["events"]))
    for i, ev in enumerate(expect["events"]):
        Select(driver.find_element(By.ID, "event-select")).select_by_index(i)
        wait_for(driver, lambda d: d.find_element(By.ID, "total-samples").get_attribute("data-total") == str(ev["total"]),
                 "event %d's total %d" % (i, ev["total"]))
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=bottomup]").click()
        rows = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bottomup .row[data-depth='0']"),
                        "event %d's bottom-up" % i)
        if rows:
            got = [rows[0].get_attribute("data-name"), int(rows[0].get_attribute("data-self"))]
            check(got == ev["self"], "event %d: top self %s == report's %s" % (i, got, ev["self"]))
    Select(driver.find_element(By.ID, "event-select")).select_by_index(0)
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=flame]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "flame"), "flame graph")

    # Icicle: same frames, root at the top.
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=icicle]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "flame").get_attribute("data-kind") == "icicle", "icicle")
    root = [f for f in frames(driver) if f.get_attribute("data-depth") == "0"]
    check(len(root) == 1 and root[0].value_of_css_property("top") == "0px", "icicle root at the top")
    driver.find_element(By.CSS_SELECTOR, "#tabs button[data-view=flame]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "flame").get_attribute("data-kind") == "flame", "flame")

    driver.save_screenshot(args.screenshot)
    print("screenshot: " + os.path.abspath(args.screenshot))
    errors = console_errors(driver)
    check(not errors, "no console errors after interaction %s" % (errors or ""))


def main(run_checks=None):
    """Parses the arguments, starts the browser and runs `run_checks(driver, args,
    expect)` (default: run, the viewer's checks); html_diff_check.py passes its own."""
    p = argparse.ArgumentParser()
    p.add_argument("--html", required=True)
    p.add_argument("--expect", required=True)
    p.add_argument("--screenshot", required=True)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = p.parse_args()
    with open(args.expect) as f:
        expect = json.load(f)
    profile = tempfile.mkdtemp(prefix="perflens-chromium-")
    try:
        try:
            driver = start_browser(args.chromium, args.chromedriver, profile)
        except Exception as e:
            print("FAIL: cannot start %s with %s: %s" % (args.chromium, args.chromedriver, e))
            return 2
        try:
            (run_checks or run)(driver, args, expect)
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
