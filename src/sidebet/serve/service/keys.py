"""The house's signing key: one per house, from the operator.

The key comes from ``Settings.signing_key_pem`` (a secret) or the file
``Settings.signing_key``; the database records the house's public keys in order
(:class:`~sidebet.serve.models.HouseKey`).  The first process of a new house records its
key; every later process, on this host or another, must present the last one recorded or
refuses to start with one line saying why.  A rotation (:func:`rotate`, ``sidebet
rotate-key``) appends to every table's log a ``key`` event, the old key signing the chain's
head and the new public key, so that ``sidebet audit`` follows the chain across it.
"""

from __future__ import annotations

import json

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import select
from sqlalchemy.orm import Session

from sidebet.core.errors import SidebetError
from sidebet.serve.anchor import key_from_pem, load_key, public_hex, sign_rotation
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.models import Event, HouseKey
from sidebet.serve.service.core import Core, Tx
from sidebet.serve.settings import Settings

__all__ = ["house_key", "operator_key", "rotate"]


def operator_key(settings: Settings, create: bool) -> Ed25519PrivateKey:
    """The key the operator gives this process: ``signing_key_pem``, else the file
    ``signing_key`` (created when missing and ``create``)."""
    if settings.signing_key_pem is not None:
        return key_from_pem(settings.signing_key_pem.get_secret_value().encode(),
                            "SIDEBET_SIGNING_KEY_PEM")
    return load_key(settings.signing_key, create=create)


def _last(s: Session) -> HouseKey | None:
    return s.scalars(select(HouseKey).order_by(HouseKey.seq.desc()).limit(1)).first()


def house_key(core: Core, settings: Settings) -> Ed25519PrivateKey:
    """This process's signing key, checked against the house's (recorded on the house's
    first start): :class:`SidebetError` with one line when it is not the house's."""
    with core.writing(), core.sessions.begin() as s:
        last = _last(s)
        try:
            key = operator_key(settings, create=last is None)
        except SidebetError as exc:
            raise SidebetError(f"{exc}; this house signs with {last.public[:16]}... "
                               "(every process needs the house's key)"
                               if last is not None else str(exc)) from None
        mine = public_hex(key)
        if last is None:
            s.add(HouseKey(seq=1, public=mine, at=utc_now()))
        elif last.public != mine:
            raise SidebetError(
                f"the signing key {mine[:16]}... is not this house's key "
                f"{last.public[:16]}...: every process of a house signs with the same key "
                "(SIDEBET_SIGNING_KEY or SIDEBET_SIGNING_KEY_PEM); a new key comes in by "
                "sidebet rotate-key")
    return key


def rotate(core: Core, old: Ed25519PrivateKey, new: Ed25519PrivateKey) -> int:
    """Hand every table's chain from ``old`` (the house's key) to ``new``: a ``key`` event
    appended to each log (tables already handed over, by a rotation cut short, are left),
    then ``new`` recorded as the house's key.  The number of tables handed over."""
    new_public = public_hex(new)
    with core.sessions() as s:
        last = _last(s)
    if last is None or last.public != public_hex(old):
        raise SidebetError("the old key is not this house's signing key")
    if last.public == new_public:
        raise SidebetError("the new key is the house's key already")
    done = 0
    for table_id in sorted(core.tables):
        with core.sessions() as s:
            turned = s.scalar(select(Event.payload).where(
                Event.table_id == table_id, Event.kind == "key")
                .order_by(Event.seq.desc()).limit(1))
        if turned is not None and json.loads(turned).get("new") == new_public:
            continue

        def work(s: Session, tx: Tx) -> tuple[int, dict[str, str]]:
            live = tx.table
            assert live is not None
            core.append(s, tx, "key", sign_rotation(old, live.id, live.seq, live.head,
                                                    new_public))
            return 200, {}

        core.run(None, None, canonical(["key", new_public]), table_id, work)
        done += 1
    with core.writing(), core.sessions.begin() as s:
        s.add(HouseKey(seq=last.seq + 1, public=new_public, at=utc_now()))
    return done
