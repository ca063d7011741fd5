"""Build step of the optional C speed-up; everything else about the package is in pyproject.toml.

``service/rules/_speedups.c`` turns card codes into a hand mask at C speed; ``service/rules/cards.py``
uses it when it imports and otherwise takes its pure-Python path, which gives the same results.
``optional=True`` means an install never fails for want of a C compiler: the build then warns and
goes on without the extension. The Dockerfile's image (python:3.11-slim) has no compiler, and its
COPY lines leave this file out, so the image runs the pure-Python path.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("service.rules._speedups", ["service/rules/_speedups.c"], optional=True)])
