"""Rule sets beyond the seeds (RULES.md §5): Oklahoma's knock limit and spade doubling, the
end-of-game bonuses (box, game, shutout), and Hollywood's three games scored at once."""

from __future__ import annotations

from typing import Any, Mapping

from . import cards

#: the suit index of spades (cards.SUITS is "CDHS")
SPADES = cards.SUITS.index("S")


def upcard_limit(upcard: int) -> int:
    """Oklahoma's knock limit for a hand whose upcard is ``upcard``: an ace allows gin only (0),
    2-9 their value, a ten or a face card 10."""
    return 0 if cards.rank(upcard) == 0 else cards.VALUE[upcard]


def hand_knock_limit(options: Mapping[str, Any], deck: tuple) -> int:
    """The knock limit of the hand dealt from ``deck`` (the upcard is its card 21); 0 before a deal."""
    if not options.get("oklahoma"):
        return options["knock_limit"]
    return upcard_limit(deck[20]) if deck else 0


def hand_multiplier(options: Mapping[str, Any], deck: tuple) -> int:
    """2 if every point of the hand dealt from ``deck`` is doubled (Oklahoma, a spade upcard), else 1."""
    if options.get("oklahoma") and options.get("oklahoma_spades_double") and deck and cards.suit(deck[20]) == SPADES:
        return 2
    return 1


def has_bonuses(options: Mapping[str, Any]) -> bool:
    """Whether any end-of-game bonus is on."""
    return bool(options.get("box_bonus") or options.get("game_bonus") or options.get("shutout_bonus")
                or options.get("shutout_doubles"))


def end_bonuses(options: Mapping[str, Any], hand_points: tuple, wins: tuple, winner: int) -> dict:
    """The score sheet of a game won at the target: each line per seat, and the final totals.

    ``hand_points``: each seat's total of hand points; ``wins``: the hands each seat won.
    Box bonuses go to every seat, the game bonus and the shutout to the winner; a shutout's
    doubling comes after its fixed bonus, and doubles the winner's whole total.
    """
    n = len(hand_points)
    box = tuple(options.get("box_bonus", 0) * w for w in wins)
    game = tuple(options.get("game_bonus", 0) if s == winner else 0 for s in range(n))
    shutout = all(wins[s] == 0 for s in range(n) if s != winner)
    fixed = tuple(options.get("shutout_bonus", 0) if shutout and s == winner else 0 for s in range(n))
    before = [hand_points[s] + box[s] + game[s] + fixed[s] for s in range(n)]
    doubled = tuple(before[s] if shutout and options.get("shutout_doubles") and s == winner else 0
                    for s in range(n))
    totals = tuple(before[s] + doubled[s] for s in range(n))
    return {
        "hand_points": list(hand_points),
        "hands_won": list(wins),
        "box_bonus": list(box),
        "game_bonus": list(game),
        "shutout": shutout,
        "shutout_bonus": list(fixed),
        "shutout_doubling": list(doubled),
        "totals": list(totals),
    }


# -- Hollywood (§5): three games scored at once ---------------------------------------------------

#: the games a Hollywood match scores at once
HOLLYWOOD_GAMES = 3


def _hollywood_game(n: int) -> dict:
    """A game of a Hollywood match before any hand: ``scores`` are its hand points while it is open,
    its totals once it is over; ``bonuses`` its end-of-game sheet (None while open or with no bonus)."""
    return {"hand_points": [0] * n, "hands_won": [0] * n, "scores": [0] * n, "winner": None, "bonuses": None}


def hollywood_start(n: int) -> dict:
    """The sheet of a Hollywood match before any hand: every hand each seat won, and the three games."""
    return {"hands_won": [0] * n, "games": [_hollywood_game(n) for _ in range(HOLLYWOOD_GAMES)]}


def games_entered(wins_before: int, games: list) -> list:
    """The games (1-3) a seat's next win goes into, when it has won ``wins_before`` hands so far:
    its 1st win game 1, its 2nd games 1 and 2, its 3rd and later all three; never a game over."""
    return [g for g in range(1, min(wins_before + 1, HOLLYWOOD_GAMES) + 1) if games[g - 1]["winner"] is None]


def enter_hand(options: Mapping[str, Any], sheet: dict, winner: int, points: int) -> tuple:
    """(games entered, the three games after) once ``winner`` won a hand of ``points``.

    A game the hand takes to the target ends: its winner and, with any bonus on, its bonus sheet
    (end_bonuses, from the hands entered in it), whose totals are then its scores.
    """
    entered = games_entered(sheet["hands_won"][winner], sheet["games"])
    games = []
    for number, game in enumerate(sheet["games"], start=1):
        if number not in entered:
            games.append(game)
            continue
        hand_points, wins = list(game["hand_points"]), list(game["hands_won"])
        hand_points[winner] += points
        wins[winner] += 1
        game = {"hand_points": hand_points, "hands_won": wins, "scores": list(hand_points), "winner": None,
                "bonuses": None}
        if hand_points[winner] >= options["target_score"]:
            # only the winner's points moved: they alone reach the target in this game
            game["winner"] = winner
            if has_bonuses(options):
                game["bonuses"] = end_bonuses(options, tuple(hand_points), tuple(wins), winner)
                game["scores"] = list(game["bonuses"]["totals"])
        games.append(game)
    return entered, games


def hollywood_over(games: list) -> bool:
    """Whether the match is over: all three games are."""
    return all(game["winner"] is not None for game in games)


def hollywood_scores(games: list) -> list:
    """Each seat's overall score: the sum of its scores in the three games."""
    return [sum(game["scores"][seat] for game in games) for seat in range(len(games[0]["scores"]))]


def games_won(games: list) -> list:
    """How many of the games over each seat won."""
    return [sum(1 for game in games if game["winner"] == seat) for seat in range(len(games[0]["scores"]))]


def hollywood_winner(games: list) -> int:
    """The winner of a match whose three games are over: the higher overall score; on equal
    scores ([decision]) the seat that won more games, of which one always won two of three."""
    scores, won = hollywood_scores(games), games_won(games)
    return max(range(len(scores)), key=lambda seat: (scores[seat], won[seat]))
