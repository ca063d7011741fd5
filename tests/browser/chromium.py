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
    resize(driver, width, height)
    return driver


#: the narrowest window headless Chromium opens: a phone's width is emulated below it
NARROWEST_WINDOW = 500


def resize(driver, width: int, height: int) -> None:
    """Make the page's viewport ``width`` x ``height`` CSS pixels, a phone's included.

    A window's size is not its viewport: the window keeps some of its height, and it is never
    narrower than 500 px, so ``--window-size=390,844`` gave a page 500 px wide. The viewport is
    set through the DevTools protocol instead, as a phone (overlay scroll bars) below 500 px.
    """
    # the window itself at least as tall as the viewport, with room for what it keeps of its height
    driver.set_window_size(max(width, NARROWEST_WINDOW), height + 200)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < NARROWEST_WINDOW})
