/** The `sh` blocks of a docs page, which the page tests (languages-page, terraform-migration) run in order. */

/** The page's `sh` blocks, by the heading of their section. */
export function shellBlocks(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let heading = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const h = /^## (.+)$/.exec(lines[i]);
    if (h) heading = h[1];
    if (lines[i] !== "```sh") continue;
    const block: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) block.push(lines[i]);
    sections.set(heading, [...(sections.get(heading) ?? []), block.join("\n")]);
  }
  return sections;
}
