/** The web app's markdown renderer: the useful subset, and no way to smuggle HTML or a script URL through. */
import { describe, expect, it } from "vitest";
import { renderMarkdown, safeHref } from "../../src/web/markdown.js";

const ALLOWED_TAGS = [
  "p",
  "br",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "code",
  "hr",
  "strong",
  "em",
  "a",
];

describe("renderMarkdown", () => {
  it("renders headings, lists, code, quotes, emphasis and links", () => {
    const html = renderMarkdown(
      "# Title\n\nSome **bold** and *em* and `code`.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```\n<b>x</b>\n```\n\n[site](https://example.com/a?b=1&c=2)",
    );
    expect(html).toContain("<h3>Title</h3>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<em>em</em>");
    expect(html).toContain("<code>code</code>");
    expect(html).toContain("<ul><li>one</li><li>two</li></ul>");
    expect(html).toContain("<ol><li>first</li></ol>");
    expect(html).toContain("<blockquote><p>quoted</p></blockquote>");
    expect(html).toContain("<pre><code>&lt;b&gt;x&lt;/b&gt;</code></pre>");
    expect(html).toContain(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">site</a>',
    );
  });

  it("keeps snake_case words as they are", () => {
    expect(renderMarkdown("call get_user_story_requirements now")).toBe(
      "<p>call get_user_story_requirements now</p>",
    );
  });

  const payloads = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](//evil.example/x)",
    '[x](https://ok.example/" onmouseover="alert(1))',
    "[<img src=x onerror=alert(1)>](https://ok.example)",
    "`</code><script>alert(1)</script>`",
    "> <svg onload=alert(1)>",
    "**<iframe src=javascript:alert(1)>**",
    "<a href='javascript:alert(1)'>x</a>",
  ];
  it.each(payloads)("never emits a tag or attribute of its own from %s", (payload) => {
    const html = renderMarkdown(payload);
    // Every tag in the output is one of the renderer's, with no attribute but a checked href and rel.
    for (const [, name, attrs] of html.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)) {
      expect(ALLOWED_TAGS).toContain((name as string).toLowerCase());
      const names = [...(attrs as string).matchAll(/\s([^\s=]+)=/g)].map((a) => a[1]);
      for (const n of names) expect(["href", "rel"]).toContain(n);
      const href = /href="([^"]*)"/.exec(attrs as string)?.[1];
      if (href !== undefined) expect(href).toMatch(/^(https?:\/\/|mailto:|\/[^/\\]|#)/);
    }
    expect(html).not.toMatch(/<(script|img|svg|iframe)\b/i);
  });

  it("allows only http(s), mailto, site paths and fragments as link targets", () => {
    expect(safeHref("https://a.example")).toBe("https://a.example");
    expect(safeHref("/requirements/REQ-001")).toBe("/requirements/REQ-001");
    expect(safeHref("#x")).toBe("#x");
    expect(safeHref("mailto:a@b.example")).toBe("mailto:a@b.example");
    for (const bad of [
      "javascript:alert(1)",
      "data:x",
      "//evil.example",
      "/\\evil.example",
      "vbscript:x",
      "REQ-001",
    ]) {
      expect(safeHref(bad)).toBeUndefined();
    }
  });
});
