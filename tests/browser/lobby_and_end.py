"""What the browser tests of a game's end and of the lobby share: where an element is on the screen
(they assert what is in view), and seats put in a browser's keeping as the lobby keeps them."""

from __future__ import annotations

import json


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


def hold_seats(driver, base: str, game_id: str, variant: str, seats: dict[int, tuple[str, str]]) -> None:
    """Keep the seats' tokens ({seat: (token, name)}) in the browser's storage, where the lobby keeps them."""
    driver.get(base + "/web/icon.svg")
    record = {game_id: {"game_id": game_id, "variant": variant, "created": 1,
                        "seats": {str(s): {"token": t, "name": n} for s, (t, n) in seats.items()}}}
    driver.execute_script("localStorage.setItem('ginbox.seats.v1', arguments[0])", json.dumps(record))


def close_hand_end(driver) -> None:
    """Close the hand's end panel, should it be open (it covers the table)."""
    driver.execute_script("const d = document.getElementById('hand-end'); if (d && d.open) d.close()")
