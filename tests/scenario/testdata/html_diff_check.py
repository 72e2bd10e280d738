#!/usr/bin/python3
"""Opens a `perflens diff --html` page in headless Chromium (selenium 4) and checks the
differential flame graph against `perflens diff -c delta`'s text, given in an
expectations JSON file (written by tests/scenario/html_diff_test.cc) for flat recordings,
whose flame graph roots are the sampled functions:

  {"total": N,                      # the new file's "# Samples: N"
   "base_total": M,                 # the baseline's
   "delta": {"name": "+41.94%"},    # perf diff's Delta per function of the new file
   "gone": ["name", ...]}           # functions only the baseline has

Checks: no console errors, the totals, each root frame's change of share printed as
diff prints its Delta, red frames for a larger share and blue for a smaller one, no
frame for a function only the baseline has, grey for "+0.00%", the deepest colour at
the largest change but at least 5 percentage points, zooming keeps the colours. Same exits,
browser setup and waits as html_browser_check.py (whose helpers it uses).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_browser_check as hb  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


def rgb(style):
    m = re.search(r"rgb\((\d+), (\d+), (\d+)\)", style or "")
    return tuple(int(v) for v in m.groups()) if m else None


def run(driver, args, expect):
    check = hb.check
    driver.get("file://" + os.path.abspath(args.html))
    hb.wait_for(driver, lambda d: d.execute_script("return document.body.getAttribute('data-ready')") == "1",
                "the viewer to render")
    errors = hb.console_errors(driver)
    check(not errors, "no console errors at load %s" % (errors or ""))
    total = driver.find_element(By.ID, "total-samples").get_attribute("data-total")
    check(total == str(expect["total"]), "new total %s == report's %s" % (total, expect["total"]))
    base = driver.find_element(By.ID, "base-total").get_attribute("data-total")
    check(base == str(expect["base_total"]), "baseline total %s == report's %s" % (base, expect["base_total"]))
    legend = driver.find_element(By.ID, "diff-legend").text
    check("baseline" in legend, "the legend explains the colours")

    roots = {f.get_attribute("data-name"): f for f in hb.frames(driver) if f.get_attribute("data-depth") == "1"}
    for name, delta in expect["delta"].items():
        f = roots.get(name)
        check(f is not None, "a root frame for " + name)
        if f is None:
            continue
        change = float(f.get_attribute("data-change"))
        shown = "%+.2f%%" % change
        check(shown == delta, "%s: change of share %s == diff's Delta %s" % (name, shown, delta))
        color = rgb(f.get_attribute("style"))
        check(color is not None, "%s has a colour (%s)" % (name, f.get_attribute("style")))
        if color and shown != "+0.00%":
            redder = color[0] > color[2]
            check(redder == (change > 0), "%s is %s for %s" % (name, "red" if change > 0 else "blue", shown))
        elif color:
            check(color[0] == color[1] == color[2], "%s is grey for %s" % (name, shown))
        check("baseline" in (f.get_attribute("title") or ""), name + "'s tooltip gives the baseline")
    # The deepest colour's change: the largest, at least 5 percentage points.
    scale = float(driver.find_element(By.ID, "diff-scale").get_attribute("data-scale"))
    largest = max([abs(float(d.rstrip("%"))) for d in expect["delta"].values()] + [5.0])
    check(abs(scale - largest) < 0.006,
          "colour scale %.2f%% == max(largest change, 5%%) %.2f%%" % (scale, largest))
    for name in expect["gone"]:
        check(name not in roots, "no frame for %s (only in the baseline)" % name)

    # Zoom into the function that grew most: it is the root, its colour unchanged.
    grew = max(expect["delta"], key=lambda n: float(expect["delta"][n].rstrip("%")))
    if grew in roots:
        before = roots[grew].get_attribute("style")
        roots[grew].click()
        hb.wait_for(driver, lambda d: d.find_element(By.ID, "flame").get_attribute("data-root") == grew, "zoom into " + grew)
        zoomed = [f for f in hb.frames(driver) if f.get_attribute("data-depth") == "0"]
        check(len(zoomed) == 1 and rgb(zoomed[0].get_attribute("style")) == rgb(before),
              "zoomed into %s, same colour" % grew)
    driver.save_screenshot(args.screenshot)
    print("screenshot: " + os.path.abspath(args.screenshot))


if __name__ == "__main__":
    sys.exit(hb.main(run))
