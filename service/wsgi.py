"""WSGI entry point for gunicorn: ``gunicorn 'service.wsgi:app'``."""

from service.app import create_app
from service.logging import configure_logging

configure_logging()
app = create_app()
