"""IPv6 clients are rate-limited by network (a /64 by default), not address by address: one
subscriber's /64 holds 2**64 addresses, so counted one by one it would have no limit at all.

The address counted is the one the app sees: behind one trusted proxy (GINBOX_PROXY_HOPS=1), the
last entry of X-Forwarded-For.
"""

from __future__ import annotations

import pytest

from service.config import SettingError, Settings
from service.ratelimit import address_identity
from support.apiclient import ValidatingClient, load_openapi, make_app

LIMIT = 3


def client(redis_url, key_prefix, **overrides) -> ValidatingClient:
    app = make_app(redis_url, key_prefix, proxy_hops=1, rate_limit_per_minute=LIMIT, **overrides)
    return ValidatingClient(app, load_openapi())


def status_from(api, address: str) -> int:
    return api.get("/games", headers={"X-Forwarded-For": address}).status_code


def test_addresses_of_one_ipv6_64_share_one_budget(redis_url, key_prefix):
    api = client(redis_url, key_prefix)
    # three requests from three addresses of 2001:db8:1:2::/64 use up the network's budget
    assert [status_from(api, a) for a in ("2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff")] \
        == [200, 200, 200]
    # a fourth, from yet another address of the same /64, is refused
    assert status_from(api, "2001:db8:1:2:abcd::7") == 429
    # the neighbouring /64 has a budget of its own
    assert status_from(api, "2001:db8:1:3::1") == 200


def test_ipv4_addresses_still_count_one_by_one(redis_url, key_prefix):
    api = client(redis_url, key_prefix)
    assert [status_from(api, "192.0.2.1") for _ in range(LIMIT)] == [200] * LIMIT
    assert status_from(api, "192.0.2.1") == 429
    assert status_from(api, "192.0.2.2") == 200
    # the IPv4-mapped form of an address is that address
    assert status_from(api, "::ffff:192.0.2.1") == 429


def test_the_prefix_is_a_setting_128_counts_each_address(redis_url, key_prefix):
    api = client(redis_url, key_prefix, rate_limit_ipv6_prefix=128)
    assert [status_from(api, "2001:db8::1") for _ in range(LIMIT)] == [200] * LIMIT
    assert status_from(api, "2001:db8::1") == 429
    assert status_from(api, "2001:db8::2") == 200


def test_address_identity_by_hand():
    assert address_identity("2001:db8:aaaa:bbbb:1:2:3:4") == "2001:db8:aaaa:bbbb::/64"
    assert address_identity("2001:db8:aaaa:bbbb:1:2:3:4", 48) == "2001:db8:aaaa::/48"
    assert address_identity("2001:db8::1", 128) == "2001:db8::1/128"
    assert address_identity("203.0.113.9") == "203.0.113.9"
    assert address_identity("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_identity("unknown") == "unknown"


@pytest.mark.parametrize("raw", ["0", "129", "sixty-four"])
def test_the_prefix_setting_is_1_to_128(monkeypatch, raw):
    monkeypatch.setenv("GINBOX_RATE_LIMIT_IPV6_PREFIX", raw)
    with pytest.raises(SettingError, match="GINBOX_RATE_LIMIT_IPV6_PREFIX"):
        Settings.from_env()


def test_the_prefix_setting_is_read(monkeypatch):
    monkeypatch.setenv("GINBOX_RATE_LIMIT_IPV6_PREFIX", "56")
    assert Settings.from_env().rate_limit_ipv6_prefix == 56
