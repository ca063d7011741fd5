"""Headless Chromium through the system's chromedriver, for the browser tests, the screenshots and
the pages' benchmark. Selenium never downloads a driver or a browser here: both paths are given and
Selenium Manager is told to stay offline."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("GINBOX_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GINBOX_CHROMEDRIVER", "/usr/bin/chromedriver")


def chrome_options(width: int = 1280, height: int = 900):
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-extensions", "--no-first-run", "--disable-background-networking",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    # the performance log lists every request the page makes (the spectator test reads it)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return opts


def open_browser(width: int = 1280, height: int = 900):
    """One headless Chromium through the system chromedriver (no Selenium Manager, no download)."""
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=chrome_options(width, height))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver
