"""A program the meter tests run in a sandbox (not a bot: it never connects). ``probe.py MODE``:

* ``burn``: burns 300 ms of its own CPU, then sleeps;
* ``orphan``: forks a helper that forks a grandchild and exits at once; the grandchild (an
  orphan, reparented out of the bot's process tree) burns 300 ms of CPU and exits; the bot
  sleeps throughout;
* ``fork``: forks a helper that burns 300 ms of CPU and exits; the bot reaps it, then sleeps;
* ``sleep``: sleeps;
* ``memory``: allocates and touches 100 MiB, then sleeps;
* ``attack``: tries to reset its own cgroup CPU counters and to move itself out of its cgroup
  (one ``[probe] write PATH: RESULT`` line each; where /sys is hidden, at the usual paths),
  burns 200 ms of CPU, then sleeps.
"""

import errno
import os
import sys
import time

BURN_S = 0.3


def burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def say(line):
    print(f"[probe] {line}", flush=True)


def try_write(path, data):
    try:
        with open(path, "w") as handle:
            handle.write(data)
        result = "OK"
    except OSError as exc:
        result = errno.errorcode.get(exc.errno, str(exc.errno))
    say(f"write {path}: {result}")


def own_cgroup_dirs():
    """(hierarchy root, own cgroup directory) of the CPU hierarchies this process sees."""
    dirs = []
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "cpuacct" in controllers.split(","):
                roots = ["/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct"]
            elif not controllers:
                roots = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
            else:
                continue
            for root in roots:
                if os.path.isfile(os.path.join(root, "cgroup.procs")):
                    own = os.path.join(root, path.lstrip("/"))
                    # in a container the hierarchy's root is the container's own cgroup
                    dirs.append((root, own if os.path.isdir(own) else root))
                    break
    return dirs


HIDDEN_CGROUPS = [("/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpuacct"),
                  ("/sys/fs/cgroup", "/sys/fs/cgroup")]
"""Where the hierarchies would be, tried when /sys is hidden (no hierarchy is seen)."""


def attack():
    pid = str(os.getpid())
    seen = own_cgroup_dirs()
    for root, own in seen or HIDDEN_CGROUPS:
        for name in ("cpuacct.usage", "cpu.stat"):
            if os.path.exists(os.path.join(own, name)) or not seen:
                try_write(os.path.join(own, name), "0")
        try_write(os.path.join(root, "cgroup.procs"), pid)  # out to the root cgroup
        if own != root:
            try_write(os.path.join(os.path.dirname(own), "cgroup.procs"), pid)  # to the parent
        try:
            os.mkdir(os.path.join(own, "escape"))
            say(f"mkdir {own}/escape: OK")
        except OSError as exc:
            say(f"mkdir {own}/escape: {errno.errorcode.get(exc.errno, exc.errno)}")
    say("attacked")
    burn(0.2)


def main():
    mode = sys.argv[1]
    if mode == "burn":
        burn(BURN_S)
    elif mode == "orphan":
        if os.fork() == 0:
            if os.fork() == 0:
                burn(BURN_S)
            os._exit(0)
        os.wait()
    elif mode == "fork":
        child = os.fork()
        if child == 0:
            burn(BURN_S)
            os._exit(0)
        os.waitpid(child, 0)
    elif mode == "memory":
        block = b"\x01" * (100 << 20)
        say(f"allocated {len(block)}")
    elif mode == "attack":
        attack()
    say(f"{mode} done")
    time.sleep(600)


if __name__ == "__main__":
    main()
