"""Arena: a bot-vs-bot competition arena for two-player card games."""

import os as _os

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
"""Version of the arena.v1 bot protocol sent in MatchStart and Hello."""

# The arena's processes never use gRPC in a forked child: bots are started with fork+exec and
# nothing in between. gRPC's fork support would only add fork handlers (and an INFO line on
# stderr for every bot started), so it is off unless the user says otherwise.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
