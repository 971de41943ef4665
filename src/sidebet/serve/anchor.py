"""The chain's head signed with the operator's Ed25519 key (no database needed, so
``sidebet audit`` runs offline).

A signed head states that the table's log, up to event ``seq``, ends in ``head``: the
signature covers the canonical JSON ``{"format": "sidebet-head/1", "head", "seq",
"table"}``.  The server appends one to the log (a ``head`` event) at every round end and
signs the last event of every export in its header; whoever kept a signed head can later
prove that the log was not rewritten or cut short before it.

>>> key = Ed25519PrivateKey.generate()
>>> signed = sign_head(key, 1, 5, "ab" * 32)
>>> verify_head(signed, public_hex(key))
>>> verify_head({**signed, "seq": 4}, public_hex(key))
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: the signature of the head at event 4 is not valid
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from sidebet.core.errors import SidebetError
from sidebet.serve.chain import canonical

__all__ = ["HEAD_FORMAT", "KEY_FORMAT", "head_message", "key_from_pem", "load_key",
           "public_hex", "read_public_key", "sign_head", "sign_rotation", "verify_head",
           "verify_rotation"]

HEAD_FORMAT = "sidebet-head/1"
"""The format named in every signed head's message."""
KEY_FORMAT = "sidebet-key/1"
"""The format named in a key rotation's message: the old key hands the chain to the new."""


def head_message(table: int, seq: int, head: str) -> bytes:
    """The bytes a head's signature covers."""
    return canonical({"format": HEAD_FORMAT, "head": head, "seq": seq,
                      "table": table}).encode()


def public_hex(key: Ed25519PrivateKey) -> str:
    """The raw public key of ``key``, in hex (64 characters)."""
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw).hex()


def sign_head(key: Ed25519PrivateKey, table: int, seq: int, head: str) -> dict[str, Any]:
    """The signed head of ``table`` at event ``seq``."""
    return {"table": table, "seq": seq, "head": head, "key": public_hex(key),
            "signature": key.sign(head_message(table, seq, head)).hex()}


def verify_head(signed: dict[str, Any], key: str | None = None) -> None:
    """Check a signed head's signature (with ``key``, the operator's public key in hex,
    when given: else with the key it names); :class:`SidebetError` if it is not valid."""
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(key or signed["key"]))
        if key is not None and signed.get("key") != key:
            raise InvalidSignature
        public.verify(bytes.fromhex(signed["signature"]),
                      head_message(int(signed["table"]), int(signed["seq"]),
                                   str(signed["head"])))
    except (InvalidSignature, ValueError, KeyError, TypeError):
        raise SidebetError(f"the signature of the head at event {signed.get('seq')} is not "
                           "valid") from None


def sign_rotation(old: Ed25519PrivateKey, table: int, seq: int, head: str,
                  new: str) -> dict[str, Any]:
    """A ``key`` event's payload: the old key signs the table's head at event ``seq`` and
    the new public key ``new`` (hex) that signs the chain from there on."""
    message = canonical({"format": KEY_FORMAT, "head": head, "new": new, "seq": seq,
                         "table": table}).encode()
    return {"table": table, "seq": seq, "head": head, "key": public_hex(old), "new": new,
            "signature": old.sign(message).hex()}


def verify_rotation(signed: dict[str, Any], key: str) -> str:
    """Check a key rotation signed with ``key`` (hex); the new key it hands the chain to,
    or :class:`SidebetError`.

    >>> old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    >>> turn = sign_rotation(old, 1, 9, "cd" * 32, public_hex(new))
    >>> verify_rotation(turn, public_hex(old)) == public_hex(new)
    True
    """
    try:
        if signed.get("key") != key:
            raise InvalidSignature
        new = str(signed["new"])
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(new))
        message = canonical({"format": KEY_FORMAT, "head": str(signed["head"]), "new": new,
                             "seq": int(signed["seq"]), "table": int(signed["table"])})
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(
            bytes.fromhex(signed["signature"]), message.encode())
    except (InvalidSignature, ValueError, KeyError, TypeError):
        raise SidebetError(f"the key rotation after event {signed.get('seq')} is not "
                           "signed by the key before it") from None
    return new


def key_from_pem(pem: bytes, where: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8) text; ``where`` names it in errors."""
    try:
        loaded = serialization.load_pem_private_key(pem, password=None)
    except (TypeError, ValueError) as exc:
        raise SidebetError(f"signing key {where}: {exc}") from None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SidebetError(f"signing key {where}: not an Ed25519 private key")
    return loaded


def load_key(path: Path, create: bool = True) -> Ed25519PrivateKey:
    """The operator's signing key at ``path`` (PEM, PKCS#8), created (readable by its owner
    only) when missing and ``create``."""
    path = path.expanduser()
    if not path.exists() and not create:
        raise SidebetError(f"signing key {path}: no such file")
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process created it meanwhile
            return load_key(path)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        return key
    try:
        pem = path.read_bytes()
    except OSError as exc:
        raise SidebetError(f"signing key {path}: {exc.strerror or exc}") from None
    return key_from_pem(pem, str(path))


def read_public_key(text: str) -> str:
    """An operator's public key given as 64 hex characters, or a file holding them or a
    PEM public key; in hex."""
    text = text.strip()
    if len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    path = Path(text)
    try:
        data = path.read_bytes().strip()
    except OSError as exc:
        raise SidebetError(f"--public-key {text!r}: neither 64 hex characters nor a "
                           f"readable file ({exc.strerror or exc})") from None
    if len(data) == 64:
        return read_public_key(data.decode("ascii", "replace"))
    try:
        public = serialization.load_pem_public_key(data)
    except ValueError:
        raise SidebetError(f"--public-key {text}: not an Ed25519 public key") from None
    if not isinstance(public, Ed25519PublicKey):
        raise SidebetError(f"--public-key {text}: not an Ed25519 public key")
    return public.public_bytes(serialization.Encoding.Raw,
                               serialization.PublicFormat.Raw).hex()
