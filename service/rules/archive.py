"""The archived form of a finished game's log: its moves as indices among the legal moves, the rest deflated.

A game's log holds hundreds of events, but most of them follow from a few facts: the creation
(its seed, options and players) and, at each decision, which of the legal moves was chosen.
The deals, cuts, scores and the game's end are what the rules make of those.
So an archived record keeps only what the rules cannot derive, and derives the rest again.

The record (format version 1), all integers unsigned LEB128 varints unless said otherwise:

    b"GBA"  the magic
    1       the format version, one byte (a reader refuses a version it does not know)
    raw deflate (RFC 1951) with the preset dictionary ``ZDICT_V1`` of the body:
        n_events
        ts of event 1 (ms since the epoch), then n_events - 1 zigzag deltas, each from the event before
        n_groups                  the groups of events the log is cut into, in order
        n_literals, then each:    gap (its group's index minus the last literal's plus one),
                                  kind (0 start, 1 command, 2 raw, 3 start without its
                                  commitment), k (the events it holds), for kind 3 the offset the
                                  commitment goes back in at, then k times: length and the UTF-8 of
                                  one event as the log stores it
        the move number's length, then its bytes (little-endian)
        n_advice, then each piece of the advice log (three-hand's advisor, a log beside the game's):
                                  gap (its version minus the last piece's), seq, zigzag delta of its
                                  ts from the ts of the event at its version, flag (0: the text alone,
                                  the rest of the entry as the rules give it at that version; 1: the
                                  entry's JSON as stored), length and UTF-8 of the text or JSON

Every group that is not a literal is one move: the ``i``-th of the seat-and-move pairs that the
seats to act may play (``legal_moves`` of each seat in ``to_act``, in that order), and the events
are what ``decide`` gives for it.
The indices of all moves are the digits of one mixed-radix number, the first the least significant,
each to the base of the moves there were to choose from.
So the moves cost the information they hold: the sum over decisions of log2 of the choices.
A literal group holds events as stored, and the rules derive the rest of the group:

- **start** (k = 1): the game_created event; the events after it are ``start`` of its spec.
  When its commitment is the SHA-256 of its seed (always, but in a log changed by hand), the
  record leaves the 64 characters out (kind 3), and the seed gives them back.
- **command** (k = 1 or 2): the events the audit reads a command from (a seat claimed, a client
  seed, advice, a resignation, a game abandoned or expired, a knock's own melds, a turn clock's
  move); the rest of the group is what ``decide`` gives for that command.
- **raw** (k = 1): one event, as it is, and nothing derived (what the rules do not reproduce
  byte for byte, such as events of a version no longer written).

The encoder checks that the record decodes to the very log it was given, or refuses it.
"""

from __future__ import annotations

import json
import math
import zlib
from typing import Any, Iterable, NamedTuple

from . import codec, events, game
from .audit import _command_for
from .commands import Advise
from .errors import RulesError
from .fairness import commitment
from .varints import Reader as _Reader, put as _put, unzigzag as _unzigzag, zigzag as _zigzag

MAGIC = b"GBA"
#: the format this module writes; it reads this one only
FORMAT_VERSION = 1
#: the format versions this module reads
READABLE_VERSIONS = (1,)

START, COMMAND, RAW = 0, 1, 2
#: a start literal whose game_created leaves out its commitment, the SHA-256 of its seed
START_KEYED = 3

# The preset dictionary of format version 1: text that the deflated body often repeats (the
# packed game_created, a player, the events literals hold).
# It is part of the format: changing it makes a new format version.
ZDICT_V1 = (
    '["sc",1,0,{"name":"'
    '["client_seed_sent",1,'
    '["ad",1,'
    '["to",1,'
    '["rs",1,'
    '["ab",1,'
    '["ex",1,'
    '{"name":"simple","bot":"simple"},{"name":"random","bot":"random"},{"name":"expert","bot":"expert"},'
    '"advisor":'
    '[{"name":"basic","bot":"basic"},{"name":"basic","bot":"basic"},{"name":"basic","bot":"basic"}],true,null,null,null]'
    '["gc",1,"three-hand",{"target_score":100,"knock_limit":10,"undercut_bonus":10,"max_turns_per_hand":200,'
    '"turn_timeout_s":null,"client_seed_wait_s":null,"box_bonus":0,"game_bonus":0,"shutout_bonus":0,'
    '"shutout_doubles":false,"oklahoma":false,"oklahoma_spades_double":false,"gin_bonus":25,"big_gin_bonus":null,'
    '"gin_adds_deadwood":true},"ginbox-rules/1","'
    '["gc",1,"gin-rami",{"target_score":100,"knock_limit":10,"undercut_bonus":10,"max_turns_per_hand":200,'
    '"turn_timeout_s":null,"client_seed_wait_s":null,"box_bonus":0,"game_bonus":0,"shutout_bonus":0,'
    '"shutout_doubles":false,"oklahoma":false,"oklahoma_spades_double":false,"gin_bonus":20,"big_gin_bonus":30,'
    '"gin_adds_deadwood":false},"ginbox-rules/1","'
).encode("utf-8")

_DICTS = {1: ZDICT_V1}


class ArchiveFormatError(RulesError):
    """A record this engine cannot read: not an archive, damaged, or of a format version it does not know.

    ``code`` is ``archive_format_unsupported`` for a version from a newer engine, else
    ``archive_unreadable``.
    """

    def __init__(self, code: str, message: str):
        super().__init__(code, message, conflict=False)


class ArchiveMismatch(ValueError):
    """The record would not give back the log it was made of (the log is kept as it is)."""


class NotOver(ValueError):
    """The log does not end its game: only a finished game is archived (its log no longer grows)."""


class Entry(NamedTuple):
    """One event of a log as stored: when it was appended (ms) and its stored text."""

    ts: int
    payload: str


class AdviceEntry(NamedTuple):
    """One piece of a game's advice log as stored: the version it was given at, its rank there,
    when (ms) and its entry's JSON text."""

    version: int
    seq: int
    ts: int
    entry: str


class Decoded(NamedTuple):
    """What an archived record gives back: the game's log and its advice log."""

    events: list
    advice: list


class Stats(NamedTuple):
    """What a record holds: its events, the moves as indices, and what they carry of information."""

    events: int
    moves: int
    literals: int
    #: the sum over the moves of log2 of the choices there were
    move_bits: float
    size: int


# -- the rules' side -----------------------------------------------------------------------------


def _choices(state) -> list:
    """Every (seat, move) the seats to act may play now, in ``to_act`` order."""
    if state is None or state.status != "playing":
        return []
    return [(seat, move) for seat in state.to_act for move in game.legal_moves(state, seat)]


def _spec(created) -> game.GameSpec:
    """The creation spec a game_created event records (as the audit builds it)."""
    return game.spec_of(created, bytes.fromhex(created.seed))


def _packed(event) -> str:
    return codec.pack(codec.encode(event))


def _event(payload: str):
    return codec.decode(codec.unpack(payload))


def _literal_width(event, following) -> int:
    """How many stored events the audit reads the command of a group starting with ``event`` from."""
    if type(event) is events.TurnTimedOut:
        return 2
    if (type(event) is events.SeatClaimed and type(following) is events.ClientSeedSent
            and following.seat == event.seat):
        return 2
    return 1


def _as_legal(command):
    """The legal-move form of a command read from the log (a knock lets the rules arrange its melds)."""
    if type(command).__name__ == "Knock":
        return type(command)(command.discard, None)
    return command


def _derive(kind: str, state, literals: list) -> list:
    """The events a literal group of ``kind`` stands for, its literals first (RulesError or a
    malformed event's error if the rules refuse them)."""
    if kind == START:
        created = literals[0]
        produced = game.start(_spec(created))
        return [created, *produced[1:]]
    if kind == COMMAND:
        found = _command_for(literals[0], literals[1] if len(literals) > 1 else None)
        if found is None:
            raise ArchiveFormatError("archive_unreadable", "a command group names no command")
        actor, command = found
        return game.decide(state, actor, command)
    return list(literals)


# -- writing -----------------------------------------------------------------------------------


def _try_group(state, log_events: list, payloads: list, i: int):
    """(kind, k, produced events, move index or None, choices) for the group starting at ``i``."""
    here, following = log_events[i], (log_events[i + 1] if i + 1 < len(log_events) else None)

    def matches(produced: list, kept: int = 0) -> bool:
        # the first ``kept`` events are kept as stored: the rules derive the others
        return (len(produced) >= max(kept, 1)
                and i + len(produced) <= len(payloads)
                and all(_packed(e) == payloads[i + k] for k, e in enumerate(produced) if k >= kept))

    if i == 0 and type(here) is events.GameCreated:
        try:
            produced = _derive(START, None, [here])
        except Exception:  # noqa: BLE001 (whatever the rules refuse is kept raw)
            produced = []
        if matches(produced, 1):
            return START, 1, produced, None, 0
    choices = _choices(state)
    found = _command_for(here, following)
    if found is not None and choices:
        actor, command = found
        try:
            index = choices.index((actor, _as_legal(command)))
        except ValueError:
            index = None
        if index is not None:
            try:
                produced = game.decide(state, *choices[index])
            except RulesError:
                produced = []
            if matches(produced):
                return None, 0, produced, index, len(choices)
    if found is not None:
        k = _literal_width(here, following)
        try:
            produced = _derive(COMMAND, state, log_events[i: i + k])
        except Exception:  # noqa: BLE001
            produced = []
        if matches(produced, k):
            return COMMAND, k, produced, None, 0
    return RAW, 1, [here], None, 0


def _canonical(obj: Any) -> str:
    """The JSON text the advice log stores (sorted keys, no spaces)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _derived_advice(state, text: str) -> str | None:
    """The entry the rules give for advice ``text`` at ``state``, as stored; None if they refuse it."""
    try:
        return _canonical(game.check_advice(state, state.advisor, Advise(text)))
    except (RulesError, AttributeError, TypeError):
        return None


def encode(entries: Iterable[Entry], advice: Iterable[AdviceEntry] = (), *,
           check: bool = True) -> tuple[bytes, Stats]:
    """The archived record of a log (its events as stored, in order) and of its advice log, and what it holds.

    NotOver if the log does not end its game.
    With ``check`` (the default) the record is decoded again and must give back ``entries``
    exactly, else ArchiveMismatch.
    """
    entries = [Entry(int(ts), payload if isinstance(payload, str) else payload.decode("utf-8"))
               for ts, payload in entries]
    if not entries:
        raise ValueError("an archive holds at least one event")
    payloads = [e.payload for e in entries]
    log_events = [_event(p) for p in payloads]
    body = bytearray()
    _put(body, len(entries))
    _put(body, entries[0].ts)
    for before, after in zip(entries, entries[1:]):
        _put(body, _zigzag(after.ts - before.ts))
    literals: list[tuple[int, int, list[str]]] = []
    number, base, bits, moves = 0, 1, 0.0, 0
    state, i, group = None, 0, 0
    while i < len(entries):
        kind, k, produced, index, n = _try_group(state, log_events, payloads, i)
        if index is not None:
            number += index * base
            base *= n
            bits += math.log2(n)
            moves += 1
        else:
            literals.append((group, kind, payloads[i: i + k]))
        for e in log_events[i: i + len(produced)]:
            state = game.evolve(state, e)
        i += len(produced)
        group += 1
    if state is None or state.status != "over":
        raise NotOver("the log does not end its game")
    _put(body, group)
    _put(body, len(literals))
    last = -1
    for at, kind, texts in literals:
        _put(body, at - last - 1)
        last = at
        at_commitment = _commitment_at(texts[0]) if kind == START else None
        _put(body, kind if at_commitment is None else START_KEYED)
        _put(body, len(texts))
        if at_commitment is not None:
            _put(body, at_commitment)
            texts = [texts[0][:at_commitment] + texts[0][at_commitment + 64:]]
        for text in texts:
            raw = text.encode("utf-8")
            _put(body, len(raw))
            body += raw
    digits = number.to_bytes((number.bit_length() + 7) // 8, "little")
    _put(body, len(digits))
    body += digits
    advice = [AdviceEntry(int(v), int(q), int(t), e if isinstance(e, str) else e.decode("utf-8"))
              for v, q, t, e in advice]
    _put_advice(body, advice, entries, log_events)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, zdict=ZDICT_V1)
    record = MAGIC + bytes([FORMAT_VERSION]) + packer.compress(bytes(body)) + packer.flush()
    if check and decode(record) != (entries, advice):
        raise ArchiveMismatch("the archived record does not give back the log")
    return record, Stats(len(entries), moves, len(literals), bits, len(record))


def _states_at(log_events: list, versions: set) -> dict:
    """The states after each of ``versions`` (1-based) of a log."""
    out, state = {}, None
    for version, event in enumerate(log_events, start=1):
        state = game.evolve(state, event)
        if version in versions:
            out[version] = state
    return out


def _commitment_at(text: str) -> int | None:
    """Where a stored game_created holds its commitment, if it is the SHA-256 of its seed and
    appears there once (the record then leaves it out: the seed gives it back)."""
    try:
        created = _event(text)
        derived = commitment(bytes.fromhex(created.seed))
    except (RulesError, ValueError, TypeError, AttributeError):
        return None
    if created.commitment != derived or text.count(derived) != 1:
        return None
    return text.index(derived)


def _put_advice(body: bytearray, advice: list, entries: list, log_events: list) -> None:
    _put(body, len(advice))
    states = _states_at(log_events, {a.version for a in advice})
    last = 0
    for a in advice:
        if not 1 <= a.version <= len(entries) or a.version < last:
            raise ArchiveMismatch(f"a piece of advice names version {a.version}")
        _put(body, a.version - last)
        last = a.version
        _put(body, a.seq)
        _put(body, _zigzag(a.ts - entries[a.version - 1].ts))
        try:
            text = json.loads(a.entry).get("text")
        except (ValueError, AttributeError):
            text = None
        derived = isinstance(text, str) and _derived_advice(states[a.version], text) == a.entry
        raw = (text if derived else a.entry).encode("utf-8")
        _put(body, 0 if derived else 1)
        _put(body, len(raw))
        body += raw


def _read_advice(r: _Reader, entries: list, payloads_events: list) -> list:
    pieces = []
    version = 0
    for _ in range(r.varint()):
        version += r.varint()
        seq = r.varint()
        ts = entries[version - 1].ts + _unzigzag(r.varint())
        flag = r.varint()
        pieces.append((version, seq, ts, flag, r.take(r.varint()).decode("utf-8")))
    states = _states_at(payloads_events, {p[0] for p in pieces if p[3] == 0})
    out = []
    for version, seq, ts, flag, text in pieces:
        entry = text if flag == 1 else _derived_advice(states[version], text)
        if entry is None:
            raise ArchiveFormatError("archive_unreadable", f"the advice at version {version} does not replay")
        out.append(AdviceEntry(version, seq, ts, entry))
    return out


# -- reading -----------------------------------------------------------------------------------


def format_version(record: bytes) -> int:
    """The format version of a record; ArchiveFormatError if it is no archived record."""
    if not isinstance(record, (bytes, bytearray)) or len(record) < 4 or bytes(record[:3]) != MAGIC:
        raise ArchiveFormatError("archive_unreadable", "this is not an archived game record")
    return record[3]


def decode(record: bytes) -> Decoded:
    """The log an archived record stands for, every event as stored with its time, and its advice log.

    ArchiveFormatError ``archive_format_unsupported`` for a record of a format version this
    engine does not read (written by a newer one), ``archive_unreadable`` for a damaged one.
    """
    version = format_version(record)
    if version not in READABLE_VERSIONS:
        raise ArchiveFormatError(
            "archive_format_unsupported",
            f"the archived record has format version {version}; this server reads "
            f"{', '.join(map(str, READABLE_VERSIONS))} only (it was written by a newer one)")
    try:
        unpacker = zlib.decompressobj(-15, zdict=_DICTS[version])
        body = unpacker.decompress(bytes(record[4:])) + unpacker.flush()
    except zlib.error as err:
        raise ArchiveFormatError("archive_unreadable", f"the archived record cannot be inflated: {err}") from None
    try:
        return _decode_body(_Reader(body))
    except ArchiveFormatError:
        raise
    except (RulesError, ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
        raise ArchiveFormatError("archive_unreadable", f"the archived record does not replay: {err}") from None


def _decode_body(r: _Reader) -> Decoded:
    n_events = r.varint()
    times = [r.varint()]
    for _ in range(n_events - 1):
        times.append(times[-1] + _unzigzag(r.varint()))
    n_groups = r.varint()
    literals: dict[int, tuple[int, list[str]]] = {}
    at = -1
    for _ in range(r.varint()):
        at += r.varint() + 1
        kind, k = r.varint(), r.varint()
        at_commitment = r.varint() if kind == START_KEYED else None
        texts = [r.take(r.varint()).decode("utf-8") for _ in range(k)]
        if at_commitment is not None:
            kind, text = START, texts[0]
            texts = [text[:at_commitment] + commitment(bytes.fromhex(_event(text).seed)) + text[at_commitment:]]
        literals[at] = (kind, texts)
    number = int.from_bytes(r.take(r.varint()), "little")
    payloads: list[str] = []
    state = None
    for group in range(n_groups):
        if group in literals:
            kind, texts = literals[group]
            if kind not in (START, COMMAND, RAW):
                raise ArchiveFormatError("archive_unreadable", f"a literal group of unknown kind {kind}")
            produced = _derive(kind, state, [_event(t) for t in texts])
            group_payloads = texts + [_packed(e) for e in produced[len(texts):]]
        else:
            choices = _choices(state)
            if not choices:
                raise ArchiveFormatError("archive_unreadable", f"group {group} is a move where nobody is to act")
            number, index = divmod(number, len(choices))
            produced = game.decide(state, *choices[index])
            group_payloads = [_packed(e) for e in produced]
        for payload in group_payloads:
            state = game.evolve(state, _event(payload))
        payloads += group_payloads
    if len(payloads) != n_events:
        raise ArchiveFormatError("archive_unreadable",
                                 f"the archived record gives {len(payloads)} events, and says {n_events}")
    entries = [Entry(ts, p) for ts, p in zip(times, payloads)]
    return Decoded(entries, _read_advice(r, entries, [_event(p) for p in payloads]))
