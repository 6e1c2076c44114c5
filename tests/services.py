"""Real PostgreSQL and Redis servers for the tests, each in its own temporary folder, listening on
127.0.0.1 on a free port, and stopped at the end (the session fixtures in ``tests/conftest.py``).

Debian's packages (``scripts/setup --test`` installs ``postgresql`` and ``redis-server``) bring the
binaries; nothing system-wide is started or configured. PostgreSQL refuses to run as root, so as
root (CI) ``initdb`` and the server run as the ``postgres`` system user the Debian package
creates (``runuser``), with the folder handed to it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


class ServiceMissing(RuntimeError):
    """A service's binaries are not installed (the message says which package brings them)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(ready, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)  # a poll interval


def end(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """Stop ``proc`` as a terminal's user would: SIGTERM, and SIGKILL when it has not ended
    ``timeout`` s later; either way it is waited for (no zombie)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# -- PostgreSQL ------------------------------------------------------------------------------------

def postgres_bin() -> Path:
    """The newest PostgreSQL's binaries Debian installed (``/usr/lib/postgresql/N/bin``)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    raise ServiceMissing("PostgreSQL is not installed (Debian's postgresql package; "
                         "scripts/setup --test installs it)")


class PostgresServer:
    """A throwaway PostgreSQL cluster. The superuser ``postgres`` administers it; the venue's
    user ``tableassist`` (a password, like a real venue's) owns each test's database.

    Connections over TCP need the password (scram-sha-256), so a wrong one is refused for real;
    the socket in the folder is trusted, for the cluster's own tools."""

    SUPERUSER, SUPERPASS = "postgres", "pg-admin-secret"
    USER, PASSWORD = "tableassist", "venue-secret"

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        self.bin = postgres_bin()
        #: Server settings beyond the defaults (``max_connections``: a venue of many tables holds
        #: one connection per table).
        self.settings = dict(settings or {})
        self.folder = Path(tempfile.mkdtemp(prefix="tableassist-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self._as: list[str] = []
        self._databases = 0
        self._mounts: list[Path] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise ServiceMissing("as root, PostgreSQL runs as the 'postgres' user, which "
                                     "Debian's postgresql package creates; it is missing") from None
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
            self.uid, self.gid = owner.pw_uid, owner.pw_gid
        else:
            self.uid, self.gid = os.getuid(), os.getgid()
        self.folder.chmod(0o700)
        self._started = False

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self._as, *argv], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(argv[0]).name} failed: {done.stderr or done.stdout}")

    def start(self) -> "PostgresServer":
        pwfile = self.folder / "superuser-password"
        pwfile.write_text(self.SUPERPASS + "\n")
        os.chown(pwfile, self.uid, self.gid)
        # -N: a throwaway cluster's files need no fsync at creation (the server itself keeps
        # PostgreSQL's defaults: fsync and synchronous_commit on, as a venue's would).
        self._run(str(self.bin / "initdb"), "-N", "-D", str(self.data), "-U", self.SUPERUSER,
                  "--pwfile", str(pwfile), "--auth-local=trust", "--auth-host=scram-sha-256",
                  "-E", "UTF8", "--locale=C")
        pwfile.unlink()
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                  str(self.folder / "server.log"), "-w", "-t", "60", "-o",
                  f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1"
                  + "".join(f" -c {k}={v}" for k, v in self.settings.items()), "start")
        self._started = True
        with self.admin() as conn:
            conn.execute(f"CREATE ROLE {self.USER} LOGIN PASSWORD '{self.PASSWORD}'")
        return self

    def stop(self) -> None:
        # A start cut short (Ctrl-C, a timeout) can leave the server running: it is in a session
        # of its own, which the signal did not reach; its pid file says so.
        if self._started or (self.data / "postmaster.pid").exists():
            # immediate: the cluster is thrown away, nothing to write back
            subprocess.run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                            "immediate", "-w", "stop"], capture_output=True, timeout=60)
            self._started = False
        for mount in self._mounts:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- databases and connections -------------------------------------------------------------

    def url(self, dbname: str, *, user: str | None = None, password: str | None = None,
            port: int | None = None) -> str:
        user = user or self.USER
        password = self.PASSWORD if password is None else password
        return f"postgresql://{user}:{password}@127.0.0.1:{port or self.port}/{dbname}"

    def admin(self, dbname: str = "postgres") -> Any:
        """The superuser's connection (autocommit), over TCP as a venue's admin would."""
        import psycopg
        return psycopg.connect(self.url(dbname, user=self.SUPERUSER, password=self.SUPERPASS),
                               autocommit=True)

    def new_database(self, template: str | None = None) -> str:
        """A fresh database owned by the venue's user: empty, or a copy of ``template`` (which
        nobody may be connected to)."""
        self._databases += 1
        name = f"venue_{self._databases}"
        copy = f" TEMPLATE {template}" if template else ""
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name}{copy} OWNER {self.USER}")
        return name

    def connect(self, dbname: str) -> Any:
        """The venue user's connection to ``dbname`` (autocommit), inside tableassist's schema."""
        import psycopg
        conn = psycopg.connect(self.url(dbname), autocommit=True)
        conn.execute("SET search_path TO tableassist")
        return conn

    def small_tablespace(self, name: str, size: str = "512k") -> Path:
        """A tablespace on a real, small file system (a tmpfs; needs root to mount): a table
        moved there fills it for real. Returns the mount, to fill and to empty."""
        mount = self.folder / name
        mount.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o",
                               f"size={size},uid={self.uid},gid={self.gid},mode=0700", "tmpfs",
                               str(mount)], capture_output=True, text=True)
        if done.returncode != 0:
            raise PermissionError(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        self._mounts.append(mount)
        with self.admin() as conn:
            conn.execute(f"CREATE TABLESPACE {name} OWNER {self.USER} LOCATION '{mount}'")
        return mount


# -- Redis ---------------------------------------------------------------------------------------------

class RedisServer:
    """A throwaway redis-server: no persistence (``--save ''``), its folder a temporary one."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.path.exists(binary):
            raise ServiceMissing("redis-server is not installed (Debian's redis-server package; "
                                 "scripts/setup --test installs it)")
        self.binary = binary
        self.folder = Path(tempfile.mkdtemp(prefix="tableassist-redis-"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> "RedisServer":
        log = open(self.folder / "server.log", "wb")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.folder), "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        _wait(self._answers, "redis-server to answer PING")
        return self

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError("redis-server stopped: "
                               + (self.folder / "server.log").read_text(errors="replace"))
        return self.ping()

    def client(self) -> Any:
        import redis
        return redis.Redis.from_url(self.url, socket_timeout=5)

    def ping(self) -> bool:
        import redis
        try:
            with self.client() as r:
                return bool(r.ping())
        except redis.ConnectionError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            end(self.proc)
            self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)


# -- nginx (the proxy in front of a venue's processes) ---------------------------------------------

class NginxServer:
    """A throwaway nginx on 127.0.0.1 and a free port, its pid, logs and temporary files in its
    own folder, with the configuration ``tableassist proxy`` writes for ``servers``."""

    def __init__(self, servers: list[str]) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(binary):
            raise ServiceMissing("nginx is not installed (Debian's nginx-light package; "
                                 "scripts/setup --test installs it)")
        self.binary = binary
        self.folder = Path(tempfile.mkdtemp(prefix="tableassist-nginx-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.servers = servers
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> "NginxServer":
        from tableassist.server.proxy import nginx_config
        conf = self.folder / "nginx.conf"
        conf.write_text(nginx_config(f"127.0.0.1:{self.port}", self.servers, self.folder,
                                     workers="1"))
        log = open(self.folder / "stdout.log", "wb")
        self.proc = subprocess.Popen([self.binary, "-p", str(self.folder), "-c", str(conf),
                                      "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        _wait(self._answers, "nginx to listen")
        return self

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            # what nginx said before it stopped: its output, and its error log when it wrote one
            said = [(self.folder / name).read_text(errors="replace")
                    for name in ("stdout.log", "error.log") if (self.folder / name).exists()]
            raise RuntimeError("nginx stopped: " + "".join(said))
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        if self.proc is not None:
            end(self.proc)
            self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)
