"""The wire format: marshmallow schemas for every request and response body (see openapi.yaml)."""
