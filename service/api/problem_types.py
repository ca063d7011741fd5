"""The catalogue of problem types: every ``code`` an error answer can carry, and what to do about it.

An error answer's ``type`` is ``/problems/<code>``, relative to the server that answered (RFC 9457 §3.1.1).
``GET`` it and this catalogue's entry comes back.
``code`` is the stable identifier to branch on.
Each entry names the HTTP statuses its code is answered with.
"""

# tests/unit/test_problem_types.py finds every code the service's source can raise,
# and checks it is listed here.
# The tests' client checks every error answer it receives against this catalogue.

from __future__ import annotations

from dataclasses import dataclass

from werkzeug.exceptions import default_exceptions

PROBLEM_PATH = "/problems/"


@dataclass(frozen=True)
class ProblemType:
    """One kind of error answer: its statuses, a short title and what a client should do."""

    statuses: tuple[int, ...]
    title: str
    description: str


def _t(statuses, title: str, description: str) -> ProblemType:
    return ProblemType(tuple(statuses) if isinstance(statuses, (list, tuple)) else (statuses,), title, description)


# -- requests, authentication, limits --------------------------------------------------------------
_REQUEST = {
    "invalid_json": _t(400, "Body is not JSON",
                       "The body is not valid UTF-8 JSON (NaN, Infinity and lone surrogates are not JSON), "
                       "holds a number too long to read (an integer of more than 4300 digits), "
                       "an object of it names a key twice, or it nests arrays and objects more than 64 levels "
                       "deep (the detail says which). Send a JSON document."),
    "invalid_body": _t(400, "Body does not match its schema",
                       "The body is JSON but does not match the schema of this request in openapi.yaml; "
                       "`errors` names each field at fault. Unknown fields are refused too. An operation "
                       "that takes no body (a challenge's answers) refuses any body sent with it, JSON or "
                       "not: send none."),
    "invalid_query": _t(400, "Invalid query parameter",
                        "A query parameter is malformed, out of range or a cursor this server did not hand "
                        "out, is not one the operation lists in openapi.yaml, or is given more than once; a "
                        "seat token sent as `?token=` to a request other than the streams is refused too "
                        "(send it as `Authorization: Bearer <token>`). `errors` names each parameter at fault."),
    "invalid_header": _t(400, "Invalid header",
                         "A header this request uses is malformed: Idempotency-Key (1 to 200 visible ASCII "
                         "characters; on a creation or a challenge's answer, 22 to 200 letters, digits, '-' "
                         "or '_'), If-Match (`*` or a list of `\"<version>\"` ETags); `errors` names it."),
    "unsupported_media_type": _t(415, "Unsupported media type",
                                 "Send the body with `Content-Type: application/json`, in UTF-8: a `charset` "
                                 "parameter other than `utf-8` is refused, not guessed at."),
    "unsupported_encoding": _t(415, "Unsupported content encoding",
                               "The body was sent with a `Content-Encoding` (gzip, br, deflate, ...): the server "
                               "reads a body as sent and decodes none. Send it without the header, or with "
                               "`Content-Encoding: identity`."),
    "body_too_large": _t(413, "Body too large",
                         "The body is larger than the server accepts (GINBOX_MAX_BODY_BYTES, 64 KiB by default)."),
    "unauthorized": _t(401, "Seat token needed",
                       "The request needs the seat token of this game (`Authorization: Bearer <token>`), or the "
                       "token presented is malformed or belongs to no seat of this game. Tokens are given once, "
                       "when the game is created or a seat is claimed."),
    "metrics_token_required": _t(401, "Metrics token needed",
                                 "This server's `/metrics` is not public: its operator set GINBOX_METRICS_TOKEN, and "
                                 "a scrape must present that token (`Authorization: Bearer <token>`); none was "
                                 "presented, or another one."),
    "forbidden": _t(403, "Forbidden",
                    "The token may not send this request at all: its seat has no such move (for example, "
                    "a move of the three-hand advisor, who sits out the hand), or it holds no place where the "
                    "request applies (a match's turns read with a token that plays no person's seat of that match)."),
    "invite_required": _t(403, "Invite required",
                          "This open seat was created by invitation (`private` game): claim it with the "
                          "seat's invite secret in the body (`invite`), as given once to the game's creator. "
                          "A missing or wrong secret is refused the same way, and nothing changes."),
    "rate_limited": _t(429, "Too many requests",
                       "More requests than GINBOX_RATE_LIMIT per minute from this client address or token, "
                       "or a live stream beyond the GINBOX_MAX_STREAMS_PER_CLIENT it may hold open at once. "
                       "Wait the seconds in Retry-After (or close one of its streams)."),
    "idempotency_key_reused": _t(422, "Idempotency-Key reused",
                                 "This Idempotency-Key was already used for a different request (another body or "
                                 "path): by this seat in this game for a move or advice, on this route for a "
                                 "creation (by this token, when one is presented). A retry must repeat the first "
                                 "request exactly; a new request needs a new key."),
    "idempotency_key_in_use": _t(409, "Idempotency-Key in use",
                                 "A request with this Idempotency-Key is being answered right now (a creation "
                                 "sent twice at once). Wait the seconds in Retry-After and send it again: it then "
                                 "gets the first request's answer, or is decided afresh if that one was refused."),
}

# -- games, versions, concurrency -----------------------------------------------------------------
_GAMES = {
    "game_not_found": _t(404, "No such game", "There is no game with this id on this server."),
    "seat_not_found": _t(404, "No such seat", "The game has no seat with this number (seats are 0 to 1, or 0 to 2)."),
    "version_not_found": _t(404, "No such version", "The game has not reached this version yet."),
    "invalid_version": _t(422, "Invalid version", "Versions start at 1, the game's creation."),
    "game_not_over": _t(409, "Game not over",
                        "This is only available once the game is over (the audit, the export), because it "
                        "shows the seed and every card."),
    "conflict": _t(409, "Conflict",
                   "Another command was recorded in this game while this one was decided. Load the game "
                   "again and decide once more; send If-Match to be told instead (412)."),
    "version_mismatch": _t(412, "Version mismatch",
                           "The game is not at the version named in If-Match; the ETag header gives the "
                           "current one. Load the game again before deciding."),
}

# -- the arena: bot accounts, matches, challenges -----------------------------------------------------
_ARENA = {
    "bot_not_found": _t(404, "No such bot", "No bot account has this name."),
    "match_not_found": _t(404, "No such match", "There is no match with this id on this server."),
    "challenge_not_found": _t(404, "No such challenge", "There is no challenge with this id on this server."),
    "bot_token_required": _t(401, "Bot token needed",
                             "This request needs a bot account's token (`Authorization: Bearer <token>`, as "
                             "given once by `POST /bots`); the one presented is missing, malformed or no bot's."),
    "challenge_token_required": _t(401, "Challenge token needed",
                                   "Withdrawing a person's challenge needs the token its answer gave, once "
                                   "(`Authorization: Bearer <token>`); none was presented, or the Authorization "
                                   "header is malformed. Nothing changed."),
    "match_game_sealed": _t(403, "Match game sealed",
                            "This game is a board of a duplicate match still in play: the match's other tables "
                            "play the same deal, so until the match is over only the game's seats (their seat "
                            "tokens, or the bot account's token that plays a seat) may read it. Its audit and "
                            "export wait for the match's end for everyone. Nothing changed."),
    "not_challenged": _t(403, "Not the challenged bot",
                         "Only the bot a challenge is addressed to may accept or decline it; another bot's "
                         "token changes nothing."),
    "not_challenger": _t(403, "Not the challenger",
                         "Only the challenger may withdraw a challenge: a bot with its own token, a person with "
                         "the token its challenge's answer gave. Any other token (the challenged bot's too) "
                         "changes nothing."),
    "match_not_consented": _t(403, "Bot not consenting",
                              "A match or a game seats a bot account only with its consent: the bot sends "
                              "`POST /matches` or `POST /games` itself (its token), or its profile says "
                              "`accepts_matches` (`PATCH /bots/me`). Challenge a bot that does neither "
                              "(`POST /challenges`). A challenge's `with` bot consents only by "
                              "`accepts_matches` (it cannot send the challenge itself): `POST /challenges` "
                              "naming one that does not is refused, and an accept "
                              "(`POST /challenges/{id}/accept`) after it withdrew its consent makes nothing, "
                              "the challenge staying pending. Nothing was created."),
    "too_many_matches": _t(409, "Too many matches in play",
                           "The client address (its bot accounts' included) or the bot has GINBOX_MATCHES_PER_CALLER "
                           "matches of `POST /matches` in play, or the server GINBOX_MATCHES_IN_PLAY: send it "
                           "again once one is over. Nothing was created."),
    "too_many_analyses": _t(429, "Too many analyses queued",
                            "The caller (a bot's token, else the client address) has GINBOX_ANALYSES_PER_CALLER "
                            "decision analyses queued or running, or the server GINBOX_ANALYSES_QUEUED: each takes "
                            "a worker some seconds of a core. Send it again after Retry-After, once one is done. "
                            "Nothing was queued."),
    "analysis_not_found": _t(404, "No analysis",
                             "Nobody asked for this finished game's decision analysis yet, or it expired: "
                             "`POST /games/{game_id}/analysis` asks for one."),
    "too_many_bot_games": _t(409, "Too many games of bots alone in play",
                             "The client address (its bot accounts' included) or the bot has GINBOX_BOT_GAMES_PER_CALLER "
                             "games of `POST /games` whose every seat is a built-in bot in play, or the server "
                             "GINBOX_BOT_GAMES_IN_PLAY: each costs the bot workers a job per turn until it ends. "
                             "Send it again once one is over. A game "
                             "with a person's, an open or a bot account's seat is not counted. Nothing was "
                             "created."),
    "too_many_challenges": _t(409, "Too many challenges pending",
                              "The challenged bot has 20 challenges pending, or the challenger (a bot, or a "
                              "person's client address) 5 of its own: send it again once one is answered, "
                              "withdrawn or expired (24 hours after it was made). Nothing was stored."),
    "bot_name_taken": _t(409, "Bot name taken", "A bot account of this name exists already, in this or another case "
                                                "(`Alpha` is taken once `alpha` exists): choose another."),
    "challenge_not_pending": _t(409, "Challenge answered",
                                   "The challenge was accepted, declined or withdrawn already, or expired (24 "
                                   "hours after it was made)."),
    "match_not_over": _t(409, "Match not over",
                         "This is only available once the match is over (the audit reveals every board's seed)."),
    "invalid_bot_name": _t(422, "Invalid bot name",
                           "A bot's name is 2 to 32 letters, digits, `_` or `-`, and, in any case, neither a "
                           "built-in policy's name (random, simple, basic, advanced, expert) nor `me`, nor shaped like "
                           "the names the server gives built-in bots: `<policy>-bot`, `<policy>-bot-<n>`, "
                           "`<policy>-<n>` (with `-` or `_`, e.g. `basic-bot-0`)."),
    "unknown_participant": _t(422, "Unknown participant",
                              "A participant is neither a built-in policy nor a registered bot account. Nothing "
                              "was created."),
    "duplicate_participant": _t(422, "Participant named twice",
                                "A bot account holds one place in a match (a built-in policy may play itself), "
                                "and each participant of a challenge, a person too, has a name of its own. "
                                "Nothing was created."),
    "invalid_decline_reason": _t(422, "Invalid decline reason",
                                 "A challenge is declined with a `reason` of the list (generic, later, too_fast, "
                                 "too_slow, rated, casual, variant, kind, not_bots, only_bots), or none. "
                                 "Nothing changed: the challenge is still pending."),
    "invalid_match": _t(422, "Invalid match",
                        "The variant, the number of participants, the options or the time per move do not fit "
                        "together (or a challenge asks what cannot be: a bot challenging itself, a person "
                        "who gives no name, a `with` of the wrong length for the variant). Nothing was created."),
    "tournament_not_found": _t(404, "No such tournament", "There is no tournament with this id on this server."),
    "tournament_not_consented": _t(403, "Bot not entering tournaments",
                                   "A tournament enters a bot account only with its consent: the bot sends "
                                   "`POST /tournaments` itself (its token), or its profile says "
                                   "`accepts_tournaments` (`PATCH /bots/me`). Nothing was created."),
    "too_many_tournaments": _t(409, "Too many tournaments in play",
                               "The server has GINBOX_TOURNAMENTS_IN_PLAY tournaments in play: send it again "
                               "once one is over. Nothing was created."),
    "unknown_pairing_system": _t(422, "Unknown pairing system",
                                 "A tournament's `system` is `round_robin` or `swiss`. Nothing was created."),
    "tournament_too_small": _t(422, "Tournament of one",
                               "A tournament has two entries at least. Nothing was created."),
    "tournament_too_large": _t(422, "Tournament too large",
                               "A tournament has at most GINBOX_TOURNAMENT_ENTRIES entries, and a round-robin "
                               "of them at most GINBOX_TOURNAMENT_ROUNDS rounds. Nothing was created."),
    "invalid_tournament": _t(422, "Invalid tournament",
                             "The variant (gin-rami only), the rounds of a Swiss (1 to one less than its entries, "
                             "at most GINBOX_TOURNAMENT_ROUNDS) or the boards of a pairing (at most "
                             "GINBOX_TOURNAMENT_BOARDS), or a `move_time_s` below 5 with a bot account entered, do not fit. "
                             "Nothing was created."),
}

# -- the rules (RULES.md): 409 when the game's state forbids it now, 422 when the command never can --
_RULES = {
    # a game as OpenSpiel's records (GET /games/{id}/openspiel, ginbox convert): docs OPENSPIEL.md
    "openspiel_variant": _t(422, "Not a game OpenSpiel plays",
                            "OpenSpiel's gin_rummy is two-player gin rami: a three-hand game has no OpenSpiel "
                            "record."),
    "openspiel_rules_differ": _t(422, "Rules OpenSpiel does not play",
                                 "The game's options score or end a hand in a way OpenSpiel's gin_rummy cannot "
                                 "(gin without the defender's deadwood, big gin, Oklahoma's spade doubling, a "
                                 "knock limit above 10); the detail names them. Games of the `openspiel` "
                                 "preset convert."),
    "openspiel_hand_differs": _t(422, "A hand OpenSpiel ends otherwise",
                                 "A hand of the game was drawn at the turn limit, or went past OpenSpiel's 50th "
                                 "draw from the discard pile, where OpenSpiel ends a hand drawn."),
    "openspiel_no_hand": _t(422, "No hand played", "The game ended before a hand was played: nothing converts."),
    "openspiel_record_invalid": _t(422, "Not an OpenSpiel record",
                                   "The record is not a gin_rummy action sequence OpenSpiel plays (`ginbox "
                                   "convert`); the detail names the hand and the action."),
    "openspiel_move_not_in_ginbox": _t(422, "A move ginbox's rules refuse",
                                       "The record holds a move OpenSpiel allows and ginbox does not (a knock at "
                                       "the wall, discarding the card just taken from the pile, a hand drawn at "
                                       "the 50th draw of a discard); the detail names it."),
    "not_your_turn": _t(409, "Not your turn", "Another seat is to act; `to_act` in the view says who."),
    "wrong_phase": _t(409, "Wrong phase",
                      "This move belongs to another phase of the turn (upcard, draw or discard); the view's "
                      "`phase` and `legal_moves` say what may be played now."),
    "must_draw_first": _t(409, "Draw first", "Draw a card (stock or discard pile) before discarding or knocking."),
    "already_drawn": _t(409, "Already drawn", "This turn's card is drawn: discard or knock."),
    "discard_pile_empty": _t(409, "Discard pile empty", "There is no card on the discard pile to take."),
    "upcard_refused": _t(409, "Upcard refused",
                         "Both players passed the upcard: the non-dealer begins by drawing from the stock."),
    "game_over": _t(409, "Game over", "The game is over: no more moves."),
    "game_not_started": _t(409, "Game not started", "The game starts when every seat is taken."),
    "seat_taken": _t(409, "Seat taken", "Someone already sits at this seat."),
    "client_seed_too_late": _t(409, "Client seed too late",
                               "The cards were cut or dealt already: a client seed counts only if it comes "
                               "before (with the seat claim, or as the `client_seed` move while the game "
                               "waits). Nothing was recorded."),
    "client_seed_already_sent": _t(409, "Client seed already sent",
                                   "This seat sent its client seed already; a seat sends one at most."),
    "client_seeds_not_used": _t(409, "Client seeds not used",
                                "This game was recorded before client seeds: its deals derive from the "
                                "server's seed alone."),
    "client_seeds_not_awaited": _t(409, "No client seed awaited",
                                   "The server closes the wait for client seeds only of a game whose seats are "
                                   "all taken and that still waits for one."),
    "not_advisor": _t(409, "Not the advisor",
                      "Only the advisor of the hand in play gives advice (three-hand's roles move between "
                      "hands); gin-rami has no advisor."),
    "advice_limit_reached": _t(409, "Advice limit reached",
                               "At most 3 pieces of advice may be given at one version of the game (between "
                               "two moves): wait for the next move."),
    "not_a_player": _t(422, "Not a player", "This seat does not play in this game."),
    "card_not_in_hand": _t(422, "Card not in hand", "The card named is not in the mover's hand."),
    "cannot_discard_taken_card": _t(422, "Cannot discard the card just taken",
                                    "A card taken from the discard pile may not be discarded in the same turn."),
    "knock_deadwood_too_high": _t(422, "Too much deadwood to knock",
                                  "Knocking needs deadwood at or under the game's knock limit once the melds "
                                  "are laid; the view's `legal_moves` lists the knocks that are allowed."),
    "invalid_melds": _t(422, "Invalid melds",
                        "A meld given is not a list of card codes forming a set or a run, or names a card twice."),
    "overlapping_melds": _t(422, "Overlapping melds", "Two of the melds given share a card."),
    "meld_card_not_in_hand": _t(422, "Meld card not in hand",
                                "A card of the melds given is not in the hand, or is the knock's own discard "
                                "(which leaves the hand: the detail says which)."),
    "not_big_gin": _t(422, "Not big gin", "Big gin needs all eleven cards in melds."),
    "big_gin_not_allowed": _t(422, "Big gin not played", "This game's options do not allow big gin."),
    "invalid_card": _t(422, "Invalid card", "Not a card code: rank (A, 2-9, T, J, Q, K) then suit (C, D, H, S)."),
    "invalid_command": _t(422, "Invalid command", "The move is malformed for its type."),
    "unknown_command": _t(422, "Unknown command", "No move has this type; see the Move schema in openapi.yaml."),
    "invalid_variant": _t(422, "Invalid variant", "The variant is not one of three-hand and gin-rami."),
    "invalid_option": _t(422, "Invalid option",
                         "An option is unknown to the variant or its value is out of range (RULES.md lists them)."),
    "unknown_rules": _t(422, "Unknown rules",
                        "`rules` names no preset: see RULES.md, Presets, for the names."),
    "rules_not_for_variant": _t(422, "Rules not for this variant",
                                "The preset named by `rules` is for the other variant: give that variant, "
                                "or another preset."),
    "option_not_for_variant": _t(422, "Option not for this variant",
                                 "An option the variant cannot play: `hollywood` is for gin-rami only "
                                 "(RULES.md, Hollywood). Leave it out, or play gin-rami."),
    "rules_conflict": _t(422, "Option contradicts the rules",
                         "An option contradicts the preset named by `rules` (a knock_limit with oklahoma, "
                         "whose upcard sets it): leave it out, or override the preset's option it clashes with."),
    "invalid_players": _t(422, "Invalid players", "The seats do not match the variant's number of players."),
    "invalid_roles": _t(422, "Invalid roles",
                        "Roles are given only in three-hand, and must map box, captain and advisor to seats "
                        "0, 1 and 2."),
    "invalid_first_dealer": _t(422, "Invalid first dealer",
                               "first_dealer is seat 0 or 1 in gin-rami; in three-hand the box deals."),
    "invalid_deck": _t(422, "Invalid deck", "An explicit deck lists the 52 card codes once each, top first."),
    "invalid_invites": _t(422, "Invalid invites",
                          "Invites name open seats of the game, each with the SHA-256 (hex) of its secret."),
    "invalid_seed": _t(422, "Invalid seed", "The seed must be non-empty bytes."),
    "invalid_client_seed": _t(422, "Invalid client seed",
                              "A client seed is a string of 1 to 64 characters, none of them a control "
                              "character (service/docs/FAIRNESS.md). Nothing was recorded."),
    "invalid_fairness": _t(422, "Invalid fairness derivation",
                           "The derivation of decks and cuts is 1 (the server's seed alone) or 2 (with "
                           "client seeds)."),
    "invalid_seat": _t(422, "Invalid seat", "The seat is not a seat of this game."),
    "invalid_event": _t(422, "Invalid event", "An event lacks a field its type and version need."),
}

# -- HTTP itself (routing, methods) and the server -----------------------------------------------
#: werkzeug's errors (routing, methods, sizes) that have a code of their own
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    411: "length_required",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    429: "rate_limited",
    431: "headers_too_large",
    501: "not_implemented",
}

_HTTP = {
    "bad_request": _t(400, "Bad request",
                      "The HTTP request itself is malformed: its request line or headers, the framing of a "
                      "chunked body (a chunk size that is not hexadecimal, a chunk without its CRLF), or a "
                      "body that ends before its Content-Length (the connection was half-closed or lost: "
                      "nothing was done with it). Send the request whole."),
    "not_found": _t(404, "Not found", "No resource has this path (see openapi.yaml for the paths)."),
    "method_not_allowed": _t(405, "Method not allowed", "The path exists; the Allow header lists its methods."),
    "not_acceptable": _t(406, "Not acceptable", "The server cannot answer in a media type the Accept header allows."),
    "length_required": _t(411, "Length required",
                          "The request needs a body and announced none: send it with a Content-Length (or "
                          "`Transfer-Encoding: chunked`)."),
    "uri_too_long": _t(414, "URI too long", "The request's URI is longer than the server accepts (4096 bytes)."),
    "headers_too_large": _t(431, "Headers too large", "The request's headers are larger than the server accepts."),
    "not_implemented": _t(501, "Not implemented", "The server does not implement this method."),
    "http_error": _t(sorted(s for s in default_exceptions if s not in HTTP_CODES), "HTTP error",
                     "Another HTTP-level error; the status and detail say which."),
    "redis_unavailable": _t(503, "Event store unreachable",
                            "Redis, which holds every game, did not answer in time or is not reachable. The "
                            "request may or may not have been recorded: a write sent before Redis stopped "
                            "answering can still land. Retry after Retry-After with the same Idempotency-Key: "
                            "a move, a creation (a game, a seat's claim, a bot, a challenge, a match) or a "
                            "challenge's answer that landed is answered as it was (Idempotent-Replayed: true), "
                            "one that did not is made now; without a key, read the game (its version) to learn."),
    "server_full": _t(503, "Server full",
                      "Redis's memory is past the share of its maxmemory the server keeps for the games "
                      "under way (GINBOX_MEMORY_GUARD), so no new game, match or challenge is made. Games "
                      "in play go on. Retry after Retry-After: games end, and unstarted ones expire."),
    "archive_format_unsupported": _t(500, "Archived game of a newer format",
                                     "The game was archived by a newer ginbox server, in a format this one "
                                     "cannot read. Nothing was changed. The game reads again once the server "
                                     "runs that version or a later one."),
    "archive_unreadable": _t(500, "Archived game unreadable",
                             "The game's archived record is damaged: it does not decode. Nothing was changed. "
                             "The operator restores the record from a backup (Operate, \"Storage\")."),
    "internal_error": _t(500, "Internal error",
                         "The server failed to answer. Nothing in the answer says why; the server's log does."),
}

PROBLEM_TYPES: dict[str, ProblemType] = {**_REQUEST, **_GAMES, **_ARENA, **_RULES, **_HTTP}


def type_uri(code: str) -> str:
    """The ``type`` of a problem with this code."""
    return PROBLEM_PATH + code


def title_of(code: str) -> str:
    """The catalogue's title of a code (a code it lacks gets one made from its name)."""
    entry = PROBLEM_TYPES.get(code)
    return entry.title if entry is not None else code.replace("_", " ").capitalize()


def entry_json(code: str) -> dict:
    """The wire form of one catalogue entry."""
    entry = PROBLEM_TYPES[code]
    return {"type": type_uri(code), "code": code, "title": entry.title, "statuses": list(entry.statuses),
            "description": entry.description}
