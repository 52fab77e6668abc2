"""Generated arena.v1 protobuf and gRPC modules (built from proto/arena/v1 at install time)."""
