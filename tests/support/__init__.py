"""Helpers shared by the API tests: deck building, independent card maths, visibility tracking."""
