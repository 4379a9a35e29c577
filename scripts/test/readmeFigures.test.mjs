// The README's .vsix size against what packaging measures.
import assert from "node:assert/strict";
import { test } from "node:test";
import { vsixSizeMismatch } from "../readmeFigures.mjs";

const readme = (figure) => `Install it. The .vsix is about ${figure} KiB. The extension needs nothing else.`;

const cases = [
  { name: "the figure itself", text: readme(650), bytes: 650 * 1024, holds: true },
  { name: "within a tenth above", text: readme(650), bytes: 710 * 1024, holds: true },
  { name: "within a tenth below", text: readme(650), bytes: 590 * 1024, holds: true },
  { name: "the old figure for today's size", text: readme(500), bytes: 640 * 1024, holds: false },
  { name: "a figure far too high", text: readme(2000), bytes: 640 * 1024, holds: false },
  { name: "no figure at all", text: "Install it.", bytes: 640 * 1024, holds: false },
];

for (const c of cases) {
  test(`the README's .vsix size: ${c.name}`, () => {
    const mismatch = vsixSizeMismatch(c.text, c.bytes);
    if (c.holds) assert.equal(mismatch, undefined);
    else assert.match(mismatch ?? "", /README\.md/);
  });
}
