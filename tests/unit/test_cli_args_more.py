"""``ginbox audit`` and ``ginbox match`` arguments: exports whose names begin with ``-``, ``--match``
without exports, an empty participant name; and the download-and-audit commands of FAIRNESS.md
("Checking a match") run as written, against a small HTTP server that answers as the API does.

A game id is of ``[A-Za-z0-9_-]``, so an export saved as ``<game id>.ndjson`` may be named
``-abc.ndjson``; a shell's ``*.ndjson`` then hands the command something that looks like an option.
The match here is played as test_match_audit.py plays its own (basic against random, two boards,
a forfeit among the tables), under a match id whose game ids, fixed by (match, board, table), begin
with ``-`` at three tables of the four.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import test_match_audit as played

from service.cli import main

REPO = Path(__file__).resolve().parents[2]
FAIRNESS = REPO / "service/docs/FAIRNESS.md"
DASHED_MATCH_ID = "AAAAAAAAAAAAAENZ"  # its games: -x4hSVF0qJz0E-vE, sLqroKNJJWyDGf0H, -RhJtB94zOXs5zZx, -G1wySeMBY77dQve


@pytest.fixture(scope="module")
def dashed():
    """(the match's document, {game id: export text})."""
    kept = played.MATCH_ID
    played.MATCH_ID = DASHED_MATCH_ID
    try:
        logs = {(0, 0): played.play(0, 0), (0, 1): played.play(0, 1), (1, 0): played.play(1, 0),
                (1, 1): played.play(1, 1, resign_first=True)}
        doc = played.match_doc({k: played.table_points(v) for k, v in logs.items()})
    finally:
        played.MATCH_ID = kept
    texts = {table["game_id"]: "\n".join(played.export(logs[board["board"], table["table"]])) + "\n"
             for board in doc["board_results"] for table in board["tables"]}
    assert sum(gid.startswith("-") for gid in texts) == 3
    return doc, texts


def write(into: Path, doc: dict, texts: dict) -> list[str]:
    """match.json and ``<game id>.ndjson`` in ``into``; the exports' names."""
    (into / "match.json").write_text(json.dumps(doc))
    for gid, text in texts.items():
        (into / f"{gid}.ndjson").write_text(text)
    return sorted(f"{gid}.ndjson" for gid in texts)


def last_line(capsys) -> str:
    return capsys.readouterr().out.splitlines()[-1]


def test_exports_named_like_options_are_audited_as_files(dashed, tmp_path, monkeypatch, capsys):
    doc, texts = dashed
    monkeypatch.chdir(tmp_path)
    names = write(tmp_path, doc, texts)
    assert main(["audit", "--match", "match.json", *names]) == 0
    assert last_line(capsys).startswith("audit passed")
    # as the shell's bare *.ndjson gives them, before the option too
    assert main(["audit", *names, "--match", "match.json"]) == 0
    assert last_line(capsys).startswith("audit passed")
    # one game's export, alone
    assert main(["audit", names[0]]) == 0
    assert last_line(capsys).startswith("audit passed")


def test_a_match_without_exports_is_a_usage_error_in_one_line(dashed, tmp_path, capsys):
    doc, texts = dashed
    write(tmp_path, doc, texts)
    assert main(["audit", "--match", str(tmp_path / "match.json")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and "EXPORT [EXPORT ...]" in err, err


@pytest.mark.parametrize("participants", ["basic,,random", "basic,", ",basic", "basic, ,random"])
def test_an_empty_participant_name_is_refused_before_anything_is_played(participants, capsys):
    assert main(["match", "--local", "--participants", participants, "--boards", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and "empty name" in err, err


def documented_match_commands() -> str:
    """The shell block of FAIRNESS.md that downloads a match and its exports and audits them."""
    text = FAIRNESS.read_text(encoding="utf-8").split("## Checking a match", 1)[1]
    return re.search(r"```sh\n(.*?)```", text, re.S).group(1)


class Api(BaseHTTPRequestHandler):
    """GET /matches/{id} and GET /games/{id}/export, as the API answers them; 404 otherwise."""

    documents: dict = {}

    def do_GET(self):
        body = self.documents.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.end_headers()
        self.wfile.write((body or "{}").encode())

    def log_message(self, *args):
        pass


def test_the_documented_commands_audit_a_match_whose_game_ids_begin_with_a_dash(dashed, tmp_path):
    doc, texts = dashed
    Api.documents = {f"/matches/{doc['match_id']}": json.dumps(doc),
                     **{f"/games/{gid}/export": text for gid, text in texts.items()}}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        script = documented_match_commands()
        # the block's two settings, the server's address and the match's id, given their values here
        script, settings = re.subn(r"^GINBOX=\S+", f"GINBOX=http://127.0.0.1:{server.server_port}", script,
                                   flags=re.M)
        script, ids = re.subn(r"^M=\S+", f"M={doc['match_id']}", script, flags=re.M)
        assert (settings, ids) == (1, 1), script
        (tmp_path / ".venv").symlink_to(REPO / ".venv")
        done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("audit passed"), done.stdout
    assert sorted(p.name for p in (tmp_path / "exports").iterdir()) == sorted(f"{g}.ndjson" for g in texts)
