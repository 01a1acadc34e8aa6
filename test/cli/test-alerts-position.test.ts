/** Positions inside a string value: a query's or a template's error lands on its own line and column of the YAML file. */
import { SourceDocument } from "../../cli/alert-test/source";

/** The line and column where `needle` (its first occurrence in the value at `path`) is written. */
function where(text: string, path: (string | number)[], needle: string) {
  const doc = SourceDocument.parse("t.yaml", text);
  const value = doc.valueAt(path) as string;
  return doc.positionInValue(path, value.indexOf(needle));
}

/** The line and column of `needle` in the text itself, 1-based, `nth` occurrence (default the last). */
function inText(text: string, needle: string, nth = -1) {
  const offsets: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) offsets.push(i);
  const offset = offsets.at(nth)!;
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

it.each([
  ["plain", "q: web | summarise count()\n"],
  ["double-quoted with escapes", 'q: "[\\"web\\"] | where a == \\"x\\" | summarise count()"\n'],
  ["single-quoted with a doubled quote", "q: '[''web''] | summarise count()'\n"],
  ["a literal block", "q: |\n  ['web']\n  | where status >= 500\n  | summarise count()\n"],
  ["a folded block", "q: >-\n    ['web']\n    | where status >= 500\n    | summarise count()\n"],
  ["a plain scalar folded over lines", "q: web\n  where status >= 500\n    summarise count()\n"],
])("%s", (_, text) => {
  expect(where(text, ["q"], "summarise")).toEqual(inText(text, "summarise"));
  expect(where(text, ["q"], "count")).toEqual(inText(text, "count"));
});
