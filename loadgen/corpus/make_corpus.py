"""Writes loadgen/corpus/json-1024.jsonl: the fixed corpus of realistic JSON messages the load
generator sends where compression is measured (impls/PROTOCOL.md, "The JSON corpus").

Written once and committed; this script is kept so that anyone can see how it was made and
check that it still makes the same bytes (``python3 loadgen/corpus/make_corpus.py --check``).
It uses the standard library only and a fixed seed.

Each line is one message of exactly :data:`SIZE` bytes of UTF-8 JSON (ASCII, in fact), an
object whose first member is ``"seq":"0000000000000000"``: the load generator writes each
message's sequence number, 16 lowercase hex digits, at byte offset :data:`SEQ_OFFSET`. The
messages are of three kinds, in a fixed shuffled order, a third each:

- *chat*: a message in a channel, with its author, mentions, reactions and a thread;
- *market*: an order book update with ten price levels a side and the last trades;
- *event*: an API event as a webhook delivers it (an issue, a payment, a deployment).

Their free text (the chat message, the event's description) is made of common English words
and sized so that every message is exactly :data:`SIZE` bytes. Random bytes would not
compress at all, and the repeated alphabet of 1 KiB echo messages about 70 to 1 (zlib level 6,
context kept; 24 to 1 without):
these compress as JSON APIs do, from their shared keys and structure and their words.
:data:`COUNT` messages (128 KiB) is four times the largest DEFLATE window (32 KiB), so a
message's exact copy is never within the window when the corpus is sent in order.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

SIZE = 1024
"""Bytes of every message."""
COUNT = 128
"""Messages in the corpus."""
SEED = 7692
"""The random seed (RFC 7692's number)."""
SEQ_OFFSET = len('{"seq":"')
"""Byte offset of the 16 sequence digits in every message."""
OUT = Path(__file__).with_name(f"json-{SIZE}.jsonl")

WORDS_TEXT = """
the be to of and a in that have it for not on with he as you do at this but his by from they
we say her she or an will my one all would there their what so up out if about who get which
go me when make can like time no just him know take people into year your good some could
them see other than then now look only come its over think also back after use two how our
work first well way even new want because any these give day most us is are was were been
has had did said made found went thought told became left felt brought began kept held
meeting release deploy build test review merge branch commit issue patch server client
socket message channel thread user team project update change fix bug feature request
response latency throughput queue worker cluster node region service database cache index
query schema migration rollout rollback incident alert metric dashboard report customer
order payment invoice refund account balance price market trade ticket support weekend
morning afternoon evening tomorrow yesterday today week month quarter plan goal budget
design draft document note idea question answer problem solution reason result step
"""
WORDS = WORDS_TEXT.split()
"""Common English words, the free text's vocabulary."""
FIRST = [
    "ana",
    "ben",
    "chen",
    "dara",
    "eli",
    "fatima",
    "goran",
    "hana",
    "ivan",
    "jun",
    "kofi",
    "lena",
    "marco",
    "nadia",
    "omar",
    "priya",
    "quinn",
    "rosa",
    "sam",
    "tariq",
]
LAST = [
    "silva",
    "okafor",
    "novak",
    "tanaka",
    "berg",
    "moreau",
    "haddad",
    "kowalski",
    "nguyen",
    "garcia",
    "fischer",
    "rossi",
    "ivanova",
    "patel",
    "larsen",
    "kim",
]
CHANNELS = [
    "general",
    "random",
    "deploys",
    "support",
    "design",
    "backend",
    "frontend",
    "incidents",
    "releases",
    "sales",
]
EMOJI = ["thumbsup", "tada", "eyes", "rocket", "heart", "white_check_mark", "fire", "pray"]
SYMBOLS = ["BTC-USDT", "ETH-USDT", "SOL-USDT", "AAPL", "MSFT", "NVDA", "EUR-USD", "GBP-USD"]
EVENTS = [
    "issue.opened",
    "issue.closed",
    "payment.succeeded",
    "payment.refunded",
    "deployment.created",
    "deployment.finished",
    "invoice.paid",
    "user.signed_up",
]
EPOCH = 1_764_288_000  # 2025-11-28 00:00:00 UTC


def words(rng: random.Random, count: int) -> str:
    """``count`` words from :data:`WORDS`, a sentence-like string."""
    return " ".join(rng.choice(WORDS) for _ in range(count))


def person(rng: random.Random) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "id": f"U{rng.randrange(10**8, 10**9)}",
        "name": f"{first}.{last}",
        "display_name": f"{first.title()} {last.title()}",
        "avatar": f"https://cdn.example.com/avatars/{first}-{last}-{rng.randrange(10**4)}.png",
    }


def timestamp(rng: random.Random) -> str:
    seconds = EPOCH + rng.randrange(86_400)
    hh, mm, ss = seconds // 3600 % 24, seconds // 60 % 60, seconds % 60
    return f"2025-11-28T{hh:02}:{mm:02}:{ss:02}.{rng.randrange(1000):03}Z"


def chat(rng: random.Random, text: str) -> dict[str, Any]:
    """A chat message; ``text`` is its free text."""
    return {
        "type": "message",
        "channel": {"id": f"C{rng.randrange(10**7, 10**8)}", "name": rng.choice(CHANNELS)},
        "user": person(rng),
        "ts": timestamp(rng),
        "text": text,
        "mentions": [person(rng)["name"] for _ in range(rng.randrange(3))],
        "reactions": [
            {"name": rng.choice(EMOJI), "count": rng.randrange(1, 9)}
            for _ in range(rng.randrange(4))
        ],
        "thread": {"reply_count": rng.randrange(20), "latest_reply": timestamp(rng)},
        "edited": rng.random() < 0.2,
    }


def market(rng: random.Random, text: str) -> dict[str, Any]:
    """An order book update; ``text`` is its venue's status note."""
    mid = round(rng.uniform(20, 60_000), 2)
    tick = max(0.01, round(mid * 0.0001, 2))
    return {
        "type": "book",
        "symbol": rng.choice(SYMBOLS),
        "ts": timestamp(rng),
        "bids": [
            [round(mid - tick * (i + 1), 2), round(rng.uniform(0.01, 25), 4)] for i in range(10)
        ],
        "asks": [
            [round(mid + tick * (i + 1), 2), round(rng.uniform(0.01, 25), 4)] for i in range(10)
        ],
        "trades": [
            {
                "price": round(mid + tick * rng.randrange(-3, 4), 2),
                "size": round(rng.uniform(0.001, 5), 4),
                "side": rng.choice(["buy", "sell"]),
            }
            for _ in range(rng.randrange(1, 4))
        ],
        "note": text,
    }


def event(rng: random.Random, text: str) -> dict[str, Any]:
    """An API event as a webhook delivers it; ``text`` is its description."""
    kind = rng.choice(EVENTS)
    return {
        "type": "event",
        "event": kind,
        "id": f"evt_{rng.randrange(16**12):012x}",
        "created": timestamp(rng),
        "actor": person(rng),
        "object": {
            "id": f"{kind.split('.')[0]}_{rng.randrange(10**6)}",
            "status": kind.split(".")[1],
            "amount": rng.randrange(100, 10**6) if "pay" in kind or "invoice" in kind else None,
            "currency": "usd",
            "url": f"https://api.example.com/v1/{kind.split('.')[0]}s/{rng.randrange(10**6)}",
            "labels": [rng.choice(WORDS) for _ in range(rng.randrange(4))],
            "description": text,
        },
        "delivery": {"attempt": 1, "signature": f"sha256={rng.randrange(16**32):032x}"},
    }


KINDS = (chat, market, event)


def encode(seq_first: dict[str, Any]) -> bytes:
    """The compact JSON of one message (``"seq"`` first), as a server's ``json.dumps`` with
    ``separators=(",", ":")`` writes it."""
    return json.dumps(seq_first, separators=(",", ":"), ensure_ascii=True).encode()


def sized(rng: random.Random, kind: Any) -> bytes:
    """One message of ``kind`` of exactly :data:`SIZE` bytes: the free text is grown word by
    word, then cut or padded with words' letters to the size."""
    text_rng = random.Random(rng.getrandbits(64))  # this message's own words
    state = rng.getstate()
    text = ""
    while True:
        rng.setstate(state)
        body = encode({"seq": "0" * 16, **kind(rng, text)})
        if len(body) >= SIZE:
            break
        missing = SIZE - len(body)
        more = words(text_rng, max(1, missing // 6))
        text = (text + " " + more).strip()
    over = len(body) - SIZE
    if over:
        text = text[: len(text) - over].rstrip()
        rng.setstate(state)
        body = encode({"seq": "0" * 16, **kind(rng, text)})
        short = SIZE - len(body)
        text += "s" * short  # a trailing plural keeps the text words-like
        rng.setstate(state)
        body = encode({"seq": "0" * 16, **kind(rng, text)})
    if len(body) != SIZE:
        raise SystemExit(f"a {kind.__name__} message came out at {len(body)} bytes, not {SIZE}")
    rng.setstate(state)
    kind(rng, text)  # leave the generator where this message's draws end
    return body


def corpus() -> bytes:
    """The whole corpus file: :data:`COUNT` lines."""
    rng = random.Random(SEED)
    kinds = [KINDS[i % len(KINDS)] for i in range(COUNT)]
    rng.shuffle(kinds)
    return b"".join(sized(rng, kind) + b"\n" for kind in kinds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed file instead of writing it"
    )
    args = parser.parse_args()
    made = corpus()
    if args.check:
        same = OUT.is_file() and OUT.read_bytes() == made
        print(f"{OUT.name}: {'the same' if same else 'DIFFERENT'}")
        return 0 if same else 1
    OUT.write_bytes(made)
    print(f"wrote {OUT} ({COUNT} messages of {SIZE} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
