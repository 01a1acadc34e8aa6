/**
 * The one way a generator of committed files writes them, or checks them (`--check`): docs:registry,
 * docs:languages, sdk:gen / sdk:check and renamed-types all hand their files to writeOrCheck. Writing touches only
 * the files whose contents change (and, in a folder the generator owns wholly, removes the files it no longer
 * makes); checking writes nothing and prints one line per stale file, under one line naming the command to run.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface WriteOrCheckOptions {
  /** Compare instead of writing. */
  check: boolean;
  /** The script's name: the first word of what it prints. */
  label: string;
  /** The command that writes the files, named when they are stale. */
  fix: string;
  /** What the files are made from, in "not what <source> gives" (default "the schema"). */
  source?: string;
  /** The folder the files' keys are relative to (default the checkout). */
  root?: string;
  /** How that folder is named in messages (default its path relative to the checkout). */
  shownRoot?: string;
  /**
   * Folders (relative to root) the generator makes wholly: a file under one that is not among the files is extra
   * (named when checking, removed when writing), unless `ignore` takes its path relative to that folder.
   */
  owns?: string[];
  ignore?: (relative: string) => boolean;
}

/** Every file under `dir`, relative with `/`, sorted; none when it does not exist. */
function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: "utf8" });
  } catch {
    return [];
  }
  return names
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join("/"))
    .sort();
}

/** The stale files, one line each: missing, differing, or extra in an owned folder. */
export function staleFiles(
  files: Record<string, string | Buffer>,
  options: Omit<WriteOrCheckOptions, "check" | "label" | "fix">,
): { file: string; problem: "missing" | "differs" | "extra" }[] {
  const root = options.root ?? ROOT;
  const out: { file: string; problem: "missing" | "differs" | "extra" }[] = [];
  for (const [file, text] of Object.entries(files)) {
    let committed: Buffer;
    try {
      committed = readFileSync(path.join(root, file));
    } catch {
      out.push({ file, problem: "missing" });
      continue;
    }
    if (!committed.equals(Buffer.isBuffer(text) ? text : Buffer.from(text)))
      out.push({ file, problem: "differs" });
  }
  for (const dir of options.owns ?? []) {
    for (const f of filesUnder(path.join(root, dir))) {
      const file = `${dir}/${f}`;
      if (!(file in files) && !options.ignore?.(f)) out.push({ file, problem: "extra" });
    }
  }
  return out;
}

/**
 * Writes `files` (relative path to contents) under the root, or with `check` compares them; returns the exit code:
 * 0 when written or current, 1 when the check finds a file stale (each named on stderr).
 */
export function writeOrCheck(files: Record<string, string | Buffer>, options: WriteOrCheckOptions): number {
  const root = options.root ?? ROOT;
  const stale = staleFiles(files, options);
  if (options.check) {
    if (stale.length === 0) return 0;
    const shownRoot = options.shownRoot ?? path.relative(ROOT, root);
    const source = options.source ?? "the schema";
    const said = {
      missing: "is missing",
      differs: `differs from what ${source} gives`,
      extra: `is not generated from ${source}`,
    };
    console.error(`${options.label}: stale; run \`${options.fix}\` and commit:`);
    for (const s of stale.slice(0, 20))
      console.error(`  ${path.posix.join(shownRoot, s.file)} ${said[s.problem]}`);
    if (stale.length > 20) console.error(`  … and ${stale.length - 20} more`);
    return 1;
  }
  for (const { file, problem } of stale) {
    const target = path.join(root, file);
    if (problem === "extra") rmSync(target);
    else {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, files[file]);
    }
  }
  return 0;
}

/** `text` as Prettier formats `file` (the repository's lint checks the docs, code blocks included). */
export async function prettierFormatted(text: string, file: string): Promise<string> {
  const prettier = await import("prettier");
  return prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
}

/**
 * The package schema as the build wrote it (dist/provider/native/schema.json, what the plugin serves): what the
 * docs' generators render from. Generating it takes a TypeScript program over the sources, seconds of CPU, so the
 * build does it once (scripts/native-lib.mts generateSchema), and the generators' npm scripts build first.
 */
export function builtSchema(): Record<string, unknown> {
  const file = path.join(ROOT, "dist", "provider", "native", "schema.json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`${path.relative(ROOT, file)} is missing: run npm run build first`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}
