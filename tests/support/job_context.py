"""The ``ctx`` fixture of the tests that run worker jobs in the test process: the worker's context,
built from the test module's ``settings`` fixture, installed for ``workers.jobs`` and removed after."""

from __future__ import annotations

import pytest

from workers import jobs
from workers.runner import build_context


@pytest.fixture
def ctx(settings):
    context = build_context(settings)
    jobs.set_context(context)
    yield context
    jobs.set_context(None)
