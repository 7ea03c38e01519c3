"""Every relative link and image in README.md and docs/*.md points at a file that exists, and
at a heading that exists where it names one (#fragment, GitHub's anchor rules)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
FENCE = re.compile(r'^(```|~~~).*?^\1', re.MULTILINE | re.DOTALL)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return text.replace(' ', '-')


def anchors(page: Path) -> set[str]:
    text = FENCE.sub('', page.read_text())
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r'^#{1,6}\s+(.+?)\s*#*$', text, re.MULTILINE):
        base = anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f'{base}-{n}')
    return out


def links(page: Path) -> list[str]:
    text = FENCE.sub('', page.read_text())
    text = re.sub(r'`[^`\n]*`', '', text)  # inline code is not a link
    return LINK.findall(text)


def broken(page: Path) -> list[str]:
    """The relative links of `page` whose file or heading is missing."""
    bad = []
    for target in links(page):
        if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition('#')
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f'{target}: no such file')
        elif fragment and dest.suffix == '.md' and fragment not in anchors(dest):
            bad.append(f'{target}: no heading #{fragment} in {dest.name}')
    return bad


def test_the_pages_are_found():
    names = {p.name for p in PAGES}
    assert {'README.md', 'safety.md', 'speed.md', 'parity.md', 'architecture.md'} <= names


@pytest.mark.parametrize('page', PAGES, ids=lambda p: p.name)
def test_every_relative_link_and_image_resolves(page):
    assert broken(page) == []


def test_a_broken_file_link_an_image_and_an_anchor_are_caught(tmp_path):
    (tmp_path / 'there.md').write_text('# A heading, with punctuation\n\n## Twice\n## Twice\n')
    page = tmp_path / 'page.md'
    page.write_text(
        '[ok](there.md) [ok](there.md#a-heading-with-punctuation) [ok](there.md#twice-1)\n'
        '[web](https://example.com/x.md) `[code](nowhere.md)`\n'
        '```\n[fenced](nowhere.md)\n```\n'
        '[gone](missing.md) ![pic](missing.png) [anchor](there.md#no-such) [self](#nope)\n'
    )
    assert broken(page) == [
        'missing.md: no such file',
        'missing.png: no such file',
        'there.md#no-such: no heading #no-such in there.md',
        '#nope: no heading #nope in page.md',
    ]
