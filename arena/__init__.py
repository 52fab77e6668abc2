"""Arena: a bot-vs-bot competition arena for two-player card games."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
"""Version of the arena.v1 bot protocol sent in MatchStart and Hello."""
