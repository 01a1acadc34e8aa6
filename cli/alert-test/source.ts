/**
 * A YAML (or JSON) document read with its positions, so that every problem found in it, by the parser, by the
 * schema or by a later check, names the file, the line and the field.
 */
import {
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
} from "yaml";
import { issuePath, projectMessage, validationFailures } from "../../provider/schemas/common";
import type { z } from "zod";

/** One problem in an input file: where it is and what is wrong. */
export interface Problem {
  /** The file as the user named it (or a description such as "the output of `pulumi preview --json`"). */
  file: string;
  /** 1-based line; undefined when the problem belongs to no line (an empty file). */
  line?: number;
  /** 1-based column on that line, where the line is known. */
  column?: number;
  /** Dotted path of the field, `expect[2].at`; empty for the document itself. */
  field: string;
  message: string;
}

/** `file:line:column: field: message`, the one-line form every problem is printed in (editors and CI annotations
 * jump to it). */
export function formatProblem(p: Problem): string {
  const where =
    p.line === undefined ? p.file : `${p.file}:${p.line}${p.column === undefined ? "" : `:${p.column}`}`;
  return p.field ? `${where}: ${p.field}: ${p.message}` : `${where}: ${p.message}`;
}

/** Thrown with every problem of a file at once: the command prints each on its own line and exits 2. */
export class FileProblems extends Error {
  override readonly name = "FileProblems";
  readonly problems: readonly Problem[];
  /** `problems` are kept in reading order: by file, then line (a problem on no line last), then as found. */
  constructor(problems: readonly Problem[]) {
    const sorted = problems
      .map((p, i) => ({ p, i }))
      .sort(
        (a, b) =>
          (a.p.file === b.p.file ? 0 : a.p.file < b.p.file ? -1 : 1) ||
          (a.p.line ?? Infinity) - (b.p.line ?? Infinity) ||
          (a.p.column ?? 0) - (b.p.column ?? 0) ||
          a.i - b.i,
      )
      .map(({ p }) => p);
    super(sorted.map(formatProblem).join("\n"));
    this.problems = sorted;
  }
}

/** A path into a document: keys and list indexes. */
export type DocPath = readonly (string | number)[];

/** A parsed document that can say where any of its values is. */
export class SourceDocument {
  private constructor(
    /** The name problems carry. */
    readonly file: string,
    /** The document's plain value (maps as objects, lists as arrays). */
    readonly value: unknown,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  /**
   * Parses `text`; a syntax error (or a file that holds more than one document) is thrown as {@link FileProblems}
   * naming its line. JSON is read as the YAML 1.2 it is, so a JSON file gets lines too.
   */
  static parse(file: string, text: string): SourceDocument {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const problems: Problem[] = doc.errors.map((e) => ({
      file,
      line: e.linePos?.[0]?.line ?? lines.linePos(e.pos[0]).line,
      column: e.linePos?.[0]?.col ?? lines.linePos(e.pos[0]).col,
      field: "",
      message: e.message.replace(/\s*at line \d+, column \d+:?[\s\S]*$/, "").trim(),
    }));
    if (problems.length > 0) throw new FileProblems(problems);
    let value: unknown;
    try {
      // Aliases are expanded here; a bomb of nested aliases stops at the parser's own limit.
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      throw new FileProblems([{ file, line: 1, column: 1, field: "", message: (err as Error).message }]);
    }
    return new SourceDocument(file, value, doc, lines);
  }

  /**
   * The line of the value at `path`: the deepest node the path reaches, so a missing field is placed on the map
   * that lacks it, and an unknown field on its own key.
   */
  lineOf(path: DocPath): number | undefined {
    return this.positionOf(path)?.line;
  }

  /** The line and column of the value at `path`, placed as {@link lineOf} places it. */
  positionOf(path: DocPath, { key = false } = {}): { line: number; column: number } | undefined {
    const node = this.nodeAt(path, key);
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /** Where `offset` (0-based, in the file's text) is. */
  positionAtOffset(offset: number): { line: number; column: number } {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /** The node of the value at `path` (with `key`, of its key in the map), or of the map lacking it (see
   * {@link lineOf}). */
  nodeAt(path: DocPath, atKey = false): Node | undefined {
    let node: unknown = this.doc.contents;
    /** The key of the map that holds `node`: a missing field is placed on it (`errors:`), not on its first field. */
    let keyNode: Node | undefined;
    let missing = false;
    for (const key of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && scalarValue(p.key) === key);
        if (!pair) {
          missing = true;
          break;
        }
        keyNode = isNode(pair.key) ? pair.key : undefined;
        node = pair.value;
      } else if (isSeq(node) && typeof key === "number" && key < node.items.length) {
        keyNode = undefined;
        node = node.items[key];
      } else {
        missing = true;
        break;
      }
      if (!isNode(node)) break;
    }
    return (missing && keyNode) || (atKey && keyNode) || (isNode(node) ? node : keyNode);
  }

  /** A problem at `path`, with its line. */
  problem(path: DocPath, message: string): Problem {
    return { file: this.file, ...this.positionOf(path), field: issuePath(path), message };
  }

  /**
   * `value` (the whole document's value, or the part at `at`) parsed with `schema`; every failure is thrown at
   * once as {@link FileProblems}, each with its field's path (prefixed by `at`) and line.
   */
  parseWith<T>(schema: z.ZodType<T>, at: DocPath = [], value: unknown = this.valueAt(at)): T {
    const result = schema.safeParse(value, { error: projectMessage, reportInput: true });
    if (result.success) return result.data;
    const problems: Problem[] = [];
    for (const issue of result.error.issues) {
      const path = [...at, ...(issue.path as (string | number)[])];
      // An unknown key is placed on its own line; validationFailures names it in the field.
      const [failure] = validationFailures({ issues: [issue] } as z.ZodError, "", value);
      const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
      for (const key of keys) {
        const full = key === undefined ? path : [...path, key];
        problems.push({
          file: this.file,
          ...this.positionOf(full, { key: key !== undefined }),
          field: issuePath(full),
          message: key === undefined ? failure.reason : "is not a known field",
        });
      }
    }
    throw new FileProblems(problems);
  }

  /** The plain value at `path`. */
  valueAt(path: DocPath): unknown {
    let v: unknown = this.value;
    for (const key of path) {
      if (v === null || typeof v !== "object") return undefined;
      v = (v as Record<string | number, unknown>)[key];
    }
    return v;
  }
}

function scalarValue(node: unknown): unknown {
  return isScalar(node) ? node.value : undefined;
}
