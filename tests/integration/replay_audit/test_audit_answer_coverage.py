"""GET /games/{id}/audit says what it does not check, as ``ginbox audit`` does: the players' names and
the timestamps, which the commitment does not cover."""

from __future__ import annotations

from service.rules.audit import NOT_CHECKED
from support.gameplay import create_game


def test_the_audit_answer_names_what_it_does_not_check(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    g.move(g.view(None)["to_act"][0], {"type": "resign"})
    resp = api.get(f"/games/{g.game_id}/audit")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["ok"] is True
    assert body["not_checked"] == NOT_CHECKED
    assert body["not_checked"].startswith("the players' names") and "timestamps" in body["not_checked"]
