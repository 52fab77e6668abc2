"""What a bot may not read or do of the host (``arena.sandbox.confine``, ``hostview``): the
seccomp filter run for real on this machine, the synthetic ``/proc`` files, the masked paths,
and the Docker profile derived from Docker's own."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.sandbox import confine, hostview

PROBE = textwrap.dedent(r"""
    import ctypes, errno, fcntl, json, os, socket, subprocess, threading
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    NR = {"x86_64": {"sysinfo": 99, "keyctl": 250, "add_key": 248, "unshare": 272,
                     "clone3": 435, "fcntl": 72, "getpid": 39},
          "aarch64": {"sysinfo": 179, "keyctl": 219, "add_key": 217, "unshare": 97,
                      "clone3": 435, "fcntl": 25, "getpid": 172}}[os.uname().machine]
    def call(name, *args):
        result = libc.syscall(ctypes.c_long(NR[name]), *args)
        return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
    def attempt(action):
        try:
            action()
            return "ok"
        except OSError as exc:
            return errno.errorcode[exc.errno]
    report = {
        "sysinfo": call("sysinfo", ctypes.create_string_buffer(256)),
        "keyctl": call("keyctl", ctypes.c_int(0), ctypes.c_int(-3), ctypes.c_int(0)),
        "add_key": call("add_key", b"user", b"k", b"v", ctypes.c_size_t(1), ctypes.c_int(-4)),
        "unshare_user": call("unshare", ctypes.c_int(0x10000000)),
        "clone3": call("clone3", None, ctypes.c_size_t(0)),
        "inet": attempt(lambda: socket.socket(socket.AF_INET).close()),
        "unix": attempt(lambda: socket.socketpair()[0].close()),
        "thread": attempt(lambda: (lambda t: (t.start(), t.join()))(threading.Thread())),
        "child": str(subprocess.run(["/bin/true"]).returncode),
    }
    with open(__file__, "rb") as own:
        report["flock"] = attempt(lambda: fcntl.flock(own, fcntl.LOCK_SH))
        report["lockf"] = attempt(lambda: fcntl.lockf(own, fcntl.LOCK_SH))
        report["getfl"] = attempt(lambda: fcntl.fcntl(own, fcntl.F_GETFL))
        # F_SETLK with high bits the kernel drops: still a lock command, still refused
        report["setlk_high_bits"] = call("fcntl", ctypes.c_int(own.fileno()),
                                         ctypes.c_ulong((1 << 32) | fcntl.F_SETLK), None)
    print(json.dumps(report), flush=True)
    if os.environ.get("PROBE_X32"):
        call("getpid") if os.uname().machine != "x86_64" else libc.syscall(0x40000000 | 39)
""")


def _confined(tmp_path: Path, *extra: str, env: dict[str, str] | None = None,
              ) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    return subprocess.run([sys.executable, "-I", "-S", str(confine.__file__), *extra, "--",
                           sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, check=False, env={**os.environ, **(env or {})})


pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")]


def test_the_filter_refuses_what_carries_host_state_and_keeps_the_rest(tmp_path: Path) -> None:
    done = _confined(tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for call in ("sysinfo", "keyctl", "add_key", "unshare_user", "inet", "flock", "lockf",
                 "setlk_high_bits"):
        assert report[call] == "EPERM", (call, report)
    assert report["clone3"] == "ENOSYS"  # the C library falls back to clone
    assert report["unix"] == report["thread"] == report["getfl"] == "ok"
    assert report["child"] == "0"


def test_without_the_filter_the_probe_reaches_them(tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, check=True)
    report = json.loads(done.stdout)
    assert report["sysinfo"] == report["inet"] == report["flock"] == "ok"


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x32 is an x86_64 ABI")
def test_a_call_of_another_abi_kills_the_process(tmp_path: Path) -> None:
    done = _confined(tmp_path, env={"PROBE_X32": "1"})
    assert done.returncode == -signal.SIGSYS, (done.returncode, done.stderr)


def test_unshare_of_a_user_namespace_fails_under_the_filter() -> None:
    done = subprocess.run([sys.executable, "-I", "-S", str(confine.__file__), "--",
                           "unshare", "--user", "--map-root-user", "true"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "Operation not permitted" in done.stderr, done.stderr


def test_the_launcher_says_what_failed_and_runs_nothing() -> None:
    done = subprocess.run([sys.executable, "-I", "-S", str(confine.__file__), "--", "/no/such"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 127 and done.stderr.startswith("arena: cannot run /no/such")
    usage = subprocess.run([sys.executable, "-I", "-S", str(confine.__file__), "true"],
                           capture_output=True, text=True, timeout=60, check=False)
    assert usage.returncode == 2 and "usage" in usage.stderr


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a new mount namespace needs root and util-linux's unshare")
def test_the_masks_are_made_only_in_a_bots_new_namespaces(tmp_path: Path) -> None:
    """The masks are mounts in the launcher's mount namespace: run by hand on the host (as
    happened once, from a shell), they hid the host's /proc entries, /sys and /dev/ptmx until
    unmounted. Outside a new PID namespace (where the process sandbox makes it the first
    process) the launcher refuses, masks nothing and runs nothing; here in a throwaway mount
    namespace, so that the code before this check could not harm the host either."""
    marker = tmp_path / "ran"
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", sys.executable, "-I", "-S",
         str(confine.__file__), "--memory-mb", "64", "--", "touch", str(marker)],
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 126, (done.returncode, done.stderr)
    assert "only as the first process of a bot's new namespaces" in done.stderr
    assert not marker.exists()


@pytest.mark.unit
def test_the_filter_knows_two_architectures() -> None:
    for arch in (confine.X86_64, confine.AARCH64):
        program = confine.filter_program(arch)
        assert len(program) % 8 == 0 and len(program) // 8 < 256
    with pytest.raises(ValueError, match="only x86_64, aarch64"):
        confine.filter_program("riscv64")


@pytest.mark.unit
def test_synthetic_proc_files_carry_the_limits_and_no_counter() -> None:
    files = confine.synthetic_proc(512)
    meminfo = dict(line.split(":", 1) for line in files["meminfo"].splitlines())
    assert meminfo["MemTotal"].split() == ["524288", "kB"]
    assert meminfo["MemAvailable"].split()[0] == "524288"
    assert meminfo.get("Shmem", " 0 kB").split()[0] == "0"
    assert files["loadavg"] == "0.00 0.00 0.00 1/1 1\n"
    assert [line.split()[0] for line in files["stat"].splitlines()][:2] == ["cpu", "cpu0"]
    assert "MHz" not in files["cpuinfo"] and files["cpuinfo"].count("processor") <= 1
    assert confine.synthetic_proc(512) == files  # static: the same text while the host moves


@pytest.mark.unit
def test_every_host_wide_proc_entry_is_masked() -> None:
    masked = {name for name, _ in confine.proc_masked()}
    for name in ("vmstat", "zoneinfo", "buddyinfo", "interrupts", "softirqs", "diskstats",
                 "uptime", "sys", "keys", "key-users", "locks", "swaps"):
        if Path("/proc", name).exists():
            assert name in masked, name
    assert not masked & {"self", "thread-self", "net", "meminfo", "stat", "1"}
    paths = hostview.masked_paths()
    assert set(confine.DOCKER_MASKED) <= set(paths) and "/sys" in paths


@pytest.mark.unit
def test_the_docker_profile_is_dockers_less_what_carries_host_state() -> None:
    default = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
        {"names": ["read", "sysinfo", "socket", "fcntl", "io_uring_setup"],
         "action": "SCMP_ACT_ALLOW", "args": []},
        {"names": ["syslog"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYSLOG"]}},
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    ]}
    profile = hostview.restricted_profile(default)
    allowed = [rule for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW"]
    unconditional = {name for rule in allowed if not rule.get("args") for name in rule["names"]}
    assert unconditional == {"read"}
    assert {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38} in profile["syscalls"]
    socket_rules = [rule["args"] for rule in allowed if rule["names"] == ["socket"]]
    assert socket_rules == [[{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}]]
    commands = {rule["args"][0]["value"] for rule in allowed if rule["names"] == ["fcntl"]}
    assert not commands & set(confine.FCNTL_DENIED) and {0, 1, 2, 3, 4, 1030} <= commands
    assert default["syscalls"][0]["names"][1] == "sysinfo"  # the input is left as it was


@pytest.mark.unit
def test_dockers_own_profile_is_read_where_debian_ships_it() -> None:
    if not hostview.profile_path().is_file():
        pytest.skip(f"{hostview.profile_path()} is missing: {hostview.seccomp_note()}")
    profile = json.loads(hostview.seccomp_profile() or "{}")
    names = {name for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW"
             for name in rule["names"]}
    assert "read" in names and "sysinfo" not in names and "io_uring_setup" not in names
    assert hostview.seccomp_note() is None
