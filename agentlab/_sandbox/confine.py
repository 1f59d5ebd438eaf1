"""OS-enforced confinement of the grader's child (Linux): what learner Python cannot undo.

The audit hook (``child._Guard``) is Python: learner code can reach its state (``gc``, the module)
and switch it off, and some operations raise no audit event at all (``dir_fd=``, ``sqlite3``,
``os.mkfifo``, ``os.pidfd_open``). The layers here are kernel state of the child process, set
once before the submission runs and never lifted:

1. **network namespace** (:func:`new_network_namespace`): ``unshare(CLONE_NEWNET)`` (in a new
   user namespace when not root). The new namespace has only a loopback interface, down: no
   socket reaches anything. The pipe to the parent is an inherited fd and keeps working.
2. **Landlock** (:func:`restrict_files`, Linux >= 5.13, ABI read from the kernel): reads only
   under the given roots and files, writes (create, delete, rename, truncate, mkfifo, mknod)
   only under the scratch directory; this holds for ``dir_fd=``, ``sqlite3`` and any C code.
   On ABI >= 4 TCP ``bind``/``connect`` are refused; on ABI >= 6 signals to processes outside
   the child (the grader) and abstract unix sockets are refused too.
3. **seccomp** (:func:`filter_syscalls`, through ``libseccomp.so.2`` with ctypes): ``EPERM`` for
   new processes (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``; ``clone3`` answers
   ``ENOSYS`` so the C library falls back to ``clone``, whose flags can be checked), ``execve``,
   signals and pidfds aimed at any process but this one, ``ptrace``, ``setsid``/``setpgid``,
   mounts and namespaces, ``mknod``, raising limits, unix sockets and ``connect``/``bind``,
   ``chown`` and extended attributes (Landlock does not cover them), ``io_uring``, ``bpf`` and a
   few administrative calls. Everything else (threads, ``mmap``, the pipe) is allowed. NOT
   covered by any layer: ``chmod`` and ``utime`` (Landlock has no right for them; the audit hook
   refuses them outside the scratch directory, but it can be switched off): a child running as
   root can change the mode or times, never the content, of a file outside the scratch directory.

Each layer is optional: a kernel or container without it (no Landlock LSM, no user namespaces,
no ``libseccomp``) leaves it out, and :func:`confine` returns the names of the layers that are
missing, for the parent to warn about once. ``AGENTLAB_SANDBOX_OFF`` (read by the parent; a
comma-separated list of ``netns``, ``landlock``, ``seccomp``, or ``all``) turns layers off, to
test the fall-back. Only Linux x86-64 and arm64 syscall numbers are known (Landlock's are the
same on both); elsewhere only the layers through ``libseccomp`` and ``unshare`` apply.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Iterable

__all__ = ["LAYERS", "confine", "filter_syscalls", "new_network_namespace", "restrict_files", "switched_off"]

LAYERS = ("netns", "landlock", "seccomp")
"""The OS layers, in the order they are set up."""

OFF_VARIABLE = "AGENTLAB_SANDBOX_OFF"
"""Environment variable (read in the grading process) listing layers to leave out (tests, debugging)."""

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_CLONE_THREAD = 0x00010000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1


def switched_off(value: str | None) -> frozenset[str]:
    """The layers ``value`` (``AGENTLAB_SANDBOX_OFF``'s text) turns off: ``"all"`` or a comma list."""
    names = {n.strip().lower() for n in (value or "").split(",") if n.strip()}
    return frozenset(LAYERS) if "all" in names else frozenset(names & set(LAYERS))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def new_network_namespace() -> str | None:
    """Move this process into a new network namespace (a new user namespace too when not root).

    Returns:
        None on success, else why not (``"EPERM"``...): the layer is then missing.
    """
    libc = _libc()
    flags = _CLONE_NEWNET if os.geteuid() == 0 else _CLONE_NEWUSER | _CLONE_NEWNET
    if libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        if os.geteuid() == 0 or libc.unshare(_CLONE_NEWNET) != 0:  # root without CAP_SYS_ADMIN: try as is
            return errno.errorcode.get(err, str(err))
    return None


# --------------------------------------------------------------------------------------- Landlock
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_RULE_PATH_BENEATH = 1
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_MAKE_ALL = sum(1 << b for b in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none: not built, not enabled, or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = _libc()
        version = libc.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def restrict_files(read_dirs: Iterable[str], read_files: Iterable[str], write_dirs: Iterable[str],
                   write_files: Iterable[str] = ()) -> str | None:
    """Landlock this process: read (and map executable) only under ``read_dirs`` and the
    ``read_files``; read and write (create, delete, rename, truncate) only under ``write_dirs``
    and the ``write_files`` (``/dev/null``). Paths that do not exist are skipped.

    Returns:
        None on success, else why not (``"no Landlock"``, an errno name): the layer is missing.
    """
    abi = landlock_abi()
    if abi < 1:
        return "no Landlock in this kernel"
    fs_all = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_READ_DIR | _FS_MAKE_ALL
    if abi >= 2:
        fs_all |= _FS_REFER
    if abi >= 3:
        fs_all |= _FS_TRUNCATE
    if abi >= 5:
        fs_all |= _FS_IOCTL_DEV
    attr = _Ruleset(fs_all, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                    (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    libc = _libc()
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        err = ctypes.get_errno()
        return errno.errorcode.get(err, str(err))
    file_rights = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | (_FS_TRUNCATE if abi >= 3 else 0) \
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    try:
        rules = [(p, _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR) for p in read_dirs]
        rules += [(p, _FS_READ_FILE) for p in read_files]
        rules += [(p, fs_all) for p in write_dirs]
        rules += [(p, file_rights) for p in write_files]
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = os.path.isdir(path)
                rule = _PathBeneath(rights if is_dir else rights & file_rights, fd)
                if libc.syscall(_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule),
                                ctypes.c_uint32(0)) != 0:
                    err = ctypes.get_errno()
                    return f"{errno.errorcode.get(err, str(err))} adding a rule for {path}"
            finally:
                os.close(fd)
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            err = ctypes.get_errno()
            return errno.errorcode.get(err, str(err))
    finally:
        os.close(ruleset)
    return None


# ---------------------------------------------------------------------------------------- seccomp
_ACT_ALLOW = 0x7FFF0000
_FLTATR_CTL_TSYNC = 4
_CMP_NE, _CMP_EQ, _CMP_MASKED_EQ = 1, 4, 7


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


_REFUSED_SYSCALLS = (
    # new processes and programs (clone: see the rule below)
    "fork", "vfork", "execve", "execveat",
    # signals and other processes (kill, tgkill...: see the rules below)
    "tkill", "pidfd_send_signal", "pidfd_getfd", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    # sessions, namespaces, mounts
    "setsid", "setpgid", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
    "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    # device nodes and fifos, limits
    "mknod", "mknodat", "setrlimit",
    # network (the pipe to the parent is connected already)
    "connect", "bind", "listen", "accept", "accept4",
    # what Landlock does not cover (ownership, extended attributes, file handles); modes and times
    # stay allowed: shutil.copy2 and the learner's own scratch files use them
    "chown", "fchown", "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "open_by_handle_at", "name_to_handle_at",
    # kernel interfaces a grader never needs
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "iopl",
    "ioperm", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "keyctl", "add_key", "request_key", "quotactl", "syslog",
)
"""System calls that always answer ``EPERM`` in the child."""


_LIBSECCOMP: list[ctypes.CDLL | None] = []


def _libseccomp() -> ctypes.CDLL | None:
    """``libseccomp.so.2``, loaded once (in the forkserver, which imports this module: a grading
    does not pay for it), or None when it is not installed."""
    if not _LIBSECCOMP:
        try:
            _LIBSECCOMP.append(ctypes.CDLL("libseccomp.so.2", use_errno=True))
        except OSError:
            _LIBSECCOMP.append(None)
    return _LIBSECCOMP[0]


def filter_syscalls() -> str | None:
    """Load this process's seccomp filter (all its threads: ``TSYNC``), through ``libseccomp``.

    Returns:
        None on success, else why not (``"no libseccomp"``, a failing call): the layer is missing.
    """
    lib = _libseccomp()
    if lib is None:
        return "no libseccomp.so.2"
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        return "seccomp_init failed"
    eperm = _errno_action(errno.EPERM)
    me = os.getpid()
    problems: list[str] = []

    def rule(name: str, action: int = eperm, *conditions: tuple[int, int, int, int]) -> None:
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # not a system call on this architecture
            return
        array = (_ArgCmp * max(len(conditions), 1))(*[_ArgCmp(*c) for c in conditions])
        if lib.seccomp_rule_add_array(ctx, action, number, len(conditions), array) != 0:
            problems.append(name)

    try:
        for name in _REFUSED_SYSCALLS:
            rule(name)
        rule("clone", eperm, (0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))  # a thread (CLONE_THREAD) is allowed
        rule("clone3", _errno_action(errno.ENOSYS))  # its flags sit in memory: the C library falls back to clone
        for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open"):
            rule(name, eperm, (0, _CMP_NE, me, 0))  # only this process (its threads, for tgkill)
        rule("prlimit64", eperm, (2, _CMP_NE, 0, 0))  # reading limits (new_limit NULL) is fine
        rule("prctl", eperm, (0, _CMP_EQ, _PR_SET_PDEATHSIG, 0))  # it dies with its parent, always
        rule("ioctl", eperm, (1, _CMP_EQ, 0x5412, 0))  # TIOCSTI: typing into a terminal
        rule("socket", eperm, (0, _CMP_EQ, 1, 0))  # AF_UNIX: a socket to a path is outside the namespace
        rule("sendto", eperm, (4, _CMP_NE, 0, 0))  # an address: only connected sockets send
        if problems:
            return "rules refused by libseccomp: " + ", ".join(problems)
        if lib.seccomp_attr_set(ctx, _FLTATR_CTL_TSYNC, 1) != 0:
            return "seccomp TSYNC refused"
        _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        code = lib.seccomp_load(ctx)
        if code != 0:
            return f"seccomp_load failed ({errno.errorcode.get(-code, code)})"
    finally:
        lib.seccomp_release(ctx)
    return None


def confine(off: Iterable[str], read_dirs: Iterable[str], read_files: Iterable[str], write_dirs: Iterable[str],
            write_files: Iterable[str] = ()) -> dict[str, str]:
    """Set up every layer not in ``off`` (network namespace, then Landlock, then seccomp, which
    refuses ``unshare`` and must come last). Never raises.

    Returns:
        ``{layer: why it is missing}`` for each layer not in force (``"switched off"`` for ``off``).
    """
    off = set(off)
    missing: dict[str, str] = {}
    if not sys.platform.startswith("linux"):  # the syscall numbers and flags here are Linux's
        return {name: "switched off" if name in off else "not Linux" for name in LAYERS}
    steps = (("netns", new_network_namespace),
             ("landlock", lambda: restrict_files(read_dirs, read_files, write_dirs, write_files)),
             ("seccomp", filter_syscalls))
    for name, step in steps:
        if name in off:
            missing[name] = "switched off"
            continue
        try:
            why = step()
        except Exception as exc:  # noqa: BLE001 - a missing layer is reported, never a crash
            why = f"{type(exc).__name__}: {exc}"
        if why is not None:
            missing[name] = why
    return missing
