"""What ``ginbox serve`` runs once its command line is read: one server per data directory
(lock.py), its bot workers kept running (bot_workers.py), and the API, the workers and the embedded
Redis started, watched and stopped in order (server.py).

service/cli.py reads the command line and builds the children's command lines; nothing here
imports it back.
"""
