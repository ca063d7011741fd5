"""The answers of the requests that create things, kept under their Idempotency-Key, encrypted.

A creation's Idempotency-Key must be long and unguessable (``CREATION_KEY``).
``CreationRecords`` keeps the slots on Redis; ``InMemoryCreationRecords`` keeps them in a dict,
for the use-case tests.
A slot speaks to either through three steps: ``put_new``, ``held`` and ``replace``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import threading
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from service.store.base import Clock, system_clock

#: how long a recorded answer is replayed (seconds): 24 hours
RECORD_TTL_S = 24 * 3600
#: how long a claim holds the key while its request is answered (ms); a process that dies
#: meanwhile frees the key when it runs out
CLAIM_LEASE_MS = 30_000
#: what a request refused because the key is claimed is told to wait (seconds)
IN_USE_RETRY_AFTER_S = 1
# What a copy of Redis reveals.
# With GINBOX_SECRET set (the same on every API process), nothing.
# The pepper is then in no key, so not even a guessed Idempotency-Key opens a record.
# Without it, the pepper is generated once and kept in Redis (<prefix>:idem-secret), so a copy holds it.
# Then whoever guesses a record's Idempotency-Key can open that record offline.
# That is why a creation's key must be long and unguessable.
# CREATION_KEY asks at least 22 of the 64 characters of base64url: 132 bits if random.
# A random UUID's 36 qualify.
# Short keys are refused, so a guess is no cheaper than guessing the seat token itself.
#: what a creation's Idempotency-Key is made of: 22 to 200 letters, digits, '-' or '_' (the
#: base64url alphabet; a UUID's hex digits and hyphens are among them)
CREATION_KEY = re.compile(r"^[A-Za-z0-9_-]{22,200}$")
CREATION_KEY_RULE = "22 to 200 letters, digits, '-' or '_' (a random UUID qualifies)"
#: v2: the pepper is part of the derivation (records of v1, made without one, are not found)
_SALT = b"ginbox idempotency v2"
#: the pepper generated once, when GINBOX_SECRET is not set: (prefix:) this name
SECRET_KEY_NAME = "idem-secret"
_SECRET_BYTES = 32
# One Redis string per (scope, key), <prefix>:idem:<hex>, holds one of three values.
# A claim, P<lease id>, has a short TTL (CLAIM_LEASE_MS): the first request with the key is being answered.
# Any other one with it is told to wait, so two requests at once never both create.
# The record, R<nonce><ciphertext>, has a long TTL (RECORD_TTL_S).
# It holds the first successful answer (status, the headers that matter, body) and the fingerprint of
# the request it answered.
# An unsettled mark, U<nonce><ciphertext>, has the record's TTL.
# It says the request that held the claim failed on Redis itself (a timeout, a lost connection:
# answered redis_unavailable), so whether its writes landed is unknown.
# The mark holds the fingerprint of that request, sealed.
# The same request again takes the claim over and is answered afresh.
# Another one with the key is refused (idempotency_key_reused), so the key never stands for a second outcome.
_CLAIM, _RECORD, _UNSETTLED = b"P", b"R", b"U"
_NONCE_BYTES = 12

# A claim is given up when its request is refused: nothing is recorded of a refusal.
# It is replaced by the record when it succeeds, and by the unsettled mark when its outcome is unknown.
# Each happens only while it is still the claim of that request.
# KEYS: the slot   ARGV: the claim, then the value that replaces it and its TTL (ms) ('': the claim
# is given up: an expiry of 0 removes it at once, since the recommended Redis ACL grants no DEL)
# -> 1 when the slot still held this claim (and was replaced or given up), else 0
_SETTLE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('PEXPIRE', KEYS[1], 0) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
"""


def _derive(pepper: bytes, key: str, label: bytes, scope: str) -> bytes:
    # the pepper is HKDF's salt (a secret salt is allowed: RFC 5869, 3.1), the client's key its input
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT + b"\n" + pepper,
                info=label + b"\n" + scope.encode("utf-8")).derive(key.encode("utf-8"))


@dataclass(frozen=True)
class RecordedAnswer:
    """A creation's first successful answer, and the fingerprint of its request."""

    fingerprint: str
    status: int
    headers: dict[str, str]
    body: bytes

    def _plain(self) -> bytes:
        return json.dumps({"fingerprint": self.fingerprint, "status": self.status, "headers": self.headers,
                           "body": self.body.decode("utf-8")}, separators=(",", ":")).encode("utf-8")

    @classmethod
    def _from_plain(cls, plain: bytes) -> RecordedAnswer:
        doc = json.loads(plain)
        return cls(doc["fingerprint"], int(doc["status"]), dict(doc["headers"]), doc["body"].encode("utf-8"))


class Claimed:
    """The key was free: this request holds it (``lease``) and answers."""

    def __init__(self, lease: bytes):
        self.lease = lease


class InUse:
    """Another request with this key is being answered."""


@dataclass(frozen=True)
class Unsettled:
    """The request that held this key failed on Redis (its outcome is unknown): its fingerprint,
    and the mark as stored (what taking the claim over compares with)."""

    fingerprint: str
    mark: bytes


class Undecipherable(Exception):
    """The record under a key does not open with it (it was altered): nothing can be replayed."""


# A creation's answer holds secrets shown once (a seat's token, a bot account's token).
# The server keeps tokens only as SHA-256 hashes, so the answer is never kept in the clear.
# It is sealed with AES-GCM under a key derived (HKDF-SHA256) from the client's Idempotency-Key,
# the request's scope and the server's secret (a pepper).
# It is stored under a name derived the same way with another label.
# Neither the Idempotency-Key nor the AES key is stored.
# A retry that sends the key again finds the record and opens it.
class Slot:
    """Where the answer of one (scope, Idempotency-Key) is kept: its name in the records and its cipher."""

    def __init__(self, store: CreationRecords | InMemoryCreationRecords, scope: str, key: str):
        self.store = store
        pepper = store.pepper()
        self.name = f"{store.prefix}:idem:{_derive(pepper, key, b'index', scope).hex()}"
        self._aead = AESGCM(_derive(pepper, key, b'record', scope))
        self._pepper, self._key, self._scope = pepper, key, scope

    def derive(self, label: str) -> bytes:
        """32 bytes derived from the key, its scope and the server's secret, for ``label`` (Made)."""
        return _derive(self._pepper, self._key, b"made\n" + label.encode("utf-8"), self._scope)

    def claim(self) -> Claimed | InUse | RecordedAnswer | Unsettled:
        """Claim the key for this request, or what holds it: a request being answered, a record, or
        the mark of a request whose outcome is unknown (``take_over`` claims the key from it).

        Undecipherable if the record under the key does not open with it.
        """
        for _ in range(3):
            lease = _CLAIM + secrets.token_hex(16).encode("ascii")
            if self.store.put_new(self.name, lease, self.store.lease_ms):
                return Claimed(lease)
            held = self.store.held(self.name)
            if held is None:
                continue  # the holder gave its claim up, or the record ran out, meanwhile: claim again
            if held.startswith(_CLAIM):
                return InUse()
            if held.startswith(_UNSETTLED):
                return Unsettled(self._decrypt(held).decode("utf-8"), bytes(held))
            return self._open(held)
        return InUse()

    def take_over(self, unsettled: Unsettled) -> Claimed | InUse:
        """Claim the key in place of the unsettled mark read (InUse if it changed meanwhile: another
        request took it over first)."""
        lease = _CLAIM + secrets.token_hex(16).encode("ascii")
        if self.store.replace(self.name, unsettled.mark, lease, self.store.lease_ms):
            return Claimed(lease)
        return InUse()

    def unsettle(self, claimed: Claimed, fingerprint: str) -> bool:
        """Replace this request's claim by the unsettled mark of ``fingerprint`` (its outcome is
        unknown); False if the claim was lost."""
        return self.store.replace(self.name, claimed.lease, self._seal(_UNSETTLED, fingerprint.encode()),
                                  self.store.ttl_s * 1000)

    def record(self, claimed: Claimed, answer: RecordedAnswer) -> bool:
        """Replace this request's claim by its answer, kept for the record's TTL; False if the claim was lost."""
        sealed = self._seal(_RECORD, answer._plain())
        return self.store.replace(self.name, claimed.lease, sealed, self.store.ttl_s * 1000)

    def release(self, claimed: Claimed) -> bool:
        """Give the claim up (the request was refused: nothing is recorded); False if it was lost already."""
        return self.store.replace(self.name, claimed.lease, b"", 0)

    def _seal(self, kind: bytes, plain: bytes) -> bytes:
        nonce = secrets.token_bytes(_NONCE_BYTES)
        return kind + nonce + self._aead.encrypt(nonce, plain, self.name.encode("utf-8"))

    def _decrypt(self, held: bytes) -> bytes:
        if len(held) <= 1 + _NONCE_BYTES:
            raise Undecipherable(self.name)
        nonce, sealed = held[1:1 + _NONCE_BYTES], held[1 + _NONCE_BYTES:]
        try:
            return self._aead.decrypt(nonce, sealed, self.name.encode("utf-8"))
        except InvalidTag as err:
            raise Undecipherable(self.name) from err

    def _open(self, held: bytes) -> RecordedAnswer:
        if not held.startswith(_RECORD):
            raise Undecipherable(self.name)
        try:
            return RecordedAnswer._from_plain(self._decrypt(held))
        except (ValueError, KeyError, TypeError) as err:
            raise Undecipherable(self.name) from err


# Retrying a request whose outcome is unknown is safe, because what a creation makes is derived from its key.
# The game's id comes from the scope and the key.
# Its tokens and invite secrets come from those and the request's fingerprint, under the server's
# secret (HKDF, as the record's key).
# The retry makes the very same game id and tokens.
# Its write is recorded in the game's own log under a name derived from the key.
# That is the log's idempotency record, which the append script checks and writes atomically with the events.
# Finding it there, with the same fingerprint, means the first request landed.
# The retry then answers as it would have.
# So a lost answer never makes a second game, nor leaves a claimed seat whose token nobody can get.
class Made:
    """What a creation sent with an Idempotency-Key makes, derived from the key (see the comment above).

    ``game_id()`` and ``log_key`` depend on the scope and the key alone; ``token`` depends on the
    fingerprint too.
    Every value is a derivation under the server's secret.
    Knowing the key alone, without the secret, tells nothing of them.
    """

    # game_id() and log_key ignore the fingerprint so that a request with another body finds what
    # the first request with the key wrote.
    # It is then refused: the log records the first one's fingerprint under log_key.

    def __init__(self, slot: Slot, fingerprint: str):
        self._slot = slot
        self.fingerprint = fingerprint
        #: set by whoever found this creation's write already made (by an earlier request with the
        #: key, whose answer was lost): the answer is that request's, and is marked replayed
        self.found = False

    def _bytes(self, label: str, n: int = 0) -> bytes:
        return self._slot.derive(f"{label}\n{n}\n{self.fingerprint}")

    def game_id(self) -> str:
        """A game's id: 16 URL-safe characters (96 bits), as service.games.new_game_id makes."""
        return base64.urlsafe_b64encode(self._slot.derive("game id")[:12]).decode("ascii")

    def token(self, label: str) -> str:
        """A token (a seat's, an invite secret) named ``label``: 43 URL-safe characters (256 bits),
        never beginning with '-' (service.store.tokens.issue_token says why)."""
        for n in range(64):
            token = base64.urlsafe_b64encode(self._bytes(label, n)).rstrip(b"=").decode("ascii")
            if token[0] != "-":
                return token
        raise RuntimeError("no token without a leading '-' in 64 derivations")

    @property
    def log_key(self) -> str:
        """The name under which a game's log records the write of this creation (its idempotency key)."""
        return "creation:" + self._slot.derive("log key").hex()


def server_pepper(redis, prefix: str, secret: str | None) -> bytes:
    """The server's secret as 32 bytes: the SHA-256 of GINBOX_SECRET, else the secret kept in
    Redis under ``<prefix>:idem-secret`` (made by the first process that needs it; every process
    then reads the same). The creation records are sealed under it, and the view tags keyed
    with it (service.api.http.view_etag)."""
    if secret:
        return hashlib.sha256(secret.encode("utf-8")).digest()
    name = f"{prefix}:{SECRET_KEY_NAME}"
    redis.set(name, secrets.token_bytes(_SECRET_BYTES), nx=True)
    kept = redis.get(name)
    if not kept:
        raise RuntimeError(f"{name} could not be read back from Redis")
    return bytes(kept)


class CreationRecords:
    """The recorded answers of the creation routes, in ``redis`` under ``<prefix>:idem:``."""

    def __init__(self, redis, prefix: str, *, secret: str | None = None, ttl_s: int = RECORD_TTL_S,
                 lease_ms: int = CLAIM_LEASE_MS):
        self.redis = redis
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.lease_ms = lease_ms
        self.settle = redis.register_script(_SETTLE)
        self._pepper = server_pepper(redis, prefix, secret) if secret else None

    def pepper(self) -> bytes:
        """The server's secret mixed into every derivation (server_pepper)."""
        if self._pepper is None:
            self._pepper = server_pepper(self.redis, self.prefix, None)
        return self._pepper

    def slot(self, scope: str, key: str) -> Slot:
        """The slot of ``key`` as chosen by the callers of ``scope`` (a route, and a bot's token hash)."""
        return Slot(self, scope, key)

    def put_new(self, name: str, value: bytes, ttl_ms: int) -> bool:
        """Keep ``value`` under ``name`` for ``ttl_ms`` if nothing is kept there; whether it was kept."""
        return bool(self.redis.set(name, value, nx=True, px=ttl_ms))

    def held(self, name: str) -> bytes | None:
        """What is kept under ``name`` (None: nothing, or it ran out)."""
        held = self.redis.get(name)
        return None if held is None else bytes(held)

    def replace(self, name: str, expected: bytes, value: bytes, ttl_ms: int) -> bool:
        """Keep ``value`` for ``ttl_ms`` in place of ``expected`` (b"": keep nothing), only while
        ``expected`` is what ``name`` holds; whether it was."""
        return bool(self.settle(keys=[name], args=[expected, value, ttl_ms]))


class InMemoryCreationRecords:
    """The recorded answers in a dict, for the use-case tests: CreationRecords's slots and answers.

    The server's secret is GINBOX_SECRET's digest when ``secret`` is given, else one made for this
    store (as Redis keeps one per prefix). What is kept runs out by ``clock`` (ms since the epoch).
    """

    def __init__(self, prefix: str = "ginbox", *, secret: str | None = None, ttl_s: int = RECORD_TTL_S,
                 lease_ms: int = CLAIM_LEASE_MS, clock: Clock | None = None):
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.lease_ms = lease_ms
        self.clock = clock or system_clock
        self._pepper = server_pepper(None, prefix, secret) if secret else secrets.token_bytes(_SECRET_BYTES)
        self._kept: dict[str, tuple[bytes, int]] = {}  # name -> (value, when it runs out, ms)
        self._lock = threading.Lock()

    def pepper(self) -> bytes:
        """The server's secret mixed into every derivation."""
        return self._pepper

    def slot(self, scope: str, key: str) -> Slot:
        """The slot of ``key`` as chosen by the callers of ``scope``."""
        return Slot(self, scope, key)

    def _live(self, name: str) -> bytes | None:
        kept = self._kept.get(name)
        if kept is not None and self.clock() >= kept[1]:
            del self._kept[name]
            return None
        return None if kept is None else kept[0]

    def put_new(self, name: str, value: bytes, ttl_ms: int) -> bool:
        """Keep ``value`` under ``name`` for ``ttl_ms`` if nothing is kept there; whether it was kept."""
        with self._lock:
            if self._live(name) is not None:
                return False
            self._kept[name] = (bytes(value), self.clock() + ttl_ms)
            return True

    def held(self, name: str) -> bytes | None:
        """What is kept under ``name`` (None: nothing, or it ran out)."""
        with self._lock:
            return self._live(name)

    def replace(self, name: str, expected: bytes, value: bytes, ttl_ms: int) -> bool:
        """Keep ``value`` for ``ttl_ms`` in place of ``expected`` (b"": keep nothing), only while
        ``expected`` is what ``name`` holds; whether it was."""
        with self._lock:
            if self._live(name) != expected:
                return False
            if value:
                self._kept[name] = (bytes(value), self.clock() + ttl_ms)
            else:
                del self._kept[name]
            return True
