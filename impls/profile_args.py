"""The deployment profiles' flags, which every server accepts (impls/PROTOCOL.md, "Deployment
profiles"), parsed and checked in one place for every ``server.py`` and for asgi_serve.py.

- ``--shipped-compression``: keep the framework's default compression (each server says what
  that changes in its help text and its meta.toml).
- ``--certfile PATH --keyfile PATH``: serve TLS (always together); a server that cannot
  refuses them with status 2 and says why.
- ``--worker-processes N`` (N >= 2): serve in N worker processes through the framework's own
  workers or processes option; a server whose framework documents none refuses it with
  status 2 and says why.

Each server finds this module by appending its parent folder (``impls/``) to ``sys.path``
before importing it: at the end, so that no other import of the server ever looks there
(``PYTHONPATH`` would put the folder ahead of the standard library and site-packages, and
that changed the instructions counted per message of a test server). It runs in every
implementation's environment: the standard library only, and ``ssl`` only once a context is
made (Flask-SocketIO's server parses its flags before gevent's monkey-patching, which warns
about an ssl module imported before it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import ssl

SHIPPED_COMPRESSION_FLAG = "--shipped-compression"
CERTFILE_FLAG = "--certfile"
KEYFILE_FLAG = "--keyfile"
WORKER_PROCESSES_FLAG = "--worker-processes"
MIN_WORKER_PROCESSES = 2
"""The fewest worker processes ``--worker-processes`` asks for: without the flag a server
runs in one process (impls/PROTOCOL.md, "Process")."""


def add_profile_flags(
    parser: argparse.ArgumentParser,
    *,
    compression: str,
    no_tls: str = "",
    no_workers: str = "",
) -> None:
    """Add the profiles' flags to ``parser``; :func:`check_profile_flags` checks them once
    parsed (into ``shipped_compression``, ``certfile``, ``keyfile`` and
    ``worker_processes``, None when not given).

    Args:
        parser: the server's command-line parser.
        compression: what ``--shipped-compression`` does in this server (its help).
        no_tls: why the server cannot serve TLS ("": it can), shown in the help.
        no_workers: why it cannot serve in several worker processes ("": it can), shown in
            the help.
    """
    parser.add_argument(SHIPPED_COMPRESSION_FLAG, action="store_true", help=compression)
    refused = f"not supported (exits with status 2): {no_tls}" if no_tls else ""
    parser.add_argument(CERTFILE_FLAG, help=refused or "serve TLS with this PEM certificate chain")
    parser.add_argument(KEYFILE_FLAG, help=refused or "the PEM private key of --certfile")
    parser.add_argument(
        WORKER_PROCESSES_FLAG,
        type=int,
        metavar="N",
        help=f"not supported (exits with status 2): {no_workers}"
        if no_workers
        else f"serve in N worker processes (N >= {MIN_WORKER_PROCESSES}) through the "
        "framework's own workers option",
    )


def check_profile_flags(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    *,
    no_tls: str = "",
    no_workers: str = "",
) -> None:
    """Check the profiles' flags of ``args`` (parsed by ``parser``, with
    :func:`add_profile_flags`'s flags).

    Args:
        parser: the parser, which reports an error.
        args: the parsed command line.
        no_tls: why the server cannot serve TLS ("": it can).
        no_workers: why it cannot serve in several worker processes ("": it can).

    Raises:
        SystemExit: status 2, after ``parser``'s usage and the error on stderr: only one of
            ``--certfile`` and ``--keyfile``; either of them where ``no_tls`` says why not;
            ``--worker-processes`` where ``no_workers`` says why not, or below
            :data:`MIN_WORKER_PROCESSES`.
    """
    if (args.certfile is None) != (args.keyfile is None):
        parser.error(f"{CERTFILE_FLAG} and {KEYFILE_FLAG} go together")
    if args.certfile is not None and no_tls:
        parser.error(f"TLS not supported: {no_tls}")
    if args.worker_processes is not None:
        if no_workers:
            refuse_workers(parser, no_workers)
        if args.worker_processes < MIN_WORKER_PROCESSES:
            parser.error(
                f"{WORKER_PROCESSES_FLAG} {args.worker_processes}: N must be at least "
                f"{MIN_WORKER_PROCESSES} (without the flag the server runs one process)"
            )


def refuse_workers(parser: argparse.ArgumentParser, why: str) -> NoReturn:
    """Exit with status 2: ``--worker-processes`` is not supported, because ``why``.

    Raises:
        SystemExit: always (status 2, after ``parser``'s usage and the error on stderr).
    """
    parser.error(f"{WORKER_PROCESSES_FLAG} not supported: {why}")


def parse_profile_args(
    parser: argparse.ArgumentParser,
    *,
    compression: str,
    no_tls: str = "",
    no_workers: str = "",
    known: bool = False,
    argv: Sequence[str] | None = None,
) -> argparse.Namespace:
    """Add the profiles' flags to ``parser`` (:func:`add_profile_flags`), parse ``argv``
    (default: ``sys.argv[1:]``) and check them (:func:`check_profile_flags`).

    Args:
        parser: the server's parser, its own options already added.
        compression: what ``--shipped-compression`` does in this server (its help).
        no_tls: why the server cannot serve TLS ("": it can).
        no_workers: why it cannot serve in several worker processes ("": it can).
        known: leave arguments ``parser`` does not know to another parser (Robyn reads its
            own flags from ``sys.argv``) instead of refusing them.
        argv: the arguments (default: the command line's).

    Returns:
        The parsed arguments.

    Raises:
        SystemExit: status 2 on a bad command line (:func:`check_profile_flags`), status 0
            after ``--help``.
    """
    add_profile_flags(parser, compression=compression, no_tls=no_tls, no_workers=no_workers)
    if known:
        args, _ = parser.parse_known_args(argv)
    else:
        args = parser.parse_args(argv)
    check_profile_flags(parser, args, no_tls=no_tls, no_workers=no_workers)
    return args


def server_tls_context() -> ssl.SSLContext:
    """``ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)``: a server's context as the
    ssl module's docs, and aiohttp's, tornado's and picows's, create it."""
    import ssl

    return ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)


def plain_tls_context() -> ssl.SSLContext:
    """``ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)``: the context websockets' docs (and the
    asyncio servers that follow them) create, without create_default_context()'s settings."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)


def tls_context(
    args: argparse.Namespace, make: Callable[[], ssl.SSLContext] = server_tls_context
) -> ssl.SSLContext | None:
    """The TLS context of ``--certfile``/``--keyfile``: ``make()`` with
    ``load_cert_chain(certfile, keyfile)``; None without them (plain TCP).

    Raises:
        OSError, ssl.SSLError: the files cannot be read, or are not a certificate chain and
            its key.
    """
    if args.certfile is None:
        return None
    context = make()
    context.load_cert_chain(args.certfile, args.keyfile)
    return context
