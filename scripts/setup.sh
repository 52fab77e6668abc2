#!/usr/bin/env bash
# Set up a fresh Debian 12 machine for Arena: system packages, a virtualenv in .venv with the
# arena package (and, with --test, the test and lab extras and what the example bots' tests build
# with: Node.js and npm, and g++, make, protoc and Debian's C++ gRPC). Idempotent; safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
extras=""
[ "${1:-}" = "--test" ] && extras="[test,lab]"  # the lab's tests run in CI too

need_apt=()
command -v python3 >/dev/null || need_apt+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
command -v git >/dev/null || need_apt+=(git)
command -v pgrep >/dev/null || need_apt+=(procps)
# unshare, setpriv and mount: the process sandbox separates each bot with them (as root)
command -v unshare >/dev/null && command -v setpriv >/dev/null || need_apt+=(util-linux)
command -v mount >/dev/null || need_apt+=(mount)
if [ -n "$extras" ]; then  # the JavaScript example bot's test needs Node.js and npm
  command -v node >/dev/null || need_apt+=(nodejs)
  command -v npm >/dev/null || need_apt+=(npm)
  # the terminal tests of `arena watch` and `arena play` run them in tmux (tests/tui/,
  # tests/play/test_play_tmux.py)
  command -v tmux >/dev/null || need_apt+=(tmux)
  # the C++ example bot's tests build it: a compiler, protoc with the gRPC plugin, the libraries
  command -v g++ >/dev/null || need_apt+=(g++)
  command -v make >/dev/null || need_apt+=(make)
  command -v pkg-config >/dev/null || need_apt+=(pkgconf)
  command -v protoc >/dev/null || need_apt+=(protobuf-compiler)
  command -v grpc_cpp_plugin >/dev/null || need_apt+=(protobuf-compiler-grpc)
  pkg-config --exists grpc++ 2>/dev/null || need_apt+=(libgrpc++-dev)
  pkg-config --exists protobuf 2>/dev/null || need_apt+=(libprotobuf-dev)
  # the check that proto/ generates Go code without edits (tests/docs/test_codegen.py)
  command -v protoc-gen-go >/dev/null || need_apt+=(protoc-gen-go)
  command -v protoc-gen-go-grpc >/dev/null || need_apt+=(protoc-gen-go-grpc)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import sys; assert sys.version_info >= (3, 11), "Arena needs Python >= 3.11"'
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# Editable install: the build hook (setup.py) generates arena/v1 from proto/ into the tree.
.venv/bin/python -m pip install -q -e ".${extras}"
# The example game package (a fourth game, installed as any game package is: not editable, so
# the bots' base image can pack its installed files; docs/games/plugins.md).
.venv/bin/python -m pip install -q ./examples/goofspiel
echo "arena installed in .venv ($(.venv/bin/arena --version))"
