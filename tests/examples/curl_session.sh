#!/usr/bin/env bash
# The API tour's "A game with curl" (service/docs/API.md), runnable against a live server:
#
#     bash tests/examples/curl_session.sh http://127.0.0.1:8000
#
# It prints each command exactly as the guide shows it (with localhost:8000), runs it against
# the server given as argument, and prints the answer as "# " comment lines, shortened to the
# fields the guide talks about. Code blocks are separated by one empty line. The guide marks the
# section that shows them with "<!-- runnable: tests/examples/curl_session.sh -->" and
# "<!-- /runnable -->"; a test (tests/integration/docs/test_runnable_sections.py) checks that the
# code blocks of every section so marked are this script's output, up to the random parts (game
# id, tokens, commitment, timestamps, a view tag's digest).
#
# The game is dealt from the explicit decks of new_game.json, with seat 1 as first dealer, so
# every card, version and answer is the same on every run. Needs only curl and python3.
set -euo pipefail

BASE=${1:?usage: curl_session.sh BASE_URL (e.g. http://127.0.0.1:8000)}
BASE=${BASE%/}
# the commands name new_game.json relative to the repository root, as a reader types them
cd "$(dirname "$0")/../.."

# Prints an answer (curl -si output, or a body) as comment lines. Arguments:
#   (none)       the whole JSON body
#   KEY ...      only these top-level keys, then "…"; KEY=… shows the key with its value elided
#   --events     an event list: one event a line, long "data" elided
#   --sse        a server-sent event stream, line by line
ABRIDGE=$(cat <<'PY'
import json, sys

WIDTH = 92
raw = sys.stdin.read()
args = sys.argv[1:]
out = []
body = raw
if raw.startswith("HTTP/"):
    head, _, body = raw.replace("\r\n", "\n").partition("\n\n")
    lines = head.split("\n")
    out.append(lines[0].strip())
    for h in lines[1:]:
        name = h.split(":", 1)[0].strip().lower()
        if name in ("location", "etag", "retry-after") or (name == "content-type" and "problem" in h):
            out.append(h.strip())


def render(v, first, last, indent):
    """``first`` + v as JSON + ``last``, broken between items to stay within WIDTH; each
    continuation line starts with ``indent`` spaces."""
    one = first + dump(v) + last
    if len(one) <= WIDTH or not isinstance(v, (dict, list)) or not v:
        return [one]
    items = entries(v) if isinstance(v, dict) else [("", x) for x in v]
    opening, closing = ("{", "}") if isinstance(v, dict) else ("[", "]")
    lines, cur = [], first + opening
    for i, (key, x) in enumerate(items):
        tail = ", " if i < len(items) - 1 else closing + last
        piece = key + dump(x) + tail
        if len(cur) + len(piece) > WIDTH and cur.strip() not in ("", first.strip() + opening):
            lines.append(cur.rstrip())
            cur = " " * indent
        if len(cur) + len(piece) <= WIDTH:
            cur += piece
            continue
        sub = render(x, cur + key, tail, indent + 1)
        lines += [line.rstrip() for line in sub[:-1]]
        cur = sub[-1]
    lines.append(cur)
    return lines


class Elided:
    """A value shown as "…" (or "{…}")."""

    def __init__(self, text):
        self.text = text


def entries(d):
    """(the "key": prefix, value) of each item; an Elided key stands alone for the keys left out."""
    return [("", k) if isinstance(k, Elided) else (f"{dump(k)}: ", x) for k, x in d.items()]


def dump(v):
    if isinstance(v, Elided):
        return v.text
    if isinstance(v, dict):
        return "{" + ", ".join(p + dump(x) for p, x in entries(v)) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


if body.strip():
    if args[:1] == ["--sse"]:
        for line in body.split("\n"):
            if line.startswith("data: "):
                out += render(json.loads(line[6:]), "data: ", "", 7)
            else:
                out.append(line)
        while out and not out[-1]:
            out.pop()
    else:
        doc = json.loads(body)
        if args[:1] == ["--events"]:
            # one event a line, its "data" elided unless the line has room for it
            out.append('{"events": [')
            for e in doc["events"]:
                line = "  " + dump(e) + ","
                out.append(line if len(line) <= WIDTH else "  " + dump(dict(e, data=Elided("{…}"))) + ",")
            out[-1] = out[-1].rstrip(",")
            out.append(f' ], "next_after": {dump(doc["next_after"])}}}')
        else:
            if args:
                shown = {}
                for a in args:
                    name, _, elided = a.partition("=")
                    shown[name] = Elided("{…}" if isinstance(doc[name], dict) else "…") if elided else doc[name]
                if set(doc) - set(shown):
                    shown[Elided("…")] = None  # the keys left out
                doc = shown
            out += render(doc, "", "", 1)
for line in out:
    print(("# " + line).rstrip())
PY
)

# say CMD: print CMD and run it in this shell (so that it may set variables)
say() {
    printf '%s\n' "$1"
    eval "${1//localhost:8000/$BASE}"
}

# show CMD [ABRIDGE ARGS...]: print CMD, run it, print its answer as comments
show() {
    local cmd=$1 answer
    shift
    printf '%s\n' "$cmd"
    answer=$(eval "${cmd//localhost:8000/$BASE}")
    printf '%s' "$answer" | python3 -c "$ABRIDGE" "$@"
}

block() { printf '\n'; }

# -- create the game: ann sits at seat 0, seat 1 stays open -----------------------------------
say 'GAME=$(curl -s -X POST localhost:8000/games -H '\''Content-Type: application/json'\'' \
            -d @tests/examples/new_game.json)'
show 'echo "$GAME"' game_id commitment randomly_dealt seats
say 'G=$(echo "$GAME" | python3 -c '\''import json,sys; print(json.load(sys.stdin)["game_id"])'\'')'
say 'A=$(echo "$GAME" | python3 -c '\''import json,sys; print(json.load(sys.stdin)["seats"][0]["token"])'\'')'
block

# -- bob takes the open seat: the game starts ---------------------------------------------------
say 'SEAT=$(curl -s -X POST localhost:8000/games/$G/seats/1 -H '\''Content-Type: application/json'\'' \
            -d '\''{"name": "bob"}'\'')'
show 'echo "$SEAT"' seat token view=…
say 'B=$(echo "$SEAT" | python3 -c '\''import json,sys; print(json.load(sys.stdin)["token"])'\'')'
block

# -- ann's view ----------------------------------------------------------------------------------
show 'curl -si localhost:8000/games/$G -H "Authorization: Bearer $A"' \
    status version dealer non_dealer phase to_act hand discard_top stock_size legal_moves
block

# -- moves: one that plays, a stale one, two refused ---------------------------------------------
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $A" \
     -H '\''Content-Type: application/json'\'' -H '\''If-Match: "4"'\'' -H '\''Idempotency-Key: ann-0001'\'' \
     -d '\''{"type": "pass_upcard"}'\''' \
    version phase to_act legal_moves
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $A" \
     -H '\''Content-Type: application/json'\'' -H '\''If-Match: "4"'\'' -d '\''{"type": "take_upcard"}'\'''
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $A" \
     -H '\''Content-Type: application/json'\'' -d '\''{"type": "discard", "card": "AS"}'\'''
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $B" \
     -H '\''Content-Type: application/json'\'' -d '\''{"type": "draw_stock"}'\'''
block

# -- bob passes too; ann draws from the stock and knocks -------------------------------------------
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $B" \
     -H '\''Content-Type: application/json'\'' -d '\''{"type": "pass_upcard"}'\''' \
    version to_act
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $A" \
     -H '\''Content-Type: application/json'\'' -d '\''{"type": "draw_stock"}'\''' \
    version phase drawn_card hand legal_moves
show 'curl -si -X POST localhost:8000/games/$G/moves -H "Authorization: Bearer $A" \
     -H '\''Content-Type: application/json'\'' -d '\''{"type": "knock", "discard": "KC",
         "melds": [["7C","7D","7H"], ["4S","5S","6S"], ["AD","2D","3D"]]}'\''' \
    version scores hand_no dealer non_dealer to_act last_hand
block

# -- the log, a past view, the stream ---------------------------------------------------------
show 'curl -s "localhost:8000/games/$G/events?after=0&limit=100" -H "Authorization: Bearer $B"' --events
show 'curl -s "localhost:8000/games/$G/state?version=4" -H "Authorization: Bearer $B"' \
    version phase to_act hand discard_top
show 'curl -sN "localhost:8000/games/$G/stream?once=1" -H "Authorization: Bearer $B" \
     -H '\''Last-Event-ID: 8'\''' --sse
