"""The answers of the requests that create things, kept under their Idempotency-Key, encrypted.

A creation's answer holds secrets shown once (a seat's token, a bot account's token), and the
server keeps tokens only as SHA-256 hashes. So the answer is never kept in the clear: it is
sealed with AES-GCM under a key derived (HKDF-SHA256) from the client's Idempotency-Key, the
request's scope and the server's secret (a pepper), and stored under a name derived the same way
with another label. Neither the Idempotency-Key nor the AES key is stored: a retry that sends the
key again finds the record and opens it.

What a copy of Redis reveals: with ``GINBOX_SECRET`` set (the same on every API process), nothing
(the pepper is in no key, so not even a guessed Idempotency-Key opens a record). Without it, the
pepper is generated once and kept in Redis (``<prefix>:idem-secret``), so a copy holds it, and
whoever guesses a record's Idempotency-Key can open that record offline. That is why a creation's
key must be long and unguessable (``CREATION_KEY``: at least 22 of the 64 characters of
base64url, 132 bits if random; a random UUID's 36 qualify): short keys are refused, so a guess is
no cheaper than guessing the seat token itself.

One Redis string per (scope, key), ``<prefix>:idem:<hex>``, holds either

- a claim, ``P<lease id>`` with a short TTL (CLAIM_LEASE_MS): the first request with the key is
  being answered, and any other one with it is told to wait (so two requests at once never
  both create); or
- the record, ``R<nonce><ciphertext>`` with a long TTL (RECORD_TTL_S): the first successful
  answer (status, the headers that matter, body) and the fingerprint of the request it answered.

A claim is given up when its request is refused (nothing is recorded of a refusal), and
replaced by the record when it succeeds; both only while it is still the claim of that request.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

#: how long a recorded answer is replayed (seconds): 24 hours
RECORD_TTL_S = 24 * 3600
#: how long a claim holds the key while its request is answered (ms); a process that dies
#: meanwhile frees the key when it runs out
CLAIM_LEASE_MS = 30_000
#: what a request refused because the key is claimed is told to wait (seconds)
IN_USE_RETRY_AFTER_S = 1
#: what a creation's Idempotency-Key is made of: 22 to 200 letters, digits, '-' or '_' (the
#: base64url alphabet; a UUID's hex digits and hyphens are among them)
CREATION_KEY = re.compile(r"^[A-Za-z0-9_-]{22,200}$")
CREATION_KEY_RULE = "22 to 200 letters, digits, '-' or '_' (a random UUID qualifies)"
#: v2: the pepper is part of the derivation (records of v1, made without one, are not found)
_SALT = b"ginbox idempotency v2"
#: the pepper generated once, when GINBOX_SECRET is not set: (prefix:) this name
SECRET_KEY_NAME = "idem-secret"
_SECRET_BYTES = 32
_CLAIM, _RECORD = b"P", b"R"
_NONCE_BYTES = 12

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


def request_fingerprint(method: str, path: str, body_json: str) -> str:
    """sha256 of the method, the path and the canonical JSON of the body: what a key stands for."""
    return hashlib.sha256(f"{method.upper()} {path}\n{body_json}".encode("utf-8")).hexdigest()


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


class Undecipherable(Exception):
    """The record under a key does not open with it (it was altered): nothing can be replayed."""


class Slot:
    """Where the answer of one (scope, Idempotency-Key) is kept: its Redis key and its cipher."""

    def __init__(self, store: CreationRecords, scope: str, key: str):
        self.store = store
        pepper = store.pepper()
        self.name = f"{store.prefix}:idem:{_derive(pepper, key, b'index', scope).hex()}"
        self._aead = AESGCM(_derive(pepper, key, b'record', scope))

    def claim(self) -> Claimed | InUse | RecordedAnswer:
        """Claim the key for this request, or what holds it: a request being answered, or a record.

        Undecipherable if the record under the key does not open with it.
        """
        redis = self.store.redis
        for _ in range(3):
            lease = _CLAIM + secrets.token_hex(16).encode("ascii")
            if redis.set(self.name, lease, nx=True, px=self.store.lease_ms):
                return Claimed(lease)
            held = redis.get(self.name)
            if held is None:
                continue  # the holder gave its claim up, or the record ran out, meanwhile: claim again
            if held.startswith(_CLAIM):
                return InUse()
            return self._open(held)
        return InUse()

    def record(self, claimed: Claimed, answer: RecordedAnswer) -> bool:
        """Replace this request's claim by its answer, kept for the record's TTL; False if the claim was lost."""
        nonce = secrets.token_bytes(_NONCE_BYTES)
        sealed = _RECORD + nonce + self._aead.encrypt(nonce, answer._plain(), self.name.encode("utf-8"))
        return bool(self.store.settle(keys=[self.name], args=[claimed.lease, sealed, self.store.ttl_s * 1000]))

    def release(self, claimed: Claimed) -> bool:
        """Give the claim up (the request was refused: nothing is recorded); False if it was lost already."""
        return bool(self.store.settle(keys=[self.name], args=[claimed.lease, b"", 0]))

    def _open(self, held: bytes) -> RecordedAnswer:
        if not held.startswith(_RECORD) or len(held) <= 1 + _NONCE_BYTES:
            raise Undecipherable(self.name)
        nonce, sealed = held[1:1 + _NONCE_BYTES], held[1 + _NONCE_BYTES:]
        try:
            return RecordedAnswer._from_plain(self._aead.decrypt(nonce, sealed, self.name.encode("utf-8")))
        except (InvalidTag, ValueError, KeyError, TypeError) as err:
            raise Undecipherable(self.name) from err


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
