"""A game not randomly dealt is described by what its creator chose, the same in the lobby's row,
its Join question, an invitation and the table: decks (the creator may know every card), or only
the roles or who deals first (the cards still come from the seeds), or these and the decks too (the
view's decks_given says which, while the decks themselves stay secret until the game is over)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from finished import DECK
from helpers import Api, click_when_ready, css, hand_cards, text_of, wait_for

DECKS = "Not randomly dealt: the creator chose the decks, so the creator may know every card."
FIRST_DEALER = ("Not randomly dealt: the creator chose who deals first instead of a cut. The cards come from the "
                "seeds, as in a random deal.")
ROLES = FIRST_DEALER.replace("who deals first", "the roles (box, captain and advisor)")
# the view's decks_given tells a dealer chosen with the decks from one chosen alone
DEALER_AND_DECKS = ("Not randomly dealt: the creator chose who deals first instead of a cut. The creator also chose "
                    "the decks, so the creator may know every card.")


def create(api: Api, **body) -> dict:
    status, created = api.call("POST", "/games", body)
    assert status == 201, created
    return created


def test_each_place_says_what_the_creator_chose_of_the_deal(live_server, new_browser):
    api = Api(live_server)
    games = {
        DECKS: create(api, variant="gin-rami", seats=[{"name": "ann"}, None], decks=[DECK]),
        FIRST_DEALER: create(api, variant="gin-rami", seats=[{"name": "ann"}, None], first_dealer=1),
        DEALER_AND_DECKS: create(api, variant="gin-rami", seats=[{"name": "ann"}, None], first_dealer=1, decks=[DECK]),
        ROLES: create(api, variant="three-hand", seats=[{"name": "ann"}, {"bot": "basic"}, None],
                      roles={"box": 0, "captain": 1, "advisor": 2}),
    }
    driver = new_browser()
    driver.get(live_server + "/")
    for said, game in games.items():
        row = f'tr[data-game="{game["game_id"]}"] .not-random'
        wait_for(driver, lambda d: text_of(d, row) == said, what=f"the lobby's row of {game['game_id']}")
    # who deals first: the Join question says the same, and so does the table
    game_id = games[FIRST_DEALER]["game_id"]
    driver.find_element(By.CSS_SELECTOR, f'button.join[data-game="{game_id}"]').click()
    asked = WebDriverWait(driver, 30).until(EC.alert_is_present(), message="the question before joining")
    assert asked.text.startswith(FIRST_DEALER), asked.text
    asked.accept()
    wait_for(driver, lambda d: len(hand_cards(d)) == 10 and text_of(d, "#not-random") == FIRST_DEALER,
             what="the table's word")
    # the seat's own seed counts for every cut and every hand not dealt from given decks
    # folded into an info control: unfolded, it says what depends on the seed
    click_when_ready(driver, "#fair-deal summary", "the fair deal's control")
    seed = wait_for(driver, lambda d: text_of(d, "#client-seed"), what="the fair deal's line")
    assert seed.startswith("Fair deal: every cut, and every hand dealt from the seeds rather than from decks the "
                           "creator gave, also depends on the seed this seat sent"), seed


def test_an_invitation_to_a_game_whose_roles_were_chosen_says_only_that(live_server, new_browser):
    api = Api(live_server)
    created = create(api, variant="three-hand", seats=[{"name": "ann"}, {"bot": "basic"}, None], private=True,
                     roles={"box": 0, "captain": 1, "advisor": 2})
    guest = new_browser()
    guest.get(f"{live_server}/play/{created['game_id']}#seat=2&secret={created['seats'][2]['invite']}")
    wait_for(guest, lambda d: css(d, "#invite-name"), what="the invitation form")
    assert text_of(guest, "#invite-not-random") == ROLES
