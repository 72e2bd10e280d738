#!/usr/bin/python3
"""Open time of a perflens HTML page (export --format html) in headless Chromium.

Loads PAGE N times (a fresh tab each time, file:// URL) and prints the median, min and
max time from navigation start to the viewer marking its first render done (the
data-ready attribute it sets on <body>, export/html/viewer.js). The time is taken in
the page itself: a MutationObserver installed before any page script records
performance.now() (milliseconds since navigation start) when data-ready appears, so
WebDriver's polling adds nothing to it.

  /usr/bin/python3 bench/html_open.py /tmp/fp.html [-n 5] [--chromium /usr/bin/chromium]

Needs selenium and chromedriver (as tests/scenario/testdata/html_browser_check.py).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

OBSERVER = """
new MutationObserver((records, observer) => {
  if (document.body && document.body.hasAttribute('data-ready')) {
    window.__perflensReady = performance.now();
    observer.disconnect();
  }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-ready']});
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("-n", type=int, default=5, help="loads (default 5)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per load")
    a = ap.parse_args()
    url = "file://" + os.path.abspath(a.page)
    profile = tempfile.mkdtemp(prefix="perflens-open-")
    options = webdriver.ChromeOptions()
    options.binary_location = a.chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--window-size=1400,1000", "--no-first-run",
                "--disable-background-networking", "--disable-extensions", "--disable-sync",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=a.chromedriver), options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})
        times = []
        for i in range(a.n):
            driver.get("about:blank")
            driver.get(url)
            deadline = time.time() + a.timeout
            ms = None
            while time.time() < deadline:
                ms = driver.execute_script("return window.__perflensReady || null")
                if ms is not None:
                    break
                time.sleep(0.05)
            if ms is None:
                print("load %d: no data-ready within %gs" % (i + 1, a.timeout), file=sys.stderr)
                return 1
            times.append(ms)
            print("load %d: %.0f ms" % (i + 1, ms))
        print("%s: median %.0f ms (min %.0f, max %.0f) over %d loads, %d bytes" %
              (a.page, statistics.median(times), min(times), max(times), len(times), os.path.getsize(a.page)))
        return 0
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
