"""Challenges to a bot account: making one, answering it (accept, decline), withdrawing it.

The pure parts (the public view, expiry, the ids of a challenge's game or match) are in
``service.rules.challenges``; here are the use cases over the arena's store.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable

from service.arena.core import ACCEPT_STALE_MS, DECLINE_REASONS, MIN_ACCOUNT_MOVE_TIME_S, ArenaCore
from service.arena.matches import preset_options
from service.errors import (
    ChallengeNotFound,
    ChallengeNotPending,
    ChallengeTokenRequired,
    DuplicateParticipant,
    IdempotencyKeyReused,
    InvalidDeclineReason,
    InvalidMatch,
    NotChallenged,
    NotChallenger,
    TooManyChallenges,
    UnknownParticipant,
)
from service.rules import duplicate as D
from service.rules import game
from service.rules.challenges import CHALLENGE_TTL_MS, expires, made_id, public_view
from service.rules.names import BOT_POLICY_NAMES
from service.store.creations import Made
from service.store.tokens import hash_token, issue_token


def answered_with(made: Made | None) -> dict:
    """What a challenge's answer (or withdrawal) records of the Idempotency-Key it was sent with:
    the key's ``log_key``, by which a retry of it finds it (none without a key)."""
    return {"answered_with": made.log_key} if made is not None else {}


class ArenaChallenges(ArenaCore):
    """The use cases of /challenges."""

    def challenge(self, body: dict, token: str | None, address: str = "unknown", made: Made | None = None) -> dict:
        """A challenge to a bot account, by a bot (``token``) or a person (a name), to a game or a match.

        Three-hand names a third participant in ``with``: a built-in policy or a bot account.
        A refusal stores nothing. ``address``: a person's client address.
        ``made``: the request's Idempotency-Key made it; a retry gets the first answer (same id and token).
        """
        challenged, variant = self._account(body["to"])["name"], body["variant"]
        if token:
            challenger, person = self.bot_of(token), None
            if challenger == challenged:
                raise InvalidMatch("a bot cannot challenge itself")
            if "name" in body:
                raise InvalidMatch("a bot challenging is known by its token: `name` is for a person, "
                                   "who challenges without one")
        else:
            person = body.get("name")
            if not person:
                raise InvalidMatch("a person challenging names themself (`name`); a bot presents its token")
            if person.casefold() == challenged.casefold():
                raise DuplicateParticipant(f"the bot is named {person!r}: a person challenging it takes another name")
            challenger = person
        others = list(body.get("with_") or [])
        more = D.PARTICIPANTS[variant] - 2
        if len(others) != more:
            raise InvalidMatch(f"{variant} is played by {D.PARTICIPANTS[variant]}: a challenge to it names "
                               + ("no one else (`with`)" if more == 0 else f"{more} more with `with`"))
        # names are compared in any case, as a bot account's name is taken: to the players, a
        # person called 'Alpha' and the bot alpha would be one name
        names = [challenger, challenged]
        for name in others:
            if name.casefold() in {n.casefold() for n in names}:
                raise DuplicateParticipant(f"{name!r} is named twice: each participant holds one place")
            spelled = name if name in BOT_POLICY_NAMES else self.bot_name(name)
            if spelled is None:
                raise UnknownParticipant(f"{name!r} is neither a built-in policy ({', '.join(BOT_POLICY_NAMES)}) "
                                         "nor a bot account")
            names.append(spelled)
        others = names[2:]
        # only the challenged bot answers a challenge: a bot account named in `with` is seated
        # (and rated) on the terms of a match, its token sending the challenge or accepts_matches
        self._check_consent([n for n in others if n not in BOT_POLICY_NAMES], None if person else challenger,
                            "a challenge", "else challenge it on its own")
        kind = "match" if body.get("boards") else "game"
        move_time = body.get("move_time_s")
        # a challenge always seats a bot account (the one challenged): the floor of a match seating one
        if move_time is not None and move_time < MIN_ACCOUNT_MOVE_TIME_S:
            raise InvalidMatch(f"a challenge to a bot account gives it at least {MIN_ACCOUNT_MOVE_TIME_S} s "
                               "a move (`move_time_s`): the turn clock plays a basic move for a slower one")
        preset_options(variant, body.get("rules"), body.get("options"), move_time, board=kind == "match")
        # Everything is checked before the challenge is stored.
        # With a key (made), the challenge's id is derived from the key.
        challenge_id, now = made.game_id() if made is not None else secrets.token_urlsafe(12), self.clock_ms()
        # it waits CHALLENGE_TTL_MS for its answer, then reads as expired
        challenge = {"challenge_id": challenge_id, "from": challenger, "from_kind": "person" if person else "bot",
                     "to": challenged, "with": others, "kind": kind, "variant": variant,
                     "rules": body.get("rules"), "options": body.get("options") or {}, "boards": body.get("boards"),
                     "move_time_s": body.get("move_time_s"), "status": "pending",
                     "game_id": None, "match_id": None, "created": now, "expires": now + CHALLENGE_TTL_MS}
        answer = dict(challenge)
        if person:
            # with a key, a person's token is derived from the key and the request
            seat_token = made.token("challenge") if made is not None else issue_token()
            challenge["person_token_hash"] = hash_token(seat_token)
            answer["token"] = seat_token
        challenge["by"] = f"addr:{address}" if person else f"bot:{challenger}"
        if made is not None:
            # the challenge keeps the request's fingerprint
            challenge["fingerprint"] = made.fingerprint
            # A first answer may be lost while its write landed (a 503).
            # The retry then finds the challenge under that id, instead of making a second one.
            # It answers as the first would have, and its bot is told again.
            kept = self._challenge_made(challenge_id, made)
            if kept is not None:
                return self._challenge_found(kept, answer)
        # A bot has at most challenges_per_bot pending to it.
        # A challenger (a bot, or a person's client address) has challenges_per_challenger pending of its own.
        # The caps do not count a retry twice.
        saved = self.store.add_challenge(challenge, per_bot=self.challenges_per_bot,
                                         per_challenger=self.challenges_per_challenger, now_ms=now)
        if saved == 0 and made is not None:
            kept = self._challenge_made(challenge_id, made)
            if kept is not None:
                return self._challenge_found(kept, answer)
        if saved == -1:
            raise TooManyChallenges(f"the bot {challenged!r} has {self.challenges_per_bot} challenges pending, "
                                    "as many as it may: one must be answered, withdrawn or expire first")
        if saved == -2:
            raise TooManyChallenges(f"{'this bot' if not person else 'this client address'} has "
                                    f"{self.challenges_per_challenger} challenges pending, as many as it may: "
                                    "one must be answered, withdrawn or expire first")
        if saved != 1:
            raise ChallengeNotPending("a challenge of this id exists already")  # 72 random bits: never in practice
        self.store.notify(challenged, "challenge", public_view(challenge))
        return answer

    def _challenge_made(self, challenge_id: str, made: Made) -> dict | None:
        """The challenge of ``challenge_id`` if an earlier request with ``made``'s key stored it
        (None if none is stored); IdempotencyKeyReused if another request did."""
        kept = self.store.challenge(challenge_id)
        if kept is None:
            return None
        if kept.get("fingerprint") != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return kept

    def _challenge_found(self, kept: dict, answer: dict) -> dict:
        """The answer of a challenge an earlier request stored, whose answer was lost: the one it
        gave (its own times); its bot, which that request may have failed to tell, told again
        while the challenge waits for an answer (it may hear of it twice, with the same id)."""
        if kept["status"] == "pending":
            self.store.notify(kept["to"], "challenge", public_view(kept))
        return {**answer, "created": kept["created"], "expires": kept["expires"]}

    def _pending(self, c: dict) -> bool:
        """Whether a challenge may still be answered or withdrawn: pending, and not expired."""
        return c["status"] == "pending" and self.clock_ms() < expires(c)

    def challenge_view(self, challenge_id: str) -> dict:
        c = self.store.challenge(challenge_id) if isinstance(challenge_id, str) else None
        if c is None:
            raise ChallengeNotFound(f"there is no challenge {challenge_id!r}")
        return public_view(c, self.clock_ms())

    def answer_challenge(self, challenge_id: str, token: str | None, accept: bool, made: Made | None = None,
                         reason: str | None = None, text: str | None = None) -> dict:
        """The challenged bot accepts (the game or match starts) or declines (with a ``reason`` of
        DECLINE_REASONS and a ``text``, both optional).

        ``made``: the answer's Idempotency-Key made it (service.store.creations.Made).
        A retry whose first reply was lost answers with its own answer, not 409 ``challenge_not_pending``.
        """
        current = self.challenge_view(challenge_id)
        bot = self.bot_of(token)
        if bot != current["to"]:
            raise NotChallenged("only the bot this challenge is addressed to may answer it")
        if reason is not None and reason not in DECLINE_REASONS:
            raise InvalidDeclineReason(f"a challenge is declined for one of these reasons, or none: "
                                       f"{', '.join(DECLINE_REASONS)}")
        # The challenge records the key's log_key with the answer (and with an accept's claim).
        # A first reply may be lost while its write landed (a 503).
        # The retry then finds its own answer recorded, or takes its own claim over at once.
        answered = self._answered_by(challenge_id, made)
        if answered is not None:
            return answered
        if current["status"] != "pending":
            raise ChallengeNotPending(f"the challenge was {current['status']} already")
        if not accept:
            why = {"decline_reason": reason or "generic", "decline_text": text}
            decided = self.store.decide_challenge(challenge_id, "declined", {**why, **answered_with(made)},
                                                  may=self._pending)
            if decided is None:
                raise ChallengeNotPending("the challenge was answered already")
            self._tell_challenger(decided)
            return public_view(decided)
        # The challenge is claimed before its game or match is made, so that a withdrawal (or a
        # second accept) arriving meanwhile is refused instead of leaving a game nobody recorded.
        # A failure to make it puts the challenge back to pending (if its claim is still the
        # current one); a claim whose process died is taken over by the next accept after
        # ACCEPT_STALE_MS (the wire shows it pending meanwhile).
        # The game (or match) has an id derived from the challenge's (made_id), so that an accept
        # that was only slow and the one that took its claim over make the same one: the second to
        # make it finds it made and uses it, and either may record it.
        claimed = self.claim_accept(challenge_id, made)
        if claimed is None:
            raise ChallengeNotPending("the challenge was answered already, or is being accepted")
        return self.finish_accept(claimed, made)

    def _answered_by(self, challenge_id: str, made: Made | None) -> dict | None:
        """The challenge, if the request ``made`` stands for answered (or withdrew) it already: a
        retry of that request whose reply was lost (None otherwise). Whom that request was to
        tell (the challenger, or the challenged bot of a withdrawal) is told again: the request
        may have failed before it told them (they may hear of it twice)."""
        if made is None:
            return None
        kept = self.store.challenge(challenge_id)
        if kept is None or kept.get("answered_with") != made.log_key:
            return None
        made.found = True
        if kept["status"] == "withdrawn":
            self.store.notify(kept["to"], "challenge_withdrawn", public_view(kept))
        else:
            self._tell_challenger(kept)
        return public_view(kept)

    def claim_accept(self, challenge_id: str, made: Made | None = None) -> dict | None:
        """The first half of an accept: claim the challenge (pending, or claimed longer ago than
        ACCEPT_STALE_MS, or claimed by an earlier sending of this same accept, ``made``: one whose
        reply was lost); the claimed challenge, with its ``accepting_since``, or None."""
        now = self.clock_ms()
        mine = made.log_key if made is not None else None
        extra = {"accepting_since": now, "accepting_with": mine}
        if mine is not None:
            prior = self.store.challenge(challenge_id) or {}
            if prior.get("status") == "accepting" and prior.get("accepting_with") == mine:
                extra["failed_with"] = mine  # its own claim, left by a sending that failed: a retry
        return self.store.decide_challenge(
            challenge_id, "accepting", extra,
            may=lambda c: self._pending(c)
            or (c["status"] == "accepting" and (now - c.get("accepting_since", 0) >= ACCEPT_STALE_MS
                                                or (mine is not None and c.get("accepting_with") == mine))))

    def finish_accept(self, claimed: dict, key: Made | None = None) -> dict:
        """The rest of an accept that claimed the challenge: make its game or match and record it.

        A challenge withdrawn or declined meanwhile is refused before anything is made.
        ``key``: the accept's Idempotency-Key made it, recorded with the answer (answer_challenge).
        """
        # The claim may have been taken over meanwhile (this accept was slow).
        # The game or match it makes is the same one as the taker's (made_id).
        # So it records it under whichever claim is current.
        # Or it answers with it, if the other accept recorded it first.
        # A taker that failed put the challenge back to pending: the slow accept records it from there.
        challenge_id, since = claimed["challenge_id"], claimed["accepting_since"]
        # An accept with a key that failed leaves the key with the challenge (failed_with).
        # Its retry, finding the game or match made, then tells its bots.
        # The failed sending may not have told them.
        retell = key is not None and claimed.get("failed_with") == key.log_key

        def ours(c: dict) -> bool:
            return c["status"] == "accepting" and c.get("accepting_since") == since

        def recordable(c: dict) -> bool:
            return c["status"] in ("accepting", "pending")

        current = self.store.challenge(challenge_id)
        if current is None or not (recordable(current) or current["status"] == "accepted"):
            raise ChallengeNotPending(f"the challenge was {current['status'] if current else 'removed'} meanwhile")
        try:
            # a bot account of `with` consented when the challenge was made; it may have withdrawn
            # its consent since (accepts_matches false): then nothing is made and the challenge is
            # pending again, to be accepted once it consents anew, withdrawn, or left to expire
            if current["status"] != "accepted":  # (else made already, by the accept that took our claim over)
                self._check_consent([n for n in claimed.get("with", []) if n not in BOT_POLICY_NAMES],
                                    claimed["from"] if claimed["from_kind"] == "bot" else None,
                                    "an accepted challenge", "the challenge stays pending")
            # The challenger hears challenge_accepted before match_started (or game_started).
            # The match or game exists by then, so the news is true however this accept ends.
            told: list[bool] = []

            def announce(kind: str, made_id_: str) -> Callable[[], None]:
                def tell() -> None:
                    told.append(True)
                    self._tell_challenger({**claimed, "status": "accepted", kind: made_id_})
                return tell

            if claimed["kind"] == "match":
                mid = made_id("match", challenge_id)
                made = {"match_id": self._challenge_match(claimed, retell, announce("match_id", mid))}
            else:
                gid = made_id("game", challenge_id)
                made = {"game_id": self._challenge_game(claimed, retell, announce("game_id", gid))}
        except BaseException:
            # only our own claim goes back to pending: a taker's may still be making it
            self.store.decide_challenge(challenge_id, "pending",
                                        {"accepting_since": None, "accepting_with": None,
                                         "failed_with": claimed.get("accepting_with")}, may=ours)
            raise
        decided = self.store.decide_challenge(challenge_id, "accepted",
                                              {**made, "accepting_since": None, "accepting_with": None,
                                               "failed_with": None, **answered_with(key)}, may=recordable)
        if decided is None:
            current = self.store.challenge(challenge_id)
            if current is not None and current["status"] == "accepted" and all(
                    current.get(k) == v for k, v in made.items()):
                return public_view(current)  # the other accept recorded this same game or match (and told)
            raise ChallengeNotPending("the challenge was answered already")
        if not told:
            self._tell_challenger(decided)  # (the game or match was made by another accept, which told first)
        return public_view(decided)

    def withdraw_challenge(self, challenge_id: str, token: str | None, made: Made | None = None) -> dict:
        """The challenger withdraws its pending challenge; the challenged bot is told (``challenge_withdrawn``).

        A bot withdraws with its own token, a person with the token its challenge's answer gave.
        Of a withdrawal and an answer at once, only one succeeds; the other is refused as not pending.
        ``made``: as answer_challenge's; a retry whose reply was lost answers with the withdrawal.
        """
        full = self.store.challenge(challenge_id) if isinstance(challenge_id, str) else None
        if full is None:
            raise ChallengeNotFound(f"there is no challenge {challenge_id!r}")
        if full["from_kind"] == "bot":
            if self.bot_of(token) != full["from"]:
                raise NotChallenger("only the challenger may withdraw this challenge")
        else:
            if not token:
                raise ChallengeTokenRequired("withdrawing a person's challenge needs the token its answer gave: "
                                             "'Authorization: Bearer <challenge's token>'")
            # compared with the hash kept with the challenge, in constant time
            if not hmac.compare_digest(hash_token(token), full["person_token_hash"]):
                raise NotChallenger("only the challenger may withdraw this challenge")
        answered = self._answered_by(challenge_id, made)
        if answered is not None:
            return answered
        if full["status"] == "accepting":
            raise ChallengeNotPending("the challenge is being accepted")
        status = public_view(full, self.clock_ms())["status"]
        if status != "pending":
            raise ChallengeNotPending(f"the challenge was {status} already")
        # the move from pending is the same WATCH-guarded one as an answer's: of the two at once, one succeeds
        decided = self.store.decide_challenge(challenge_id, "withdrawn", answered_with(made), may=self._pending)
        if decided is None:
            raise ChallengeNotPending("the challenge was answered or withdrawn already")
        self.store.notify(decided["to"], "challenge_withdrawn", public_view(decided))
        return public_view(decided)

    def _challenge_match(self, c: dict, retell: bool = False, announce: Callable[[], None] | None = None) -> str:
        """The match of an accepted challenge: a person's seats play with the token its challenge gave.

        A person is a participant of kind ``person`` (never a bot account or a policy, whatever its
        name), and a match with a person is unrated, as a person's game is.
        """
        names = [c["to"], *c.get("with", [])]
        if c["from_kind"] == "bot":
            names.insert(0, c["from"])
        participants = self._participants(names)
        tokens = None
        if c["from_kind"] == "person":
            participants.insert(0, {"name": c["from"], "kind": "person", "rating_name": None})
            tokens = {0: c["person_token_hash"]}
        made = self._make_match(c["variant"], participants, c["boards"], c["options"], c.get("move_time_s"),
                                rated=c["from_kind"] == "bot", seat_tokens=tokens,
                                match_id=made_id("match", c["challenge_id"]), challenge_id=c["challenge_id"],
                                retell=retell, announce=announce, rules=c.get("rules"))
        return made["match_id"]

    def _challenge_game(self, c: dict, retell: bool = False, announce: Callable[[], None] | None = None) -> str:
        players = []
        for name, kind in ((c["from"], c["from_kind"]), (c["to"], "bot"),
                           *((n, "policy" if n in BOT_POLICY_NAMES else "bot") for n in c.get("with", []))):
            if kind == "bot":
                players.append({"name": name, "account": name})
            elif kind == "policy":
                players.append({"name": name, "bot": name})
            else:
                players.append({"name": name, "token_hash": c["person_token_hash"]})
        spec = game.GameSpec(variant=c["variant"], players=players,
                             options=preset_options(c["variant"], c.get("rules"), c["options"], c.get("move_time_s"),
                                                    board=False) or None,
                             rules=c.get("rules"), seed=secrets.token_bytes(32))
        game_id = made_id("game", c["challenge_id"])
        try:
            # False if another accept of the challenge made it first: that game is the challenge's
            self._create_game(game_id, spec, {"rated": c["from_kind"] == "bot", "challenge_id": c["challenge_id"]},
                              retell=retell, announce=announce)
        except Exception as err:
            from service.rules.errors import RulesError

            if isinstance(err, RulesError):
                raise InvalidMatch(f"the challenge's game cannot be made: {err}") from None
            raise
        return game_id

    def _tell_challenger(self, c: dict) -> None:
        if c["from_kind"] == "bot":
            self.store.notify(c["from"], f"challenge_{c['status']}", public_view(c))
