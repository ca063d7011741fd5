"""The rules of a challenge that need no store: its public view, its expiry, and the fixed ids of
the game or match an accepted challenge makes.

Pure functions over the stored challenge (a dict) and the standard library, like the rest of the
engine; the use cases are service/arena/challenges.py.
"""

from __future__ import annotations

import base64
import hashlib

#: how long a challenge waits for its answer (then it reads as ``expired``)
CHALLENGE_TTL_MS = 24 * 3600 * 1000


def made_id(kind: str, challenge_id: str) -> str:
    """The id of a challenge's game (``kind`` "game") or match ("match"): 16 URL-safe characters
    fixed by the challenge, as a new game's or match's random ones are, so that every accept of
    the challenge (a slow one and the one that took its claim over) makes the same one."""
    digest = hashlib.sha256(f"ginbox challenge {kind}:{challenge_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


def not_played(state) -> bool:
    """Whether no move has been played in the game yet: in play, its first hand dealt, no upcard
    taken or passed and no card drawn (a client seed sent is no move)."""
    return state.status == "playing" and state.hand_no == 1 and state.turns == 0 and state.passes == 0


def expires(c: dict) -> int:
    """When a challenge expires (ms); one stored before challenges expired does CHALLENGE_TTL_MS after its creation."""
    return c.get("expires") or c["created"] + CHALLENGE_TTL_MS


#: what a stored challenge keeps to itself: a person's token hash, an accept's claim, whom it
#: counts against, and what it records of the Idempotency-Keys of its creation and its answer
PRIVATE_CHALLENGE_KEYS = ("person_token_hash", "accepting_since", "by", "fingerprint", "accepting_with",
                           "answered_with", "failed_with")


def public_view(c: dict, now_ms: int | None = None) -> dict:
    """A stored challenge as the wire shows it (``now_ms``: the time that decides whether it expired)."""
    # "with" is absent from the challenges stored before three-hand challenges; an accept in
    # progress ("accepting", a moment inside one request) reads as pending; a pending one past
    # its expiry (``now_ms``) as expired
    out = {"with": [], **{k: v for k, v in c.items() if k not in PRIVATE_CHALLENGE_KEYS}}
    out["expires"] = expires(c)
    if out["status"] == "accepting":
        out["status"] = "pending"
    if out["status"] == "pending" and now_ms is not None and now_ms >= out["expires"]:
        out["status"] = "expired"
    return out
