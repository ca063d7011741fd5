"""Duplicate matches: creating one, its view, its turns for a person, its list, its stream, its audit."""

from __future__ import annotations

import hmac
import json
import secrets
import time
from collections.abc import Callable, Iterator

from service.arena.core import MIN_ACCOUNT_MOVE_TIME_S, POLICY_MATCH_WINDOW, ArenaCore
from service.errors import (
    DomainError,
    DuplicateParticipant,
    Forbidden,
    GameNotFound,
    IdempotencyKeyReused,
    InvalidMatch,
    MatchNotFound,
    MatchNotOver,
    TooManyMatches,
    UnknownParticipant,
)
from service.rules import duplicate as D, presets
from service.rules.errors import RulesError
from service.rules.names import BOT_POLICY_NAMES
from service.store.creations import Made
from service.store.errors import ConcurrencyError, IdempotencyConflict, UnknownGame
from service.store.tokens import hash_token


def preset_options(variant: str, rules: str | None, options: dict | None, move_time: int | None, *,
                   board: bool) -> dict:
    """The rule options of a match's (``board``) or a challenge's game under the preset ``rules``,
    the time per move as the turn clock.

    Refuses a preset as POST /games does (RulesError ``unknown_rules``, ``rules_not_for_variant``,
    ``rules_conflict``), and options that do not fit the variant, or Hollywood on a board, with InvalidMatch.
    So is a board's target other than 1.
    """
    target = (options or {}).get("target_score")
    if board and target is not None and target != D.BOARD_OPTIONS["target_score"]:
        # a board's game ends with its first hand that scores: another target would be dropped unsaid
        raise InvalidMatch(f"a match's board plays one hand, so its game's target_score is 1, not {target}: "
                           "leave target_score out (or play a game to that target)")
    if rules is None:
        options = ArenaCore._rule_options(variant, options, move_time, board=board)
    else:
        options = dict(options or {})
        if move_time is not None:
            options["turn_timeout_s"] = move_time
    try:
        resolved = presets.resolve(variant, rules, {**options, **D.BOARD_OPTIONS} if board else options)
    except RulesError as err:
        if err.code == "invalid_option":
            raise InvalidMatch(f"the options do not fit {variant} under the rules {rules}: {err}") from None
        raise
    if board and resolved["hollywood"]:
        # RULES.md §5 Hollywood: three games need many hands; a board is one
        raise InvalidMatch("a match's board plays one hand, and Hollywood scores three games over many: "
                           "a match cannot play Hollywood (set hollywood to false, or play a game)")
    return options


class ArenaMatches(ArenaCore):
    """The use cases of /matches."""

    def _participants(self, names: list[str]) -> list[dict]:
        out, seen_bots, counts = [], set(), {}
        for name in names:
            if name in BOT_POLICY_NAMES:
                counts[name] = counts.get(name, 0) + 1
                label = name if counts[name] == 1 else f"{name}-{counts[name]}"
                out.append({"name": label, "kind": "policy", "policy": name, "rating_name": name})
                continue
            asked, name = name, self.bot_name(name)
            if name is None:
                raise UnknownParticipant(f"{asked!r} is neither a built-in policy ({', '.join(BOT_POLICY_NAMES)}) "
                                         "nor a bot account")
            if name in seen_bots:
                raise DuplicateParticipant(f"the bot {name!r} is named twice: a bot holds one place")
            seen_bots.add(name)
            out.append({"name": name, "kind": "bot", "rating_name": name})
        return out

    def create_match(self, body: dict, token: str | None = None, address: str = "unknown",
                     made: Made | None = None) -> dict:
        """Start a duplicate match from a validated POST /matches body.

        Each bot account named sends the request (``token``) or accepts matches (``accepts_matches`` of its profile).
        A bot account's time per move is at least MIN_ACCOUNT_MOVE_TIME_S.
        The caller (that bot, and ``address``, which counts all its bots) has at most matches_per_caller in
        play, the server matches_in_play.
        ``made``: the request's Idempotency-Key made it (service.store.creations.Made).
        """
        variant = body["variant"]
        caller = self.bot_of(token) if token else None
        want = D.PARTICIPANTS[variant]
        if len(body["participants"]) != want:
            raise InvalidMatch(f"{variant} is played by {want} participants")
        participants = self._participants(body["participants"])
        accounts = [p["name"] for p in participants if p["kind"] == "bot"]
        self._check_consent(accounts, caller, "a match")
        move_time = body.get("move_time_s")
        if accounts and move_time is not None and move_time < MIN_ACCOUNT_MOVE_TIME_S:
            raise InvalidMatch(f"a match seating a bot account gives it at least {MIN_ACCOUNT_MOVE_TIME_S} s "
                               "a move (`move_time_s`): the turn clock plays a basic move for a slower one")
        rules = body.get("rules")
        preset_options(variant, rules, body.get("options"), move_time, board=True)  # checked before it counts
        # With a key (made), the match's id is derived from the key.
        # Its log records the creation under the key's log_key.
        match_id = made.game_id() if made is not None else secrets.token_urlsafe(12)
        # a bot's match counts against the bot and its client address: an address counts all its accounts' matches
        who = (f"bot:{caller}", f"addr:{address}") if caller else f"addr:{address}"
        # A first answer may be lost while its write landed (a 503).
        # The retry then finds the match there and answers with it, instead of starting a second match.
        if made is not None and self._match_landed(match_id, made):
            # the first request with this key started the match, and its answer was lost: this is
            # it, counted in play again (that request's failure may have uncounted it), no cap asked
            self.store.claim_match(match_id, who, 0, 0, self.clock_ms())
            return self._match_started(match_id, variant, participants, body["boards"])
        claimed = self.store.claim_match(match_id, who, self.matches_in_play, self.matches_per_caller,
                                         self.clock_ms())
        if claimed == -1:
            raise TooManyMatches(f"{'this bot' if caller else 'this client address'} has "
                                 f"{self.matches_per_caller} matches in play, as many as it may: "
                                 "one must end before another starts")
        if claimed == -3:
            raise TooManyMatches(f"this client address has {self.matches_per_caller} matches in play, its bot "
                                 "accounts' included, as many as it may: one must end before another starts")
        if claimed == -2:
            raise TooManyMatches(f"the server has {self.matches_in_play} matches in play, as many as it takes: "
                                 "one must end before another starts")
        try:
            return self._make_match(variant, participants, body["boards"], body.get("options"), move_time,
                                    rated=body.get("rated", True), match_id=match_id, made=made, rules=rules)
        except BaseException:
            self.store.release_match(match_id, who)
            raise

    def _make_match(self, variant: str, participants: list[dict], boards: int, options: dict | None,
                    move_time: int | None, *, rated: bool, seat_tokens: dict[int, str] | None = None,
                    match_id: str | None = None, challenge_id: str | None = None, made: Made | None = None,
                    retell: bool = False, announce: Callable[[], None] | None = None,
                    rules: str | None = None) -> dict:
        """Start a match of checked participants (``seat_tokens``: a person's token hash by participant index).

        ``rules``: the preset its games are created with, ``options`` over it.
        ``match_id``: the match's id if it is fixed, else a new random one.
        It is fixed for a challenge (``challenge_id``, which the bots' match_started names) or by an
        Idempotency-Key (``made``).
        ``retell``: tell the bots again if the match was made already.
        ``announce``: told first, before the match's bots (an accepted challenge's challenger).
        """
        options = preset_options(variant, rules, options, move_time, board=True)
        seed = secrets.token_bytes(32)
        match_id = match_id or secrets.token_urlsafe(12)
        # a match of policies alone plays each game in one job: a few games in play keep the workers busy
        window = self.window if any(p["kind"] != "policy" for p in participants) else min(self.window,
                                                                                            POLICY_MATCH_WINDOW)

        def created_from(seed: bytes) -> dict:
            return D.create(variant, options, participants, boards, move_time, seed, window, rated=rated,
                            rules=rules)

        created = created_from(seed)  # checked before anything is written
        # the secrets first: a match whose log exists always has its seed (and its persons' token hashes)
        # A fixed id may be made twice (two accepts of one challenge).
        # The first seed saved is the match's.
        kept = self.store.save_match_seed(match_id, seed, self.clock_ms(), seat_tokens)
        if kept != seed:
            created = created_from(kept)  # its commitments and boards are the kept seed's
        # the log records made's log_key with the match's first event
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        try:
            self.matches.append(match_id, [created], 0, key, fingerprint=fingerprint)
        except ConcurrencyError:
            # made already by another maker of this id, which told its bots (unless it failed
            # meanwhile, and this is its retry: retell): move it on and show it.
            # The second maker appends nothing and answers with the match the first one made.
            # retell is for the retry of an accept that failed, maybe before it told them.
            if retell:
                return self._match_started(match_id, variant, participants, boards, challenge_id, announce)
            return self.match_view(match_id)
        except IdempotencyConflict as err:
            raise IdempotencyKeyReused() from err
        return self._match_started(match_id, variant, participants, boards, challenge_id, announce)

    def _match_landed(self, match_id: str, made: Made) -> bool:
        """Whether the match's log recorded the creation ``made`` stands for (it was started by an
        earlier request with its key); IdempotencyKeyReused if it recorded another request's."""
        prior = self.matches.idempotent_result(match_id, made.log_key)
        if prior is None:
            return False
        if prior[0] != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return True

    def _match_started(self, match_id: str, variant: str, participants: list[dict], boards: int,
                       challenge_id: str | None = None, announce: Callable[[], None] | None = None) -> dict:
        """A new match's bots told (``match_started``; ``announce`` before them), its first games started, and its view.

        Told again if a retry finds the match its first request started (that request may have
        failed before it told them): a bot may hear of one match twice, with the same id."""
        if announce is not None:
            announce()
        for p in participants:
            if p["kind"] == "bot":
                self.store.seat_bot(p["name"], "matches", match_id, self.clock_ms())
                self.store.notify(p["name"], "match_started", {"match_id": match_id, "variant": variant,
                                                               "boards": boards,
                                                               **({"challenge_id": challenge_id} if challenge_id else {})})
        state = self.advance(match_id)
        return self.match_view(match_id, state)

    def match_view(self, match_id: str, state: D.MatchState | None = None) -> dict:
        """Progress, standings and boards of the match (moved on first, so a stalled match catches up)."""
        state = state if state is not None else self.advance(match_id)
        done = len(D.board_scores(state))
        return {
            "match_id": match_id,
            "variant": state.variant,
            "status": state.status,
            "rules": state.rules,
            "options": state.options,
            "move_time_s": state.move_time_s,
            # whether the match moves the ratings: false when made with rated false, or with a person
            "rated": state.rated,
            "participants": [{"name": p["name"], "kind": p["kind"]} for p in state.participants],
            "boards": state.boards,
            "boards_done": done,
            "games": state.games,
            "games_done": len(state.played),
            "commitment": state.commitment,
            "seed": state.seed,
            "version": state.version,
            "standings": D.standings(state),
            "board_results": with_analysis_links(D.board_details(state, match_id), state.status == "over"),
        }

    def match_turns(self, match_id: str, token: str) -> dict:
        """The games of the match in play where the person whose token this is is to act.

        The match is moved on first, as its view does.
        A token that holds no person's place (a bot's, another match's, any other) is refused alike (Forbidden).
        """
        state = self.advance(match_id)
        # The token's hash is compared with the hash of each person of the match: every one, in constant time.
        # So a token refused learns nothing of the seats.
        presented, participant = hash_token(token), None
        for index, stored in self.store.match_seat_tokens(match_id).items():
            if hmac.compare_digest(presented, stored):
                participant = index
        if participant is None:
            raise Forbidden("this token holds no person's place in this match")
        turns = []
        for index in state.in_flight() if state.status != "over" else ():
            board, table = divmod(index, state.tables)
            game_id = D.game_id_for(match_id, board, table)
            seat = D.seating(state.variant, table).index(participant)
            try:
                g = self.games.state(game_id)
            except GameNotFound:
                continue  # started in the log, not made yet: the next look at the match makes it
            if g.status == "playing" and seat in g.to_act:
                turns.append({"game_id": game_id, "board": board, "table": table, "seat": seat,
                              "phase": g.phase, "version": g.version})
        return {"match_id": match_id, "participant": state.participants[participant]["name"],
                "status": state.status, "turns": turns}

    def match_list(self, limit: int = 50) -> list[dict]:
        out = []
        for match_id in self.store.matches(limit):
            try:
                s = self._load(match_id)
            except MatchNotFound:
                continue
            out.append({"match_id": match_id, "variant": s.variant, "status": s.status, "boards": s.boards,
                        "participants": [p["name"] for p in s.participants]})
        return out

    def match_stream(self, match_id: str, clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent ``progress`` events of the match until it is over (validated before the first byte)."""
        self._load(match_id)

        def events():
            deadline = clock() + self.stream_max_s
            yield ": connected\n\n"
            last = -1
            while True:
                view = self.match_view(match_id)
                if view["version"] != last:
                    last = view["version"]
                    summary = {k: view[k] for k in ("match_id", "status", "boards", "boards_done", "games_done",
                                                    "standings")}
                    summary["type"] = "progress"  # as on the event: line
                    yield f"id: {last}\nevent: progress\ndata: {json.dumps(summary, separators=(',', ':'))}\n\n"
                if view["status"] == "over" or clock() >= deadline:
                    return
                self.matches.wait_for_events(match_id, last, self.keepalive_s)

        return events()

    def audit(self, match_id: str) -> dict:
        """The finished match's audit: its seed, every board's commitment, every table's own game audit."""
        state = self.advance(match_id)
        if state.status != "over":
            raise MatchNotOver("the audit reveals every board's seed: only once the match is over")
        commitments, failed = {}, {}
        for index in range(state.games):
            board, table = divmod(index, state.tables)
            game_id = D.game_id_for(match_id, board, table)
            try:
                report = self.games.audit(game_id)
            except (DomainError, UnknownGame):
                failed.setdefault(board, []).append(f"table {table}'s game cannot be audited")
                continue
            commitments[index] = report["commitment"]
            if not report["ok"]:
                failed.setdefault(board, []).append(f"table {table}'s game fails its own audit")
        checks = D.verify(state, commitments)
        for check in checks:
            if check["name"].startswith("board_"):
                problems = failed.get(int(check["name"][6:]))
                if problems:
                    check["ok"] = False
                    check["detail"] = "; ".join(problems)
        return {"match_id": match_id, "seed": state.seed, "commitment": state.commitment,
                "ok": all(c["ok"] for c in checks), "checks": checks}


def with_analysis_links(boards: list[dict], match_over: bool) -> list[dict]:
    """``boards`` with each table's ``analysis``: where its game's decision analysis is asked for and
    read (``POST``/``GET``), once the match is over (its games are sealed before), else null."""
    for board in boards:
        for table in board["tables"]:
            ready = match_over and table["over"] and table["game_id"] is not None
            table["analysis"] = f"/games/{table['game_id']}/analysis" if ready else None
    return boards
