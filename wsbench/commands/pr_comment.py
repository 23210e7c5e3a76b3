"""``./bench pr-comment``: post or update the comparison's comment on a pull request (gh)."""

from __future__ import annotations

import argparse
from pathlib import Path

from wsbench.ci import github
from wsbench.ci.github import GitHubError

NAME = "pr-comment"
HELP = "post or update the comparison's comment (gh)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The pull request (a number, or a file holding it), the repository and the markdown."""
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--pr", type=int)
    which.add_argument(
        "--pr-file", type=Path,
        help="a file holding the number (an artifact's: checked against --head-sha)",
    )  # fmt: skip
    parser.add_argument("--head-sha", help="with --pr-file: the commit that was measured")
    parser.add_argument("--repo", required=True, help="OWNER/NAME")
    parser.add_argument("--markdown", type=Path, required=True)
    parser.add_argument("--remove-label", help="the label that asked for the comparison")


def run(args: argparse.Namespace) -> int:
    """Post or update it; 0.

    Raises:
        GitHubError: ``--pr-file`` without ``--head-sha``, or gh failed.
    """
    pr = args.pr
    if args.pr_file is not None:
        if not args.head_sha:
            raise GitHubError("--pr-file needs --head-sha (the commit that was measured)")
        text = args.pr_file.read_text(encoding="utf-8", errors="replace")
        pr = github.pr_of_artifact(text, args.head_sha, repo=args.repo)
    body = args.markdown.read_text(encoding="utf-8", errors="replace")
    done = github.upsert_pr_comment(pr, body, repo=args.repo, label=args.remove_label)
    print(f"wsbench: comment {done} on #{pr}")
    return 0
