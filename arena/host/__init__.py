"""The competition server (``arena host``) and its client: contestants submit bots, follow their
submissions and fetch results and logs from their own machines over the public gRPC API
(``proto/arena/v1/competition.proto``), with TLS, tokens, quotas and visibility rules.

A room of its own between the CLI and the ladders: it runs one continuous ladder per game over
the competition's database and catalogue, and imports only downwards.
"""
