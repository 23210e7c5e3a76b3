"""Open or update one GitHub issue or pull-request comment, found again by its title or a
marker, with the GitHub CLI (``gh``, authenticated by ``GH_TOKEN`` in the workflow).

Bodies are passed on standard input (``--body-file -``), never on a command line or
through a shell, so text from results cannot be executed.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence

GH = "gh"
COMMENT_MARKER = "<!-- wsbench-pr-comparison -->"
"""The first line of the pull-request comparison's comment (how it is found again)."""
COUNTS_MARKER = "<!-- wsbench-pr-instructions -->"
"""The first line of the pull request's instruction-count comment (a comment of its own)."""
MARKERS = (COMMENT_MARKER, COUNTS_MARKER)
"""The markers a comment may start with."""
MAX_COMMENT_CHARS = 65_536
"""GitHub's limit on a comment's length."""


class GitHubError(RuntimeError):
    """``gh`` failed (the message has the command and gh's error)."""


def _gh(args: Sequence[str], *, gh: str, stdin: str | None = None) -> str:
    proc = subprocess.run([gh, *args], input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise GitHubError(f"gh {' '.join(args[:3])}: {proc.stderr.strip()}")
    return proc.stdout


def _repo(repo: str | None) -> list[str]:
    return ["--repo", repo] if repo else []


def upsert_issue(title: str, body: str, *, repo: str | None = None, gh: str = GH) -> str:
    """Update the open issue titled exactly ``title`` with ``body``, or open one.

    Returns:
        ``"updated #N"`` or ``"opened"`` followed by gh's answer (the issue's address).

    Raises:
        GitHubError: see the class.
    """
    listed = _gh(
        ["issue", "list", *_repo(repo), "--state", "open", "--search", f'"{title}" in:title',
         "--json", "number,title", "--limit", "100"],
        gh=gh,
    )  # fmt: skip
    try:
        issues = json.loads(listed or "[]")
    except ValueError as exc:
        raise GitHubError(f"gh issue list: not JSON: {listed[:200]!r}") from exc
    same = sorted(i["number"] for i in issues if i.get("title") == title)
    if same:
        number = str(same[0])
        _gh(["issue", "edit", number, *_repo(repo), "--body-file", "-"], gh=gh, stdin=body)
        return f"updated #{number}"
    made = _gh(
        ["issue", "create", *_repo(repo), "--title", title, "--body-file", "-"], gh=gh, stdin=body
    )
    return f"opened {made.strip()}"


def upsert_pr_comment(
    pr: int, body: str, *, repo: str, gh: str = GH, label: str | None = None
) -> str:
    """Post the comparison on pull request ``pr`` of ``repo`` (``owner/name``), editing
    wsbench's earlier comment with the same marker (the body's first line when it is one of
    :data:`MARKERS`, else :data:`COMMENT_MARKER`) if there is one; then remove ``label``,
    so that a new push needs a new approval. A body longer than :data:`MAX_COMMENT_CHARS`
    is cut, saying so.

    Returns:
        ``"updated"`` or ``"posted"``.

    Raises:
        GitHubError: see the class.
    """
    marker = next((m for m in MARKERS if body.startswith(m)), COMMENT_MARKER)
    text = body if body.startswith(marker) else f"{marker}\n{body}"
    if len(text) > MAX_COMMENT_CHARS:
        cut = "\n\n(cut: longer than a GitHub comment can be; the whole table is in the artifact)\n"
        text = text[: MAX_COMMENT_CHARS - len(cut)] + cut
    listed = _gh(["api", "--paginate", f"repos/{repo}/issues/{pr}/comments"], gh=gh)
    try:
        comments = json.loads(listed or "[]")
    except ValueError as exc:
        raise GitHubError(f"gh api comments: not JSON: {listed[:200]!r}") from exc
    ours = [c["id"] for c in comments if str(c.get("body", "")).startswith(marker)]
    if ours:
        path = f"repos/{repo}/issues/comments/{ours[0]}"
        _gh(["api", "--method", "PATCH", path, "-F", "body=@-"], gh=gh, stdin=text)
        done = "updated"
    else:
        path = f"repos/{repo}/issues/{pr}/comments"
        _gh(["api", "--method", "POST", path, "-F", "body=@-"], gh=gh, stdin=text)
        done = "posted"
    if label:
        _gh(["pr", "edit", str(pr), "--repo", repo, "--remove-label", label], gh=gh)
    return done


def pull_request(pr: int, *, repo: str, gh: str = GH) -> dict[str, str]:
    """The commits of pull request ``pr`` of ``repo``: ``{"head": sha, "base": sha,
    "pr": number}`` (the head commit, to check out by hash, and the target branch's).

    Raises:
        GitHubError: gh failed, or the head is not in ``repo`` (a fork's code never runs on
            the benchmark runner).
    """
    answer = _gh(["api", f"repos/{repo}/pulls/{pr}"], gh=gh)
    try:
        data = json.loads(answer)
        head_repo = (data["head"].get("repo") or {}).get("full_name")
        head, base = data["head"]["sha"], data["base"]["sha"]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GitHubError(f"pull request {pr}: unexpected answer from gh api") from exc
    if head_repo != repo:
        raise GitHubError(
            f"pull request {pr}: its head is in {head_repo!r}, not {repo!r}; the comparison "
            "runs only for heads in this repository"
        )
    return {"head": str(head), "base": str(base), "pr": str(pr)}


def pr_of_artifact(text: str, head_sha: str, *, repo: str, gh: str = GH) -> int:
    """The pull request number an untrusted artifact names (``text``: digits only), once
    GitHub confirms that pull request's head is ``head_sha`` (the commit the measuring
    workflow ran on, from the trusted ``workflow_run`` event): a forged number cannot
    direct the comment to another pull request.

    Raises:
        GitHubError: ``text`` is not a number, gh failed, or the heads differ.
    """
    found = text.strip()
    if not found.isascii() or not found.isdigit() or len(found) > 10:
        raise GitHubError(f"the artifact's pull request number is not a number: {found[:40]!r}")
    answer = _gh(["api", f"repos/{repo}/pulls/{int(found)}"], gh=gh)
    try:
        head = json.loads(answer)["head"]["sha"]
    except (ValueError, KeyError, TypeError) as exc:
        raise GitHubError(f"pull request {found}: unexpected answer from gh api") from exc
    if head != head_sha:
        raise GitHubError(
            f"pull request {found}: its head is {str(head)[:12]}, not {head_sha[:12]} (the "
            "commit that was counted); no comment"
        )
    return int(found)
