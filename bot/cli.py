"""The ``errkb`` command: parse arguments, call the service or the store, print.

Exit codes follow grep: 0 matched / succeeded, 1 nothing matched / problems found, 2 bad usage, a
bad setting or unreadable input (the paste, the seeds, the catalogs), with a one-line reason on stderr.
Every error of errkb's own (``bot.errors``) is turned into its exit code in one place, :func:`main`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bot import i18n
from bot.cli_knowledge import store_wanted, with_knowledge
from bot.config import Settings
from bot.errors import ConfigError, ErrkbError, SeedError, UsageError
from bot.kb.seeds import read_seeds
from bot.service.knowledge import MAX_PASTE_CHARS, Knowledge

# The renderers (text, Block Kit, JSON, families) are imported by the commands that print with them, so a
# command that needs none of them (``errkb ci``) starts without them.

SAMPLE = Path(__file__).resolve().parent / "samples" / "nccl_traceback.txt"
ALL_MATCHES = 50
PASTES_HELP = "paste fixtures folder, <domain>/<slug>/N.txt and _chat/*.json (default: ERRKB_PASTES or ./pastes)"


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _read_input(source: str | None) -> str:
    """The paste: a file, or standard input for ``-`` / no argument. Invalid UTF-8 is replaced."""
    try:
        if source in (None, "-"):
            if source is None and sys.stdin.isatty():
                raise UsageError("no input: give a FILE, or pipe the paste into standard input")
            data = sys.stdin.buffer.read()
        else:
            data = Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from exc
    return data.decode("utf-8", "replace")


def cmd_diagnose(args: argparse.Namespace, settings: Settings) -> int:
    from bot.render import blocks, text
    from bot.render import json as json_render
    from bot.render.family import family_json, family_message, family_text
    from bot.service.families import family_card

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be 1 or more (got {args.limit}); --all shows every match")
    limit = ALL_MATCHES if args.all else args.limit or 1
    paste = _read_input(args.file)

    async def work(service: Knowledge):
        if len(paste) > MAX_PASTE_CHARS:  # a whole log: the windows around its error lines, not only its tail
            from bot.cli_ci import whole_diagnosis

            return await whole_diagnosis(paste, service, limit)
        return await service.diagnose(paste, limit=limit, record=False)

    async def work_or_family(service: Knowledge):
        found = await work(service)
        return found, None if found.matches else family_card(service.kb.families, paste)

    diagnosis, family = asyncio.run(with_knowledge(settings, store_wanted(settings), work_or_family))
    if family is not None:  # no entry knows it: the official page for its code, labelled so (exit 1: no known fix)
        if args.format == "json":
            _print_json({**json_render.diagnosis_json(diagnosis), "matches": [family_json(family)]})
        elif args.format == "blocks":
            _print_json({"messages": [family_message(family)]})
        else:
            print(family_text(family))
        return 1
    if args.format == "json":
        _print_json(json_render.diagnosis_json(diagnosis))
    elif args.format == "blocks":
        _print_json({"messages": [blocks.answer_message(m.entry, m) for m in diagnosis.matches]})
    else:
        print(text.render_diagnosis(diagnosis, color=text.use_color(sys.stdout), width=text.terminal_width(),
                                    details=args.details))
    return 0 if diagnosis.matches else 1


def cmd_preview(args: argparse.Namespace, settings: Settings) -> int:
    """The answer to a paste as the HTML page of a Slack thread (and its PNG, drawn by headless Chromium)."""
    from bot import preview

    paste = _read_input(args.file)

    async def work(service: Knowledge):
        return await service.diagnose(paste, limit=1, record=False)

    diagnosis = asyncio.run(with_knowledge(settings, store_wanted(settings), work))
    out = Path(args.out)
    try:
        out.write_text(preview.diagnosis_page(paste, diagnosis, details=args.details), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from exc
    print(out)
    if args.png:
        width, height = preview.screenshot(out, Path(args.png), width=args.width)
        print(f"{args.png} ({width}×{height})")
    return 0 if diagnosis.matches else 1


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    from bot.render import blocks, text
    from bot.render import json as json_render

    async def work(service: Knowledge):
        return await service.show(args.id)

    entry = asyncio.run(with_knowledge(settings, store_wanted(settings), work))
    if entry is None:
        raise UsageError(f"no entry with id {args.id!r} (try `errkb search`)")
    if args.format == "json":
        _print_json(json_render.entry_json(entry, i18n.current_locale()))
    elif args.format == "blocks":
        _print_json({"messages": [blocks.answer_message(entry), blocks.details_message(entry)]})
    else:
        print(text.render_entry(entry, color=text.use_color(sys.stdout), width=text.terminal_width()))
    return 0


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    from bot.render import json as json_render
    from bot.render import text

    if not args.query.strip():
        raise UsageError("nothing to search for: give words, e.g. `errkb search nccl timeout`")
    results = asyncio.run(with_knowledge(settings, store_wanted(settings),
                                       lambda service: service.search(args.query, limit=args.limit)))
    if args.format == "json":
        _print_json(json_render.search_json(results))
    else:
        print(text.render_search(results, color=text.use_color(sys.stdout)))
    return 0 if results else 1


def cmd_validate(args: argparse.Namespace, settings: Settings) -> int:
    from bot.kb.families import validate as validate_families

    directory = Path(args.dir) if args.dir else settings.seeds_dir
    entries, problems = read_seeds(directory)
    problems += validate_families(directory)
    if not problems:
        from bot.kb.matcher import Matcher
        from bot.kb.quality import chat_problems, lint

        matcher, fixtures = Matcher(entries), Path(args.fixtures or settings.pastes_dir)
        problems = lint(entries, matcher, fixtures) if args.strict else chat_problems(entries, matcher, fixtures)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in {directory}", file=sys.stderr)
        return 1
    domains = Counter(e.domain for e in entries.values())
    print(f"{len(entries)} entries in {len(domains)} domains are valid.", file=sys.stderr)
    return 0


def cmd_lint(args: argparse.Namespace, settings: Settings) -> int:
    args.strict = True
    return cmd_validate(args, settings)


def cmd_new(args: argparse.Namespace, settings: Settings) -> int:
    from bot.kb.scaffold import scaffold

    try:
        written = scaffold(args.id, Path(args.seeds or settings.seeds_dir), Path(args.fixtures or settings.pastes_dir))
    except (ValueError, FileExistsError) as exc:
        raise UsageError(str(exc)) from exc
    for path in written:
        print(path)
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    """Seed the default store and diagnose the bundled sample in English and Chinese."""
    from bot.render import text

    paste = SAMPLE.read_text(encoding="utf-8")

    async def work(service: Knowledge):
        from bot.service.catalog import Catalog
        from bot.store import Store

        assert isinstance(service.store, Store)
        await Catalog(service.kb, service.store).seed()
        results = []
        for locale in ("en-US", "zh-CN"):
            with i18n.use_locale(locale):
                results.append((locale, await service.diagnose(paste, limit=1)))
        return results

    print("$ errkb diagnose bot/samples/nccl_traceback.txt\n" + paste)
    for locale, diagnosis in asyncio.run(with_knowledge(settings, True, work)):
        print(f"━━━ --locale {locale} " + "━" * 40)
        with i18n.use_locale(locale):
            print(text.render_diagnosis(diagnosis, color=text.use_color(sys.stdout), width=text.terminal_width()))
        print()
    return 0


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """The MCP server for coding agents: stdio, or streamable HTTP behind ERRKB_MCP_TOKEN (``bot/mcp.py``)."""
    from bot import mcp

    workspace = args.workspace.strip() if args.workspace else None
    if workspace is not None and not re.fullmatch(r"[A-Z][A-Z0-9]{2,30}", workspace):
        raise UsageError(f"--workspace {args.workspace!r} is not a Slack team id; give one like T0123ABCD")
    if not args.http:
        asyncio.run(mcp.serve_stdio(settings, workspace))
        return 0
    if not settings.mcp_token:
        raise ConfigError("ERRKB_MCP_TOKEN", "not set: errkb mcp --http serves only with a bearer token; set it to a "
                                             "long random secret (e.g. `openssl rand -hex 32`), or use stdio")
    asyncio.run(mcp.serve_http(settings, workspace, args.host, args.port, settings.mcp_token))
    return 0


def _version() -> str:
    """The installed distribution's version (from the git tag it was built at, by setuptools-scm)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("errkb")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (reading the installed metadata costs every start-up)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"errkb {_version()}")
        parser.exit()


def cmd_site(args: argparse.Namespace, settings: Settings) -> int:
    """The KB as a static bilingual website (``bot/site/``): a page per entry in en, zh-hans and zh-hant."""
    import time

    from bot.kb.knowledge import KnowledgeBase
    from bot.site import build_site

    started = time.perf_counter()
    try:
        built = build_site(Path(args.out), KnowledgeBase.load(settings.seeds_dir), args.base_url or "")
    except OSError as exc:
        raise UsageError(f"cannot write the site to {args.out}: {exc.strerror or exc}") from exc
    print(f"{built.out}: {built.pages} pages for {built.entries} entries in 3 languages "
          f"({time.perf_counter() - started:.1f} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errkb", description="Turn pasted errors into answers.")
    parser.add_argument("--version", action=_VersionAction, help="show errkb's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler, help_text: str, formats: tuple[str, ...] = ()) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        p.add_argument("--locale", default="en", help="en, zh, or a Slack locale such as zh-CN, en-US, ja-JP")
        if formats:
            p.add_argument("--format", choices=formats, default="text")
        return p

    p = add("diagnose", cmd_diagnose, "Find the error in a paste and explain it.", ("text", "json", "blocks"))
    p.add_argument("file", nargs="?", help="a file with the paste, or - for standard input")
    p.add_argument("--limit", type=int, help="report up to N matches (default 1, the best)")
    p.add_argument("--all", action="store_true", help="report every match")
    p.add_argument("--details", action="store_true", help="every fix, what not to try, versions, docs, related")
    p = add("preview", cmd_preview, "Render the bot's answer to a paste as a Slack-style HTML page (and PNG).")
    p.add_argument("file", nargs="?", help="a file with the paste, or - for standard input")
    p.add_argument("--out", default="errkb-preview.html", help="the HTML page to write")
    p.add_argument("--png", help="also save a screenshot taken by headless Chromium")
    p.add_argument("--width", type=int, default=1100, help="the browser window's width for --png")
    p.add_argument("--details", action="store_true", help="also show what Other fixes and Why open")
    p = add("search", cmd_search, "Search the knowledge base.", ("text", "json"))
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10)
    p = add("show", cmd_show, "Show one entry with its live success rates.", ("text", "json", "blocks"))
    p.add_argument("id")
    p = add("validate", cmd_validate, "Check every seed entry; lists file: field: problem.")
    p.add_argument("dir", nargs="?")
    p.add_argument("--strict", action="store_true", help="also report quality gaps (as `errkb lint`)")
    p.add_argument("--fixtures", help=PASTES_HELP)
    p = add("lint", cmd_lint, "Report quality gaps: translations, docs, fixtures, regexes that steal pastes.")
    p.add_argument("dir", nargs="?")
    p.add_argument("--fixtures", help=PASTES_HELP)
    p = add("new", cmd_new, "Scaffold a new entry and its fixture files.")
    p.add_argument("id", help="domain/slug")
    p.add_argument("--seeds", help="seeds directory (default: ERRKB_SEEDS or ./seeds)")
    p.add_argument("--fixtures", help=PASTES_HELP)
    add("demo", cmd_demo, "Seed the local store and diagnose a bundled sample in English and Chinese.")
    p = add("mcp", cmd_mcp, "Serve the KB to coding agents over MCP: stdio, or --http with ERRKB_MCP_TOKEN.")
    p.add_argument("--workspace", metavar="TEAM_ID", help="answer as this Slack workspace: its live rates and team "
                                                          "entries, from the store (DATABASE_URL)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="--http: the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="--http: the port (default 8000; 0 picks a free one)")
    p = add("site", cmd_site, "Build the KB as a static website: a page per entry in English and Chinese.")
    p.add_argument("--out", required=True, help="the folder to write the site into")
    p.add_argument("--base-url", help="the address the site is served at, for og:url (e.g. https://x.github.io/errkb)")
    from bot.cli_ci import add_ci_commands
    from bot.cli_ops import add_ops_commands
    from bot.cli_teach import add_teach_commands

    add_ci_commands(add)
    add_ops_commands(add)
    add_teach_commands(add)
    return parser


def _seeds_advice(exc: SeedError) -> str:
    count = f"{len(exc.problems)} problem(s) in the seeds; fix them (`errkb validate` lists them)"
    if os.environ.get("ERRKB_SEEDS"):
        return f"ERRKB_SEEDS: {count} or unset ERRKB_SEEDS for the bundled KB"
    return count


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        i18n.load_catalogs()
        i18n.set_locale(args.locale)
        return args.handler(args, Settings.from_env())
    except SeedError as exc:  # the KB would not load: every problem, then what to do
        print(f"{exc}\nerrkb: {_seeds_advice(exc)}", file=sys.stderr)
        return 2
    except ErrkbError as exc:  # usage, a setting (named), the catalogs …: one line
        print(f"errkb: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
