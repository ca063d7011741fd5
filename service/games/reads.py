"""Reading games: the listing, a view (now or at a version), the events, the advice, the audit, the export
and the OpenSpiel records."""

from __future__ import annotations

from typing import Any

from service.errors import Forbidden, GameNotOver, InvalidVersion, MatchGameSealed, VersionNotFound
from service.games.core import Answer, GameCore
from service.rules import audit, commands, events as ev, game, openspiel, views
from service.rules.errors import RulesError
from service.store.base import MAX_LIST_LIMIT, canonical_json
from service.store.errors import UnknownGame

#: the fields of a game a listing shows
LISTED_FIELDS = ("game_id", "variant", "status", "created", "updated", "version")
#: the summary's fields that an older server's appends did not record (read from the log when missing)
SUMMARY_FIELDS = ("private_seats", "randomly_dealt", "end", "imported_from")
#: the most entries of the index one read asks for while a page fills
LIST_BATCH = 500


def advice_event(r) -> dict:
    """An advice log's record as the ``advice_given`` message of a stream or an export."""
    entry = r.entry
    return {"type": ev.AdviceGiven.TYPE, "v": ev.AdviceGiven.V, "at_version": r.version, "seq": r.seq, "ts": r.ts,
            "data": {"seat": entry["advisor"], "captain": entry["captain"], "hand_no": entry["hand_no"],
                     "text": entry["text"]}}


def log_entry(rec, shown: dict) -> dict:
    """A log record as a reader is shown it (``shown``: the event, redacted for the reader)."""
    return {"version": rec.version, "ts": rec.ts, "type": shown["type"], "v": shown["v"], "data": shown["data"]}


class GameReads(GameCore):
    """The use cases that read a game and change nothing."""

    def list_games(self, status: str | None, variant: str | None, cursor, limit: int) -> tuple[list[dict], Any]:
        """Games newest first, filtered by status and variant: (a page of summaries, the next cursor).

        Sealed games (of a match in play) are left out *before* the page is cut.
        A page is cut short after ``list_scan_max`` index entries, its cursor past the last one read.
        A walk of the cursors lists each game the caller may see exactly once.
        """
        # The index is read from the cursor in batches until the page holds limit games the caller
        # may see, or the index ends, or list_scan_max entries were read.
        # So one request reads a bounded part of the index.
        # Why a bounded scan, and not an index that keeps sealed games out:
        # the index is a projection of the games' logs, written by their appends.
        # Whether a game is sealed is its match's state, kept by the arena.
        # It ends with the match's log, with no append to the games.
        # An index without sealed games would need the match's end to move every game of it into
        # the index's sets: 2,000 for 1,000 boards.
        # It would do so on one server and on a cluster, with a repair of its own for a process
        # that dies in between.
        # The scan costs a few pipelined reads per batch.
        # The index reads no summary of a game it leaves out (hidden).
        # 1,000 entries of a match in play take some 10 ms.
        # The first read asks for as many entries as the page holds: with no sealed game among them,
        # it reads no summary the page does not show.
        # Each further read asks for twice as many as the one before, up to LIST_BATCH.
        # So a run of sealed games costs a few reads, not one per page's worth.
        listed: list[dict] = []
        position, scanned, memo, want = cursor, 0, {}, limit
        while True:
            batch = max(1, min(want, LIST_BATCH, self.list_scan_max - scanned, MAX_LIST_LIMIT))
            want = 2 * batch
            # the boards of a match in play are left out (listed once the match is over), before
            # the index reads their summaries
            games, after = self.index.list_games(status, variant, position, batch,
                                                 hidden=lambda game_ids: self.sealed_among(game_ids, memo))
            scanned += batch
            for i, entry in enumerate(games):
                # each summary carries the players, scores and whose move it is, as the game's latest
                # append recorded them (views.summary_of)
                summary = entry.get("summary")
                # recorded before it said which seats are private, whether the game was randomly dealt,
                # or how it ended: a game whose appends predate those summaries (or those fields) is
                # read from its log, here; a game not over has no end yet, whenever its summary was
                # recorded, and needs no read for it
                if summary is not None and "end" not in summary and entry["status"] != "over":
                    summary = {**summary, "end": None}
                # an imported game is dealt from its record's decks: one randomly dealt was not imported
                if summary is not None and "imported_from" not in summary and summary.get("randomly_dealt") is True:
                    summary = {**summary, "imported_from": None}
                if summary is None or any(k not in summary for k in SUMMARY_FIELDS):
                    try:
                        summary = views.summary_of(self.repository.load_state(entry["game_id"], upto=entry["version"]))
                    except UnknownGame:
                        continue  # the index names a game whose log is gone: nothing to list
                listed.append({**{k: entry[k] for k in LISTED_FIELDS}, **summary})
                if len(listed) == limit:
                    # the page is full: the next starts just past this game, or past the sealed
                    # games the batch held after it (those were left out of this walk already)
                    return listed, self.index.cursor_after(entry) if i + 1 < len(games) else after
            if after is None:
                return listed, None
            position = after
            if scanned >= self.list_scan_max:
                return listed, position  # the bound: a short page, and the walk goes on from here

    def view(self, game_id: str, seat: int | None, state=None) -> Answer:
        """The current view of a seat (or a spectator); ``state``: the current state, if just loaded."""
        state = state if state is not None else self.state(game_id)
        return Answer(self.render(game_id, state, seat), state.version)

    def state_at(self, game_id: str, seat: int | None, version: int) -> Answer:
        """The view of a seat as the game stood after event ``version``."""
        current = self.state(game_id).version
        if version < 1:
            raise InvalidVersion("versions start at 1 (the game's creation)")
        if version > current:
            raise VersionNotFound(f"the game is at version {current}")
        state = self.repository.load_state(game_id, upto=version)
        return Answer(self.render(game_id, state, seat), version)

    def hand_results(self, game_id: str, seat: int | None, offset: int, limit: int, state=None) -> Answer:
        """A page of the finished hands' results: at most ``limit`` from the index ``offset`` on.

        The page is cut from the view the caller would get, so it shows exactly what that view shows.
        """
        state = state if state is not None else self.state(game_id)
        sealed = self._sealed_over(game_id, state)
        view = views.view_state(state, seat, sealed=sealed, results=(offset, limit))
        page = {"game_id": game_id, "version": state.version, "total": view["hand_results_total"],
                "offset": offset, "hand_results": view["hand_results"]}
        return Answer(page, state.version)

    def events(self, game_id: str, seat: int | None, after: int, limit: int) -> dict:
        """Events after ``after`` (at most ``limit``), each redacted for the caller (in full once the
        game is over, unless it is sealed: a board of a match in play)."""
        current = self.state(game_id)
        upto = min(after + limit, current.version)
        records = self.store.load(game_id, after=after, upto=upto) if after < upto else []
        out = []
        sealed = self._sealed_over(game_id, current)
        if current.status == "over" and not sealed:
            out = [log_entry(r, ev.encode(r.event)) for r in records]
        else:
            state = self.repository.load_state(game_id, upto=after) if records and after > 0 else None
            for r in records:
                shown = views.view_event(r.event, seat, state, sealed=sealed)
                if shown is not None:
                    out.append(log_entry(r, shown))
                state = game.evolve(state, r.event)
        return {"events": out, "next_after": upto if upto < current.version else None}

    def _finished(self, game_id: str):
        state = self.state(game_id)
        if self.sealed(game_id):
            # the seed deals every table of the board: not even a seat has it before the match ends
            raise MatchGameSealed("this game is a board of a match in play: its audit and export wait "
                                  "for the match's end")
        if state.status != "over":
            raise GameNotOver("this is only available once the game is over")
        return state

    def audit(self, game_id: str) -> dict:
        """Check the finished game's log against its revealed seed."""
        self._finished(game_id)
        log_events = [r.event for r in self.store.load(game_id)]
        created = log_events[0]
        report = audit.verify(log_events, created.seed)
        checks = report["checks"]

        def passed(pred) -> bool:
            chosen = [c for c in checks if pred(c["name"])]
            return bool(chosen) and all(c["ok"] for c in chosen)

        advice_check = self._audit_advice(game_id, log_events)
        checks.append(advice_check)
        return {
            "game_id": game_id,
            "seed": created.seed,
            "commitment": created.commitment,
            "commitment_ok": passed(lambda n: n == "commitment"),
            "deals_ok": all(c["ok"] for c in checks if c["name"].startswith(("deal_", "cut_"))),
            "replay_ok": passed(lambda n: n == "replay"),
            "ok": bool(report["ok"]) and advice_check["ok"],
            "checks": checks,
            "not_checked": audit.NOT_CHECKED,
        }

    def _audit_advice(self, game_id: str, log_events: list) -> dict:
        """Every piece of the advice log was one the engine allowed at the version it names, within the bounds."""
        records = self.advice.read(game_id)
        by_version: dict[int, list] = {}
        for r in records:
            by_version.setdefault(r.version, []).append(r)
        problems = []
        state = None
        for version, event in enumerate(log_events, start=1):
            state = game.evolve(state, event)
            for r in by_version.pop(version, ()):
                if r.seq >= commands.MAX_ADVICE_PER_VERSION:
                    problems.append(f"{version}-{r.seq}: over {commands.MAX_ADVICE_PER_VERSION} at one version")
                try:
                    allowed = game.check_advice(state, r.entry.get("advisor"), commands.Advise(r.entry.get("text")))
                except RulesError as err:
                    problems.append(f"{version}-{r.seq}: not allowed at that version ({err.code})")
                    continue
                if allowed != {k: r.entry.get(k) for k in allowed}:
                    problems.append(f"{version}-{r.seq}: its hand, advisor or captain differ from the game's")
        problems += [f"{v}-{r.seq}: names a version the log does not hold" for v, rs in by_version.items() for r in rs]
        detail = (f"{len(records)} piece(s) of advice, each allowed at the version it was given at"
                  if not problems else "; ".join(problems[:10]))
        return {"name": "advice", "ok": not problems, "detail": detail}

    def export(self, game_id: str) -> list[str]:
        """The finished game's stored events, one canonical JSON line each, then its advice log.

        An advice line is an ``advice_given`` event marked with the version it was given at
        (``at_version``) and its rank there (``seq``): it is no event of the game's log and has
        no version of its own.
        """
        self._finished(game_id)
        lines = [canonical_json(r.raw) + "\n" for r in self.store.load(game_id)]
        for r in self.advice.read(game_id):
            lines.append(canonical_json(advice_event(r)) + "\n")
        return lines

    def openspiel(self, game_id: str) -> dict:
        """The finished gin-rami game as OpenSpiel ``gin_rummy`` records, one OpenSpiel game per hand.

        Refuses (RulesError) a game OpenSpiel cannot play the same way: three-hand, rules it does
        not have, a hand it would end otherwise, no hand played.
        """
        self._finished(game_id)
        return {"game_id": game_id, **openspiel.to_record([r.event for r in self.store.load(game_id)])}

    def advice_list(self, game_id: str, seat: int | None) -> dict:
        """Every piece of advice the caller may see: the captain and the advisor while the game runs, everyone after.

        A gin-rami game has no advisor, so there is none to see: its list is empty, for everyone,
        whether the game runs or is over (it says nothing a view does not).
        """
        state = self.state(game_id)
        if state.variant != "three-hand":
            return {"advice": []}
        # a finished board of a match in play keeps its advice as a game in play does
        sealed = self._sealed_over(game_id, state)
        if not views.sees_advice(state, seat, sealed):
            raise Forbidden("only the captain and the advisor see advice before the game is over")
        # games recorded before the advice log kept their advice in the state
        entries = [dict(a) for a in state.advice] + [r.as_dict() for r in self.advice.read(game_id)]
        if state.status != "over" or sealed:
            entries = [a for a in entries if seat in (a["advisor"], a["captain"])]
        return {"advice": entries}
