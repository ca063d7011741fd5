"""Where an element is on the screen: the browser tests of the game's end and the lobby assert what is in view."""

from __future__ import annotations


def box_of(driver, selector: str) -> dict:
    """The first element's box and the window's size (None when no element matches)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return null;"
        "const r = e.getBoundingClientRect();"
        "return {top: r.top, left: r.left, bottom: r.bottom, right: r.right, width: r.width, height: r.height,"
        " innerWidth: innerWidth, innerHeight: innerHeight}", selector)


def in_view(driver, selector: str, scroll: bool = True) -> dict:
    """Assert that the element is shown whole inside the window (scrolled to first, unless ``scroll`` is false)."""
    if scroll:
        driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", selector)
    box = box_of(driver, selector)
    assert box is not None, f"no {selector}"
    assert box["width"] > 0 and box["height"] > 0, (selector, box)
    assert box["top"] >= 0 and box["left"] >= 0, (selector, box)
    assert box["bottom"] <= box["innerHeight"] and box["right"] <= box["innerWidth"], (selector, box)
    return box
