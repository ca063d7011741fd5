"""Code the tests share: the store's behaviour suites, rules-test decks and driver, the validating
API client, games over HTTP, real server processes, independent card maths and visibility tracking."""
