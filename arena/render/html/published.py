"""The banner of a published ladder's report (`arena ladder publish`): which key signed the
results, when and by which arena the directory was verified, and the command that checks it
again. Pure: a page in, the page with the banner out."""

from __future__ import annotations

from arena.render.html.markup import el, leaf, render

BODY = "<body>\n"
"""Where the banner goes: first thing in the page's body (``page.document`` writes it so)."""


def with_banner(page: str, *, key_id: str, verified_at: str, arena_version: str, matches: int,
                command: str) -> str:
    """``page`` (a whole document) with the publication's banner opening its body."""
    head, found, rest = page.partition(BODY)
    if not found:
        raise ValueError("not a page of the arena's report (no <body>)")
    return head + found + banner(key_id=key_id, verified_at=verified_at,
                                 arena_version=arena_version, matches=matches,
                                 command=command) + "\n" + rest


def banner(*, key_id: str, verified_at: str, arena_version: str, matches: int,
           command: str) -> str:
    """The banner as HTML: the key id, the verification and the command that repeats it."""
    listed = f"{matches} match{'' if matches == 1 else 'es'}"
    return render(el(
        "section", "note",
        el("p", "meta", leaf("span", None, "Signed results: every match log and the manifest "
                                           "are signed by referee key "),
           leaf("code", None, key_id, id="key-id")),
        el("p", "meta", leaf("span", None, f"verified on {verified_at} by arena "
                                           f"{arena_version}"),
           leaf("span", None, f" ({listed}; the standings recomputed from the logs)")),
        el("p", "meta", leaf("span", None, "Check it yourself, offline, with the referee's "
                                           "public key from a source you trust: "),
           leaf("code", None, command)),
        id="published",
    ))
