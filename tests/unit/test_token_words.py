"""Tokens as command-line words: never with a leading '-', and the arena bot takes one from its
command line or its environment."""

from __future__ import annotations

import string

import pytest

from service.store.tokens import issue_token
from workers.arena_bot import TOKEN_ENV, parse_args

URLSAFE = set(string.ascii_letters + string.digits + "-_")


def test_issued_tokens_never_begin_with_a_dash():
    # one token in 64 would, if nothing prevented it: among 3,000 some would (all but surely)
    tokens = [issue_token() for _ in range(3000)]
    assert all(t[0] != "-" for t in tokens)
    assert all(len(t) == 43 and set(t) <= URLSAFE for t in tokens)  # 32 random bytes, URL-safe
    assert len(set(tokens)) == len(tokens)


def test_the_arena_bot_reads_its_token_from_the_command_line():
    args = parse_args(["http://127.0.0.1:8000", "abc", "--threads", "4"], environ={})
    assert (args.base, args.token, args.threads) == ("http://127.0.0.1:8000", "abc", 4)


def test_the_arena_bot_reads_its_token_from_the_environment_when_the_command_line_names_none():
    args = parse_args(["http://127.0.0.1:8000", "--accept-challenges"], environ={TOKEN_ENV: "-starts-with-a-dash"})
    assert args.token == "-starts-with-a-dash"
    assert args.accept_challenges is True


def test_the_command_line_token_wins_over_the_environment():
    args = parse_args(["http://127.0.0.1:8000", "abc"], environ={TOKEN_ENV: "other"})
    assert args.token == "abc"


def test_a_token_with_a_leading_dash_goes_after_a_double_dash():
    args = parse_args(["--threads", "2", "http://127.0.0.1:8000", "--", "-abc"], environ={})
    assert args.token == "-abc"


def test_without_a_token_the_arena_bot_stops_with_a_clear_message(capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(["http://127.0.0.1:8000"], environ={})
    assert stop.value.code == 2
    assert TOKEN_ENV in capsys.readouterr().err
