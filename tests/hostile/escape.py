# A hostile bot for koth's containment tests. For every line `TRY <attempt> <argument>` it
# makes one attempt to escape and answers one line: `HELD <why>` when the attempt failed,
# `ESCAPED <what>` when it worked. The tests pass it the paths and ids it goes after.
#
# Started with `paths`, it is a paths bot instead: it first makes every attempt listed in the
# file `attempts.txt` of its folder (one `<attempt> <argument>` a line, paths relative to its
# working folder allowed; `{other}` stands for the other seat of a two-bot game, whose working
# folder is beside its own), writes each outcome to stderr, then answers NONE to every prompt.
import json
import os
import signal
import socket
import subprocess
import sys
import time


def held(why):
    return "HELD " + str(why).replace("\n", " ")[:200]


def attempt(kind, arg):
    try:
        if kind == "read":  # another bot's file, the tournament database, the home folder
            with open(arg, "rb") as f:
                f.read(16)
            return "ESCAPED read " + arg
        if kind == "list":  # a folder that is not the bot's
            return "ESCAPED listed " + " ".join(sorted(os.listdir(arg)))
        if kind == "write":  # a file outside its working folder (another bot's, /etc)
            with open(arg, "w") as f:
                f.write("owned")
            return "ESCAPED wrote " + arg
        if kind == "connect":  # a server on the machine's loopback
            host, port = arg.rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=1).close()
            return "ESCAPED connected to " + arg
        if kind == "kill":  # a process of the machine, by its pid
            os.kill(int(arg), signal.SIGKILL)
            return "ESCAPED killed " + arg
        if kind == "processes":  # every process it can see
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            mine = {os.getpid()}
            others = [p for p in pids if int(p) not in mine]
            return ("ESCAPED sees %s" % others) if len(pids) > 4 else held("sees %s" % pids)
        if kind == "daemon":  # a double-forked setsid daemon that should outlive the game
            code = "import time\nwhile True: time.sleep(1)  # %s\n" % arg
            subprocess.Popen(
                [sys.executable, "-c", code],
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            return held("started a daemon marked " + arg)
        if kind == "memory":  # allocate and touch MiB of memory
            block = bytearray(int(arg) << 20)
            for i in range(0, len(block), 4096):
                block[i] = 1
            return "ESCAPED allocated %s MiB" % arg
        if kind == "bigfile":  # write a file of MiB in the working folder
            chunk = b"x" * (1 << 20)
            with open("big.bin", "wb") as f:
                for _ in range(int(arg)):
                    f.write(chunk)
            return "ESCAPED wrote %s MiB" % arg
        if kind == "fd":  # a descriptor koth's parent had open, inherited through koth
            data = os.read(int(arg), 64)
            return "ESCAPED read %r through descriptor %s" % (data[:20], arg)
        if kind == "syscall":  # a call into the kernel's shared state (seccomp denies it)
            return syscall(arg)
        if kind == "shm":  # MiB written to /dev/shm
            chunk = b"x" * (1 << 20)
            with open("/dev/shm/koth-hog", "wb") as f:
                for _ in range(int(arg)):
                    f.write(chunk)
                    f.flush()
            return "ESCAPED wrote %s MiB to /dev/shm" % arg
        if kind == "files":  # empty files in the working folder
            for i in range(int(arg)):
                open("f%d" % i, "w").close()
            return "ESCAPED made %s files" % arg
        if kind == "bigfiles":  # files of 8 MiB in the working folder, each under the file cap
            chunk = b"x" * (1 << 20)
            for i in range(int(arg)):
                with open("big%d.bin" % i, "wb") as f:
                    for _ in range(8):
                        f.write(chunk)
                        f.flush()
            return "ESCAPED wrote %s files of 8 MiB" % arg
        if kind == "spin":  # pins itself to one CPU, starts N spinning children, never answers
            cpu = sorted(os.sched_getaffinity(0))[0]
            os.sched_setaffinity(0, {cpu})
            for _ in range(int(arg)):
                if os.fork() == 0:
                    while True:
                        pass
            while True:
                pass
        if kind == "childwork":  # thinks for ms of CPU in a forked child, then answers
            pid = os.fork()
            if pid == 0:
                end = time.process_time() + int(arg) / 1000
                while time.process_time() < end:
                    pass
                os._exit(0)
            os.waitpid(pid, 0)
            return held("thought in a child")
        if kind == "background":  # answers at once, leaving a child that spins for ever
            if os.fork() == 0:
                while True:
                    pass
            return held("left a spinning child")
        if kind == "whoami":
            return held("uid %d" % os.getuid()) if os.getuid() != 0 else "ESCAPED uid 0"
        if kind == "environ":  # a secret from koth's environment
            value = os.environ.get(arg)
            return ("ESCAPED " + arg + "=" + value) if value else held("no " + arg)
        return "HELD unknown attempt " + kind
    except BaseException as error:  # MemoryError included
        return held(type(error).__name__ + ": " + str(error))


# x86-64 numbers of the calls the seccomp filter denies, with harmless arguments.
SYSCALLS = {
    "keyctl": (250, 0, -3, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "add_key": (248, 0, 0, 0),
    "io_uring_setup": (425, 1, 0),
    "bpf": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "userfaultfd": (323, 0),
    "unshare": (272, 0),
    "ptrace": (101, 0, 0, 0, 0),
    "keyctl_x32": (0x40000000 | 250, 0, -3, 0),
}


def syscall(name):
    import ctypes
    import errno
    import platform

    if platform.machine() != "x86_64":
        return held("not x86-64")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number, *args = SYSCALLS[name]
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    code = ctypes.get_errno()
    if result == -1 and code == errno.ENOSYS:
        return held(name + " denied")
    return "ESCAPED %s reached the kernel (result %d, errno %d)" % (name, result, code)


if sys.argv[1:2] == ["paths"]:
    with open("attempts.txt") as attempts:
        for line in attempts:
            kind, _, arg = line.strip().partition(" ")
            own_seat = os.path.basename(os.getcwd())
            arg = arg.replace("{other}", "1" if own_seat == "0" else "0")
            print("TRY", kind, arg, "->", attempt(kind, arg), file=sys.stderr, flush=True)
    for line in sys.stdin:
        if line.startswith(("DESTROY", "ACTIVATE")):
            print("NONE", flush=True)
else:
    for line in sys.stdin:
        words = line.split(maxsplit=2)
        if len(words) >= 2 and words[0] == "TRY":
            print(attempt(words[1], words[2].strip() if len(words) > 2 else ""), flush=True)
