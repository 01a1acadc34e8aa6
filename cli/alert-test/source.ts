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
import { didYouMean } from "./suggest";

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

/** The offset in `text` of 1-based `line` and `column` (a query's or a template's error, inside its value). */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const eol = text.indexOf("\n", offset);
    if (eol < 0) return text.length;
    offset = eol + 1;
  }
  return Math.min(offset + column - 1, text.length);
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
    /** The document's text, for positions inside a string value. */
    private readonly text: string,
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
    return new SourceDocument(file, value, doc, lines, text);
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

  /**
   * Where the character at `offset` of the string value at `path` is written in the file: a query's error at its
   * own line and column, in a block (`|`, `>`), a quoted or a plain scalar alike. The scalar's text is walked
   * against its value: escapes (`\"`, `''`), a folded line's indentation and a block's indentation are skipped,
   * so a position inside a token lands on that token. Without a scalar at `path`, the value's own position.
   */
  positionInValue(path: DocPath, offset: number): { line: number; column: number } | undefined {
    const node = this.nodeAt(path);
    const value = this.valueAt(path);
    if (!isScalar(node) || typeof value !== "string" || !node.range) return this.positionOf(path);
    const [from, to] = node.range;
    let i = from;
    // The value starts after an opening quote, or on the line after a block's header (`|`, `>-`, …).
    if (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") i += 1;
    else if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
      const eol = this.text.indexOf("\n", i);
      i = eol < 0 ? to : eol + 1;
    }
    const src = this.text;
    const single = node.type === "QUOTE_SINGLE";
    const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r";
    const skipSpace = () => {
      while (i < to && isSpace(src[i])) i++;
    };
    /** Past the source's spelling of `c` (a non-space): indentation, then an escape's backslash or quote. */
    const reach = (c: string) => {
      skipSpace();
      if ((src[i] === "\\" || (single && src[i] === "'")) && src[i + 1] === c) i++;
    };
    const end = Math.min(offset, value.length);
    for (let j = 0; j < end && i < to; j++) {
      const c = value[j];
      if (single && c === "'" && src[i] === "'" && src[i + 1] === "'") i += 2;
      else if (src[i] === c) i++;
      else if (isSpace(c)) {
        // A folded line break (or an escaped \n, \t) stands for this space.
        if (src[i] === "\\") i += 2;
        else if (isSpace(src[i])) i++;
      } else {
        reach(c);
        // One for one past an escape the walk does not read (\u00e9).
        i++;
      }
    }
    if (end < value.length && !isSpace(value[end])) reach(value[end]);
    return this.positionAtOffset(Math.min(i, Math.max(from, to - 1)));
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
      const known =
        issue.code === "unrecognized_keys" ? knownKeysAt(schema, issue.path as DocPath, value) : [];
      for (const key of keys) {
        const full = key === undefined ? path : [...path, key];
        problems.push({
          file: this.file,
          ...this.positionOf(full, { key: key !== undefined }),
          field: issuePath(full),
          message: key === undefined ? failure.reason : `is not a known field${didYouMean(key, known)}`,
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

// ---------------------------------------------------------------------------------------------------------------
// The fields a schema knows at a path, for "did you mean …?" on an unknown one

type AnySchema = z.core.$ZodType;
interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  out?: AnySchema;
  getter?: () => AnySchema;
  options?: AnySchema[];
  left?: AnySchema;
  right?: AnySchema;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  valueType?: AnySchema;
}
const defOf = (s: AnySchema) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Schemas that read their value before choosing a schema for it (an `events` entry), so the walk asks them. */
const chosenBy = new WeakMap<AnySchema, (value: unknown) => AnySchema>();

/** Declares that `schema` parses its value with `choose(value)`, for {@link knownKeysAt}. */
export function choosesSchema(schema: AnySchema, choose: (value: unknown) => AnySchema): void {
  chosenBy.set(schema, choose);
}

/** The schemas `s` may parse `value` with, wrappers (optional, pipes, unions, …) taken off. */
function concrete(s: AnySchema, value: unknown, depth = 0): AnySchema[] {
  if (depth > 20) return [];
  const def = defOf(s);
  const chosen = chosenBy.get(s);
  if (chosen) return concrete(chosen(value), value, depth + 1);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return concrete(def.innerType!, value, depth + 1);
    case "pipe":
      return [...concrete(def.in!, value, depth + 1), ...concrete(def.out!, value, depth + 1)];
    case "lazy":
      return concrete(def.getter!(), value, depth + 1);
    case "union":
      return def.options!.flatMap((o) => concrete(o, value, depth + 1));
    case "intersection":
      return [...concrete(def.left!, value, depth + 1), ...concrete(def.right!, value, depth + 1)];
    default:
      return [s];
  }
}

/** The field names the object schema at `path` of `schema` knows (for `value`, the value parsed), or none. */
export function knownKeysAt(schema: AnySchema, path: DocPath, value: unknown): string[] {
  let at: AnySchema[] = [schema];
  let v = value;
  for (const key of path) {
    at = at.flatMap((s) =>
      concrete(s, v).flatMap((c) => {
        const def = defOf(c);
        if (def.type === "object" && typeof key === "string" && def.shape && key in def.shape)
          return [def.shape[key]];
        if (def.type === "array" && typeof key === "number") return [def.element!];
        if (def.type === "record") return [def.valueType!];
        return [];
      }),
    );
    v = v !== null && typeof v === "object" ? (v as Record<string | number, unknown>)[key] : undefined;
  }
  const keys = new Set<string>();
  for (const s of at)
    for (const c of concrete(s, v)) {
      const def = defOf(c);
      if (def.type === "object" && def.shape) for (const k of Object.keys(def.shape)) keys.add(k);
    }
  return [...keys];
}
