"""A WCAG contrast scan computed in the page (issue 41: small text ≥ 4.5:1 in both themes).

Every visible text node under 18 px is checked: its colour (with the opacity of its ancestors)
against the background it is drawn on, found by compositing the background colours of its
ancestors from the first opaque one up. Colours are resolved through a canvas, so `color-mix()`,
`oklch()` and named colours come out as the sRGB the page paints. Disabled controls are exempt
(WCAG 1.4.3 exempts inactive components), as are text nodes over a background image, whose
pixels this cannot know."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

MIN_RATIO = 4.5
LARGE_PX = 18.0

CONTRAST_JS = """([minRatio, largePx]) => {
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const rgba = (css) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "rgba(0,0,0,0)";
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, bottom) => {  // top (with alpha) composited over an opaque bottom
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const lum = (c) => {
    const ch = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const background = (el) => {
    const layers = [];
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      opacity *= parseFloat(cs.opacity);
      if (cs.backgroundImage && cs.backgroundImage !== "none") return null;
      const c = rgba(cs.backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return { bg, opacity };
  };
  const where = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      const id = e.getAttribute("data-testid");
      const cls = [...e.classList].slice(0, 2).join(".");
      parts.unshift(e.tagName.toLowerCase() + (id ? `[${id}]` : "") + (cls ? "." + cls : ""));
    }
    return parts.join(" > ");
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("script, style, noscript")) continue;
    if (el.closest(":disabled, [aria-disabled='true'], .is-disabled")) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    const cs = getComputedStyle(el);
    const size = parseFloat(cs.fontSize);
    if (size >= largePx) continue;
    const under = background(el);
    if (!under) continue;
    const fg = rgba(cs.color);
    const shown = over([fg[0], fg[1], fg[2], fg[3] * under.opacity], under.bg);
    const [l1, l2] = [lum(shown), lum(under.bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < minRatio) {
      found.push({ text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, size,
        color: cs.color, background: `rgb(${under.bg.slice(0, 3).map(Math.round).join(",")})`,
        where: where(el) });
    }
  }
  return found;
}"""


def low_contrast(page: Page) -> list[dict[str, Any]]:
    """Text under 18 px on this page whose contrast is below 4.5:1, one entry per text node."""
    found: list[dict[str, Any]] = page.evaluate(CONTRAST_JS, [MIN_RATIO, LARGE_PX])
    return found


def contrast_report(found: dict[str, list[dict[str, Any]]]) -> str:
    """One line per colour pair and place, with the views and a few texts it was seen with."""
    groups: dict[tuple[str, str, float, str], tuple[set[str], set[str]]] = {}
    for view, entries in found.items():
        for e in entries:
            place = (e["color"], e["background"], e["ratio"], e["where"])
            views, texts = groups.setdefault(place, (set(), set()))
            views.add(view)
            texts.add(e["text"])
    return "\n".join(
        f"{ratio}:1 {color} on {bg} at {where} ({', '.join(sorted(views)[:3])}): {sorted(texts)[:3]}"
        for (color, bg, ratio, where), (views, texts) in sorted(groups.items(), key=lambda kv: kv[0][3])
    )
