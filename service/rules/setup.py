"""Starting a game: the spec, the cuts for roles or the first dealer, and each hand's deal.

Implements RULES.md §1 (The deal: explicit decks or the seed's), §2 (Roles: by cut, or given;
the box deals) and §3 (gin rami: the first dealer by cut, or given), with the rule options of
§4 checked by ``variants``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import cards, fairness, presets, variants
from .cards import INDEX_OF
from .errors import invalid
from .events import CardsCut, DealerChosen, GameCreated, HandDealt, RolesAssigned


@dataclass
class GameSpec:
    """What a new game needs (RULES.md §4 options; §1 explicit decks; §2 explicit roles).

    Each field's meaning is written beside it.
    """

    variant: str
    #: one entry per seat: a dict (opaque to the engine), or None for an open seat
    players: list
    options: dict | None = None
    #: the secret bytes every random deal and cut derives from (fairness module)
    seed: bytes | None = None
    #: explicit decks (52 codes, top first) for hands 1, 2, ...; later hands use the seed
    decks: list | None = None
    #: three-hand {"box": seat, "captain": seat, "advisor": seat} instead of a cut
    roles: dict | None = None
    #: the gin-rami first dealer instead of a cut
    first_dealer: int | None = None
    #: {open seat: SHA-256 hex of its invite secret} for seats only an invited player may claim (an extension).
    #: The engine records the hashes and never sees a secret.
    invites: dict | None = None
    #: the derivation of decks and cuts (fairness module): 2 mixes in every seat's client seed.
    #: None or 1: the seed alone, as games recorded before client seeds.
    # The service creates its games with 2.
    fairness: int | None = None
    #: a named rule set (presets module, §5 Presets) that ``options`` override; None: none
    rules: str | None = None
    #: the program a game imported from its record was played with ("openspiel"); None: this server
    imported_from: str | None = None


def spec_of(created: GameCreated, seed: bytes | None) -> GameSpec:
    """The spec a game_created event records, with ``seed`` (which the event keeps only as its hash
    until the game is over): ``start`` of it gives that game's start again."""
    return GameSpec(
        variant=created.variant,
        players=list(created.players),
        options=dict(created.options),
        seed=seed,
        decks=[list(d) for d in created.decks] if created.decks else None,
        roles=dict(created.roles) if created.roles is not None else None,
        first_dealer=created.first_dealer,
        invites=dict(created.invites) if created.invites else None,
        fairness=created.fairness,
        rules=created.rules,
        imported_from=created.imported_from,
    )


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _check_invites(invites: Any, players: list) -> dict | None:
    """The invites as GameCreated records them ({"<seat>": hash}), or None for a public game."""
    if not invites:
        return None
    if not isinstance(invites, dict):
        raise invalid("invalid_invites", "invites map open seats to the SHA-256 of their secrets")
    out = {}
    for seat, digest in invites.items():
        seat = int(seat) if isinstance(seat, str) and seat.isdigit() else seat
        if not is_seat(seat, len(players)) or players[seat] is not None:
            raise invalid("invalid_invites", f"seat {seat!r} is not an open seat of this game")
        if not isinstance(digest, str) or not _SHA256_HEX.fullmatch(digest):
            raise invalid("invalid_invites", f"the invite of seat {seat} must be a SHA-256 in hex")
        out[str(seat)] = digest
    return dict(sorted(out.items()))


def is_seat(value: Any, nseats: int) -> bool:
    """Whether ``value`` is a seat number of a game of ``nseats`` seats."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < nseats


def _check_deck(deck: Any, n: int) -> tuple:
    if not isinstance(deck, (list, tuple)) or len(deck) != 52:
        raise invalid("invalid_deck", f"deck {n} must list the 52 card codes, top first")
    try:
        hand_mask = cards.mask(deck)
    except cards.CardError as err:
        raise invalid("invalid_deck", f"deck {n}: {err}") from None
    if hand_mask != cards.FULL_MASK or not all(isinstance(c, str) for c in deck):
        raise invalid("invalid_deck", f"deck {n} must list the 52 card codes, top first")
    return tuple(deck)


def start(spec: GameSpec) -> list:
    """The events that create a game: GameCreated, then the start events if no seat is open."""
    variant = variants.get_variant(spec.variant)
    options = presets.resolve(variant.name, spec.rules, spec.options)
    seed = spec.seed
    if not isinstance(seed, (bytes, bytearray)) or not seed:
        raise invalid("invalid_seed", "the seed must be non-empty bytes (32 random bytes are advised)")
    seed = bytes(seed)
    players = spec.players
    if not isinstance(players, (list, tuple)) or len(players) != variant.seats:
        raise invalid("invalid_players", f"{variant.name} needs a list of {variant.seats} players")
    if not all(p is None or isinstance(p, dict) for p in players):
        raise invalid("invalid_players", "each player is an object such as {'name': 'ann'}, or null")
    decks = None
    if spec.decks:
        if not isinstance(spec.decks, (list, tuple)):
            raise invalid("invalid_deck", "decks must be a list of decks")
        decks = tuple(_check_deck(d, i + 1) for i, d in enumerate(spec.decks))
    roles = None
    if spec.roles is not None:
        if variant.name != variants.THREE_HAND:
            raise invalid("invalid_roles", "roles are given only in three-hand")
        given = spec.roles
        names = variants.ROLE_NAMES
        if (
            not isinstance(given, dict)
            or set(given) != set(names)
            or not all(is_seat(given[name], 3) for name in names)
            or len({given[name] for name in names}) != 3
        ):
            raise invalid("invalid_roles", "roles must map box, captain and advisor to seats 0, 1, 2")
        roles = {name: given[name] for name in names}
    first_dealer = spec.first_dealer
    if first_dealer is not None:
        if variant.name != variants.GIN_RAMI:
            raise invalid("invalid_first_dealer", "in three-hand the box deals: give roles instead")
        if not is_seat(first_dealer, 2):
            raise invalid("invalid_first_dealer", "first_dealer must be seat 0 or 1")
    derivation = fairness.DERIVATION_SERVER_SEED if spec.fairness is None else spec.fairness
    if derivation not in fairness.DERIVATIONS or isinstance(derivation, bool):
        raise invalid("invalid_fairness", f"fairness must be one of {', '.join(map(str, fairness.DERIVATIONS))}")
    if derivation < fairness.DERIVATION_CLIENT_SEEDS and options.get("client_seed_wait_s") is not None:
        raise invalid("invalid_option", "client_seed_wait_s needs client seeds (fairness derivation 2)")
    randomly_dealt = decks is None and roles is None and first_dealer is None
    invites = _check_invites(spec.invites, players)
    created = GameCreated(
        variant=variant.name,
        options=options,
        rules_version=variants.RULES_VERSION,
        commitment=fairness.commitment(seed),
        seed=seed.hex(),
        players=tuple(None if p is None else dict(p) for p in players),
        randomly_dealt=randomly_dealt,
        decks=decks,
        roles=roles,
        first_dealer=first_dealer,
        invites=invites,
        fairness=None if derivation == fairness.DERIVATION_SERVER_SEED else derivation,
        rules=spec.rules,
        imported_from=spec.imported_from,
    )
    out: list = [created]
    # the deal waits for client seeds only if a human seat must send one (bots send none)
    waits = derivation >= fairness.DERIVATION_CLIENT_SEEDS and options.get("client_seed_wait_s") is not None
    if all(p is not None for p in players) and not (waits and any(not p.get("bot") for p in players)):
        key = fairness.deal_key(derivation, seed, (None,) * len(players))
        out += start_events(variant.name, key, roles, first_dealer, decks)
    return out


def _cut_order(seed: bytes, seats: list, purpose: str, events: list, rounds: list) -> list:
    """Seats from highest cut to lowest, re-cutting ties on rank (§2 Roles [decision])."""
    round_no = rounds[0]
    rounds[0] += 1
    cut = fairness.cut_cards(seed, round_no, len(seats))
    events.append(CardsCut(purpose, round_no, tuple(seats), tuple(cut)))
    rank_of = {seat: cards.rank(INDEX_OF[code]) for seat, code in zip(seats, cut)}
    order: list = []
    for rank in sorted(set(rank_of.values()), reverse=True):
        group = [seat for seat in seats if rank_of[seat] == rank]
        if len(group) == 1:
            order.append(group[0])
        else:
            order += _cut_order(seed, group, purpose, events, rounds)
    return order


def start_events(variant: str, seed: bytes, roles: dict | None, first_dealer, decks) -> list:
    """The events that start play once every seat is taken: the cuts, roles or dealer, deal 1.

    ``seed`` is the key the cuts and decks derive from: the state's ``deal_seed`` (the server's
    seed, or with derivation 2 the key mixed from it and every client seed).
    """
    out: list = []
    if variant == variants.THREE_HAND:
        if roles is not None:
            box, captain, advisor = roles["box"], roles["captain"], roles["advisor"]
            out.append(RolesAssigned(box, captain, advisor, "explicit"))
        else:
            box, captain, advisor = _cut_order(seed, [0, 1, 2], "roles", out, [0])
            out.append(RolesAssigned(box, captain, advisor, "cut"))
        dealer, non_dealer = box, captain
    else:
        if first_dealer is not None:
            dealer = first_dealer
            out.append(DealerChosen(dealer, "explicit"))
        else:
            # the lower card deals (§3 [decision])
            dealer = _cut_order(seed, [0, 1], "first_dealer", out, [0])[-1]
            out.append(DealerChosen(dealer, "cut"))
        non_dealer = 1 - dealer
    out.append(deal(seed, decks, 1, dealer, non_dealer))
    return out


def deal(seed: bytes, decks, hand_no: int, dealer: int, non_dealer: int) -> HandDealt:
    """The deal of hand ``hand_no``: the explicit deck given for it, else the seed's (§1 The deal).

    ``seed``: the state's ``deal_seed``, as for start_events."""
    if decks and hand_no <= len(decks):
        return HandDealt(hand_no, dealer, non_dealer, tuple(decks[hand_no - 1]), "explicit")
    deck = tuple(fairness.deck_for_hand(seed, hand_no))
    return HandDealt(hand_no, dealer, non_dealer, deck, "seed")
