"""`arena serve`: a long-lived referee that plays matches on request, above the match loop it
calls. ``server`` (the admin gRPC service and health checking), ``client`` (what the CLI calls:
``arena match --referee``, ``arena watch --referee``) and ``access`` (who may use the admin
endpoint: private socket directories, tokens). The files it keeps are named as before
(``<arena home>/run/referee.sock``, ``referee-<port>.token``, ``ARENA_REFEREE_TOKEN``)."""
