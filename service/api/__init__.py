"""Flask blueprints: parse the request, call a handler, dump the answer."""
