"""An example card-reading shoe: plays the cards of a file into a dealer-assist table
through the device API's WebSocket (docs/dealer-assist.md).

The file holds one card per line, in dealing order, with the reading's confidence if the
reader gives one (``8h 0.998``); blank lines and ``#`` comments are skipped.  The device
signs in with its account (made by the operator with the ``device`` role; the password
is read from ``SIDEBET_DEVICE_PASSWORD``), asks the table where the shoe stands (unless
``--start`` says it) and sends one message per card.  It prints each answer and stops at
the first refusal, with the rule the server cites, exit status 2; a card answered 503
(the table changing hands between server processes) is sent again.

    SIDEBET_DEVICE_PASSWORD=... python examples/reading_shoe.py \\
        --server http://127.0.0.1:8000 --table 1 --name shoe-1 cards.txt
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

MAX_CARDS = 8 * 52
"""A shoe holds at most 8 decks."""
RETRIES = 10
"""Times a card is sent while the server answers 503 (the table changing hands between
server processes; a card sent again for the position that holds it is answered 200)."""


def read_cards(path: Path) -> list[tuple[str, float | None]]:
    """The file's cards and confidences, in order (at most one 8-deck shoe)."""
    out: list[tuple[str, float | None]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) > 2:
            raise ValueError(f"{path}:{number}: a line is a card and its confidence")
        out.append((fields[0], float(fields[1]) if len(fields) == 2 else None))
        if len(out) > MAX_CARDS:
            raise ValueError(f"{path}: more than {MAX_CARDS} cards")
    return out


def play(server: str, table: int, name: str, password: str, cards: list[tuple[str, float | None]],
         start: int | None = None) -> int:
    """Send ``cards`` to ``table``; 0 when every card was accepted, 2 at a refusal."""
    with httpx.Client(base_url=server, timeout=30) as http:
        signed = http.post("/api/tokens", json={"name": name, "password": password})
        if signed.status_code != 201:
            print(f"error: sign-in refused: {signed.json().get('detail')}", file=sys.stderr)
            return 2
        token = signed.json()["token"]
        if start is None:
            state = http.get(f"/api/tables/{table}/state").json()
            start = int((state.get("physical") or {}).get("next_position", 0))
    ws_url = server.replace("http", "ws", 1) + f"/api/device/tables/{table}/ws"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"token": token}))
        hello = json.loads(ws.recv())
        if hello.get("status") != 200:
            print(f"error: {hello.get('detail')}", file=sys.stderr)
            return 2
        for offset, (card, confidence) in enumerate(cards):
            message = json.dumps({"id": offset, "position": start + offset, "card": card,
                                  "confidence": confidence})
            for _ in range(RETRIES):  # 503: the table changing hands; the card sent again
                ws.send(message)
                answer = json.loads(ws.recv())
                if answer["status"] != 503:
                    break
                time.sleep(1)
            if answer["status"] not in (200, 201):  # 200: the position held it already
                rules = "; ".join(v["rule"] for v in answer.get("violations", []))
                print(f"error: card {card} at position {start + offset} refused "
                      f"({answer['status']}): {answer['detail']}"
                      + (f" [{rules}]" if rules else ""), file=sys.stderr)
                return 2
            done = answer["card"]["applied"]
            print(f"{card} at {start + offset}: accepted"
                  + (f"; {done['step']} applied" if done else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--table", type=int, required=True)
    parser.add_argument("--name", required=True, help="the device's account")
    parser.add_argument("--start", type=int, default=None,
                        help="the shoe position of the first card (default: the table's)")
    args = parser.parse_args(argv)
    password = os.environ.get("SIDEBET_DEVICE_PASSWORD")
    if not password:
        print("error: set SIDEBET_DEVICE_PASSWORD to the device's password", file=sys.stderr)
        return 2
    try:
        cards = read_cards(args.file)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return play(args.server, args.table, args.name, password, cards, args.start)
    except (httpx.HTTPError, OSError) as exc:
        print(f"error: the server cannot be reached: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
