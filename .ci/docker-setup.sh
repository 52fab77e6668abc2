#!/usr/bin/env bash
# Make a Docker engine answer on this machine (idempotent; needs root):
#  1. install Debian's docker.io and debootstrap when missing;
#  2. start dockerd without a bridge or NAT (containers only ever get network "none") when no
#     engine answers;
#  3. wait (bounded) until `docker info` works.
# Logs of a dockerd started here go to ${ARENA_DOCKERD_LOG:-/var/log/arena-dockerd.log}.
set -euo pipefail

WAIT_S="${ARENA_DOCKER_WAIT_S:-60}"
LOG="${ARENA_DOCKERD_LOG:-/var/log/arena-dockerd.log}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

engine_answers() { timeout 5 docker info >/dev/null 2>&1; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "docker-setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if engine_answers; then
  echo "docker-setup: a Docker engine already answers"
  exit 0
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "docker-setup: starting dockerd (no bridge, no iptables), log in $LOG"
  $SUDO mkdir -p "$(dirname "$LOG")"
  # shellcheck disable=SC2024  # the log is written by this shell's redirect on purpose
  $SUDO nohup dockerd --bridge=none --iptables=false --ip6tables=false >>"$LOG" 2>&1 &
fi

for _ in $(seq 1 "$WAIT_S"); do
  if engine_answers; then
    echo "docker-setup: engine ready ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
    exit 0
  fi
  sleep 1
done
echo "docker-setup: no Docker engine answered within ${WAIT_S}s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
