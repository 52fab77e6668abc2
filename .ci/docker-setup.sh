#!/usr/bin/env bash
# Make a Docker engine answer on this machine (idempotent; needs root):
#  1. install Debian's docker.io and debootstrap when missing, and Docker's default seccomp
#     profile (the arena derives its own from it: arena/sandbox/hostview.py);
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

# Docker's default seccomp profile ships in golang-github-docker-docker-dev (same source version
# as docker.io). Its dependencies are a Go toolchain and some 250 packages (systemd among them),
# so only the one file is taken out of the package, where the package would put it.
PROFILE=/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json
if [ ! -f "$PROFILE" ]; then
  echo "docker-setup: installing Docker's default seccomp profile ($PROFILE)"
  work="$(mktemp -d)"
  (cd "$work" && $SUDO apt-get download -qq golang-github-docker-docker-dev 2>/dev/null ||
     { $SUDO apt-get update -qq && $SUDO apt-get download -qq golang-github-docker-docker-dev; })
  dpkg-deb --fsys-tarfile "$work"/golang-github-docker-docker-dev_*.deb |
    $SUDO tar -x -C / ".$PROFILE"
  rm -rf "$work"
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
