"""The server's Prometheus metrics (``prometheus_client``), in a registry of their own, served on
the competition file's ``[server] metrics`` address (a loopback port by default).

* ``arena_matches_total{game,outcome}``: matches recorded (outcome ``rated`` or ``void``; a
  scrimmage ``scrimmage``, a rerun ``rerun``);
* ``arena_matches_in_flight{game}``; ``arena_time_losses_total{game}``: matches lost on time;
* ``arena_submissions_total{outcome}``: submissions by how they ended (entered, refused, failed,
  cancelled), ``arena_upload_bytes_total``;
* ``arena_api_calls_total{method,code}``: API calls by method and gRPC status code;
  ``arena_auth_failures_total``: calls refused for their token (UNAUTHENTICATED);
* the brake on refused tokens: ``arena_auth_braked_total{scope}``, refused tokens turned away
  by it (RESOURCE_EXHAUSTED) because their address (``scope="address"``) or their token's
  contestant id (``scope="token"``) failed too often; ``arena_auth_braking{scope}``, the
  addresses and token ids braked now;
* streams: ``arena_streams_open``; ``arena_streams_refused_total{limit}`` (``server``: the
  server's ``max_streams``, ``contestant``: ``streams_per_contestant``);
  ``arena_streams_closed_total{why}``, closed by the server (``idle``, ``total``, ``revoked``);
* ``arena_watchers{}``: watch streams open;
* moderation: ``arena_moderation_total{action}``, the audit log's entries the server applied
  (``disqualify``, ``void``, ``rerun``; a restarted server counts the whole log again);
  ``arena_scrimmages_total{outcome}``, challenges (``accepted``, ``refused``: over a quota
  or not allowed); the matches played, ``arena_matches_total{outcome="scrimmage"}`` and
  ``{outcome="rerun"}``.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server


class Metrics:
    """The counters and gauges of one server."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.matches = Counter("arena_matches", "Matches recorded", ["game", "outcome"],
                               registry=r)
        self.in_flight = Gauge("arena_matches_in_flight", "Matches being played", ["game"],
                               registry=r)
        self.time_losses = Counter("arena_time_losses", "Matches lost on time", ["game"],
                                   registry=r)
        self.submissions = Counter("arena_submissions", "Submissions by outcome", ["outcome"],
                                   registry=r)
        self.upload_bytes = Counter("arena_upload_bytes", "Bytes uploaded", registry=r)
        self.api_calls = Counter("arena_api_calls", "API calls", ["method", "code"], registry=r)
        self.auth_failures = Counter("arena_auth_failures", "Calls refused for their token",
                                     registry=r)
        self.auth_braked = Counter("arena_auth_braked", "Refused tokens turned away by the "
                                   "brake, by what is braked", ["scope"], registry=r)
        self.auth_braking = Gauge("arena_auth_braking", "Addresses and token ids braked now",
                                  ["scope"], registry=r)
        self.streams_open = Gauge("arena_streams_open", "Streams open", registry=r)
        self.streams_refused = Counter("arena_streams_refused", "Streams refused by a limit",
                                       ["limit"], registry=r)
        self.streams_closed = Counter("arena_streams_closed", "Streams closed by the server",
                                      ["why"], registry=r)
        self.watchers = Gauge("arena_watchers", "Watch streams open", registry=r)
        self.moderation = Counter("arena_moderation", "Audit log entries applied, by action",
                                  ["action"], registry=r)
        self.scrimmages = Counter("arena_scrimmages", "Challenges by outcome", ["outcome"],
                                  registry=r)

    def serve(self, listen: str) -> int:
        """Serve the metrics over HTTP on ``host:port``; returns the port bound."""
        host, _, port = listen.rpartition(":")
        server, _thread = start_http_server(int(port), addr=host or "127.0.0.1",
                                            registry=self.registry)
        self._server = server
        return int(server.server_port)

    def close(self) -> None:
        """Stop serving."""
        server = getattr(self, "_server", None)
        if server is not None:
            server.shutdown()
            server.server_close()
