"""Box gin in three browsers: each player joins an open seat from the lobby; the box and the captain
each see their own hand, the advisor sees the captain's (and may not move), the advisor's advice
reaches the captain's page live, and the box never sees it (RULES.md: three-hand roles, advice)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from helpers import Api, click_when_ready, codes, hand_cards, text_of, wait_for
from support.decks import build_deck

CAPTAIN = ["AC", "2C", "3C", "4D", "6D", "8H", "9H", "JS", "QS", "KS"]
BOX = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
DECK = build_deck(CAPTAIN, BOX, "KD")
ADVICE = "Pass the king of diamonds, it fits nothing"


def join(driver, base: str, game_id: str, seat: int, name: str) -> None:
    driver.get(base + "/")
    wait_for(driver, lambda d: d.find_element(By.ID, "your-name"), what="the lobby")
    driver.find_element(By.ID, "your-name").send_keys(name)
    click_when_ready(driver, f'button.join[data-game="{game_id}"][data-seat="{seat}"]', f"the join button of seat {seat}")
    # the game is dealt from decks its creator chose: the lobby asks before the seat is taken
    asked = WebDriverWait(driver, 30).until(EC.alert_is_present(), message="the question before joining")
    assert "may know every card" in asked.text
    asked.accept()
    wait_for(driver, lambda d: f"/play/{game_id}" in d.current_url, what="the table")


def test_box_captain_and_advisor_each_see_what_their_role_allows(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "three-hand", "seats": [None, None, None],
                                                  "roles": {"box": 0, "captain": 1, "advisor": 2}, "decks": [DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    box, captain, advisor = new_browser(), new_browser(), new_browser(width=390, height=844)  # the advisor on a phone
    join(box, live_server, game_id, 0, "bea")
    join(captain, live_server, game_id, 1, "cal")
    join(advisor, live_server, game_id, 2, "abe")

    wait_for(box, lambda d: sorted(hand_cards(d)) == sorted(BOX), what="the box's hand")
    wait_for(captain, lambda d: sorted(hand_cards(d)) == sorted(CAPTAIN), what="the captain's hand")
    wait_for(advisor, lambda d: sorted(hand_cards(d)) == sorted(CAPTAIN), what="the captain's hand, seen by the advisor")
    assert "box" in text_of(box, "#whoami") and "captain" in text_of(captain, "#whoami")
    assert "advisor" in text_of(advisor, "#whoami") and "(you advise)" in text_of(advisor, "#hand-h")
    assert advisor.find_elements(By.CSS_SELECTOR, "button.move") == []  # the advisor never moves
    assert [b.get_attribute("data-key") for b in captain.find_elements(By.CSS_SELECTOR, "button.move")] == \
        ["take_upcard", "pass_upcard"]
    for driver in (box, captain):  # nobody at the table sees another's cards
        others = set(codes(driver, "[data-card]")) - set(hand_cards(driver))
        assert others == {"KD"}

    advisor.find_element(By.ID, "advice-text").send_keys(ADVICE)
    click_when_ready(advisor, "#advice-form button", "the send button")
    wait_for(captain, lambda d: ADVICE in text_of(d, "#advice-list"), what="the advice, live")
    assert ADVICE in text_of(advisor, "#advice-list")

    click_when_ready(captain, '[data-key="pass_upcard"]', "the captain's pass")
    wait_for(box, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-key="take_upcard"]'), what="the box's turn")
    assert ADVICE not in box.execute_script("return document.body.innerText")
    assert not any(ADVICE in x["body"] for x in box.execute_script("return globalThis.ginboxExchanges"))
    wait_for(advisor, lambda d: "bea to play" in text_of(d, "#turn"), what="the advisor's page following the game")
