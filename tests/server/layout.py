"""Layout facts of the real page as Chromium lays it out (boxes from ``getBoundingClientRect``):
the sticky header's height and whether it covers something, whether an element is in view,
whether anything is cut (its content wider than its box) or runs out of the page.

The screens a family uses: a tablet on its side and two phones."""

from __future__ import annotations

from typing import Any

TABLET_1024 = {"width": 1024, "height": 768}
PHONE_390 = {"width": 390, "height": 844}
PHONE_320 = {"width": 320, "height": 640}
SCREENS = {"1024x768": TABLET_1024, "390x844": PHONE_390, "320x640": PHONE_320}

#: The header's most at any width: one line of controls (48 px) and its padding.
BAR_MOST = 66


def box(page, selector: str) -> dict[str, float] | None:
    """The first match's box in the viewport (x, y, width, height, bottom, right) or None."""
    return page.evaluate("""sel => { const el = document.querySelector(sel);
        if (!el) return null; const r = el.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height, bottom: r.bottom, right: r.right}; }""",
                         selector)


def bar_height(page) -> float:
    found = box(page, "#bar")
    assert found is not None
    return found["height"]


def in_view(page, selector: str) -> bool:
    """The element's top is below the sticky header and above the viewport's bottom, and it
    lies within the viewport's width."""
    found = box(page, selector)
    view = page.viewport_size
    return (found is not None and found["height"] > 0 and found["y"] >= bar_height(page) - 0.5
            and found["y"] < view["height"] and found["x"] >= -0.5
            and found["right"] <= view["width"] + 0.5)


def under_the_bar(page, selector: str) -> list[str]:
    """Texts of the elements matching ``selector`` that the sticky header covers in part."""
    return page.evaluate("""sel => { const bar = document.getElementById('bar').getBoundingClientRect();
        return [...document.querySelectorAll(sel)].filter(el => { const r = el.getBoundingClientRect();
          return r.height > 0 && r.top < bar.bottom - 0.5 && r.bottom > bar.top + 0.5; })
          .map(el => el.textContent.trim().slice(0, 60)); }""", selector)


def cut(page, selector: str = "#main *") -> list[dict[str, Any]]:
    """Elements whose own content is wider than their box (text or children cut off, or pushed
    out by an element wider than the page), except those made to scroll sideways."""
    return page.evaluate("""sel => { const out = [], width = document.documentElement.clientWidth;
        for (const el of document.querySelectorAll(sel)) {
          const r = el.getBoundingClientRect();
          if (!r.width || getComputedStyle(el).display === 'contents') continue;
          const style = getComputedStyle(el);
          // made to scroll sideways, or shortened with "…" and its whole text in its title
          if (['auto', 'scroll'].includes(style.overflowX)) continue;
          if (style.textOverflow === 'ellipsis' && el.title) continue;
          const hidden = getComputedStyle(el).overflowX === 'hidden' && el.scrollWidth > el.clientWidth + 1;
          const offPage = r.right > width + 1 && !el.closest('.table-scroll, .lines, dialog');
          if (hidden || offPage) out.push({tag: el.tagName, cls: el.className && String(el.className),
            text: el.textContent.trim().slice(0, 40), right: r.right, width: r.width});
        }
        return out; }""", selector)


def scrolls_sideways(page, selector: str = ".result .table-scroll") -> list[dict[str, Any]]:
    """Boxes made to scroll sideways whose content is wider than they are (a score table a
    phone must scroll to read), with how much wider."""
    return page.evaluate("""sel => [...document.querySelectorAll(sel)]
        .filter(el => el.scrollWidth > el.clientWidth + 1)
        .map(el => ({cls: String(el.className), width: el.clientWidth, content: el.scrollWidth,
                     text: el.textContent.trim().slice(0, 40)}))""", selector)


def page_wider_than_screen(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1")


def overlapping(page, selector: str) -> list[tuple[str, str]]:
    """Pairs of elements matching ``selector`` whose boxes overlap (by more than a pixel)."""
    return [tuple(p) for p in page.evaluate("""sel => { const els = [...document.querySelectorAll(sel)]
        .filter(el => el.getBoundingClientRect().height > 0);
        const out = [];
        for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
          const a = els[i].getBoundingClientRect(), b = els[j].getBoundingClientRect();
          if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
              && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)
            out.push([els[i].textContent.trim().slice(0, 30), els[j].textContent.trim().slice(0, 30)]);
        }
        return out; }""", selector)]


def outside_pictures(page) -> list[list[Any]]:
    """Texts and pieces of the page's pictures (SVG) drawn past their picture's edge, which the
    picture clips: a name over the next column, a row of tokens spilling out of its panel."""
    return page.evaluate("""() => { const out = [];
        for (const svg of document.querySelectorAll('#main svg')) {
          const f = svg.getBoundingClientRect();
          if (!f.width) continue;
          for (const el of svg.querySelectorAll('text, circle, rect, ellipse, polygon')) {
            const r = el.getBoundingClientRect();
            if (!r.width) continue;
            if (r.left < f.left - 1 || r.right > f.right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1)
              out.push([svg.getAttribute('class'), el.tagName, el.textContent.slice(0, 30),
                        Math.round(r.left - f.left), Math.round(r.right - f.right), Math.round(r.bottom - f.bottom)]);
          }
        }
        return out.slice(0, 8); }""")
