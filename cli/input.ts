/**
 * Event files for `observability ingest`: opened before anything is sent (so a wrong path costs nothing),
 * read as a stream of chunks, gunzipped when they start with the gzip magic bytes, and given a format from
 * the flag, the extension or the first character. Every failure names the file.
 */
import { open, type FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { parse as parseCsvStream } from "csv-parse";
import { parse as parseCsv } from "csv-parse/sync";
import { CommandError, UsageError } from "./exit";

/** The formats `ingest --format` accepts: NDJSON, a JSON array, CSV with a header line. */
export const INPUT_FORMATS = ["ndjson", "json", "csv"] as const;
/** One of {@link INPUT_FORMATS}. */
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Chunks read from a file before any is handed on. */
const CHUNK_BYTES = 1024 * 1024;
/** The CSV header must end within this many characters; a longer first line is treated as malformed. */
const MAX_HEADER_CHARS = 1024 * 1024;

/** One input, open and not read yet. */
export interface Input {
  /** As the user named it; `standard input` for `-`. */
  name: string;
  /** Size in bytes of a regular file, undefined for standard input. */
  size: number | undefined;
  /** The raw bytes, each chunk counted by `onRead` as it is read. */
  read(onRead: (bytes: number) => void): AsyncIterable<Buffer>;
  close(): Promise<void>;
}

/** Checks `value` against {@link INPUT_FORMATS}; an unknown name is a usage error. */
export function inputFormat(value: string): InputFormat {
  if (!(INPUT_FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown format "${value}": use ${INPUT_FORMATS.join(", ")}`);
  }
  return value as InputFormat;
}

/** The format an extension names (`.gz` looked through), or undefined for an extension that says nothing. */
export function formatFromName(name: string): InputFormat | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name.replace(/\.gz$/i, ""))?.[1]?.toLowerCase();
  if (ext === "ndjson" || ext === "jsonl") return "ndjson";
  if (ext === "json") return "json";
  if (ext === "csv") return "csv";
  return undefined;
}

/** Opens every path (`-` is standard input); a path that cannot be read is a usage error, found before
 * anything is sent. */
export async function openInputs(paths: readonly string[]): Promise<Input[]> {
  const inputs: Input[] = [];
  try {
    for (const path of paths) inputs.push(path === "-" ? stdinInput() : await fileInput(path));
  } catch (err) {
    await Promise.all(inputs.map((i) => i.close()));
    throw err;
  }
  return inputs;
}

async function fileInput(path: string): Promise<Input> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${describeFsError(err)}`);
  }
  const stat = await handle.stat();
  if (!stat.isFile() && !stat.isFIFO()) {
    await handle.close();
    throw new UsageError(`cannot read ${path}: ${stat.isDirectory() ? "it is a directory" : "not a file"}`);
  }
  return {
    name: path,
    size: stat.isFile() ? stat.size : undefined,
    read: (onRead) =>
      counted(handle.createReadStream({ highWaterMark: CHUNK_BYTES, autoClose: false }), path, onRead),
    close: () => handle.close(),
  };
}

function stdinInput(): Input {
  return {
    name: "standard input",
    size: undefined,
    read: (onRead) => counted(process.stdin, "standard input", onRead),
    close: async () => {
      process.stdin.destroy();
    },
  };
}

/** `ENOENT (no such file or directory)` rather than Node's sentence with the syscall in it. */
function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const what: Record<string, string> = {
    ENOENT: "no such file or directory",
    EACCES: "permission denied",
    EISDIR: "it is a directory",
    EMFILE: "too many open files",
  };
  return e.code ? `${e.code}${what[e.code] ? ` (${what[e.code]})` : ""}` : String(e.message ?? err);
}

async function* counted(
  stream: Readable,
  name: string,
  onRead: (bytes: number) => void,
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      onRead(buf.length);
      yield buf;
    }
  } catch (err) {
    throw new CommandError(`${name}: read failed: ${describeFsError(err)}`);
  }
}

/** An async iterator whose first items can be looked at, then handed on as if never taken. */
class Peekable<T> {
  private readonly held: T[] = [];
  private done = false;
  constructor(private readonly iterator: AsyncIterator<T>) {}

  /** Takes the next item into the held ones; false at the end. */
  async pull(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.iterator.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    this.held.push(r.value);
    return true;
  }

  get peeked(): readonly T[] {
    return this.held;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    while (this.held.length > 0) yield this.held.shift() as T;
    if (this.done) return;
    for (let r = await this.iterator.next(); !r.done; r = await this.iterator.next()) yield r.value;
  }
}

/** The bytes of `raw`, gunzipped when they start with the gzip magic bytes (whatever the file is called). */
export async function decoded(raw: AsyncIterable<Buffer>, name: string): Promise<AsyncIterable<Buffer>> {
  const peek = new Peekable(raw[Symbol.asyncIterator]());
  // A first chunk of one byte (a slow pipe) cannot show the two magic bytes; read one more.
  while (Buffer.concat(peek.peeked as Buffer[]).length < 2 && (await peek.pull()));
  const head = Buffer.concat(peek.peeked as Buffer[]);
  if (!(head[0] === 0x1f && head[1] === 0x8b)) return peek;
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  const source = Readable.from(peek);
  // A read failure of the file ends the gunzip stream with the same error.
  source.on("error", (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  return (async function* () {
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (err) {
      if (err instanceof CommandError) throw err;
      throw new CommandError(`${name}: broken gzip: ${(err as Error).message}`);
    } finally {
      source.destroy();
    }
  })();
}

/** The format of decoded `data`: the flag's, else the extension's, else `[` JSON, `{` NDJSON, else CSV. The
 * returned iterable still yields every byte. */
export async function detectFormat(
  data: AsyncIterable<Buffer>,
  name: string,
  given: InputFormat | undefined,
): Promise<{ format: InputFormat; data: AsyncIterable<Buffer> }> {
  const known = given ?? formatFromName(name);
  if (known) return { format: known, data };
  const peek = new Peekable(data[Symbol.asyncIterator]());
  let first: string | undefined;
  while (first === undefined && (await peek.pull())) {
    first = /\S/.exec(peek.peeked[peek.peeked.length - 1].toString("latin1"))?.[0];
  }
  return {
    format: first === "[" ? "json" : first === "{" || first === undefined ? "ndjson" : "csv",
    data: peek,
  };
}

/**
 * Checks the CSV header before anything is sent: it must parse, and name every column once, so that no
 * event lands under an empty or doubled field name. Returns the data unchanged.
 */
export async function checkCsvHeader(
  data: AsyncIterable<Buffer>,
  name: string,
  delimiter: string,
): Promise<AsyncIterable<Buffer>> {
  const peek = new Peekable(data[Symbol.asyncIterator]());
  const decoder = new StringDecoder("utf8");
  let text = "";
  while (!text.includes("\n") && text.length < MAX_HEADER_CHARS && (await peek.pull())) {
    text += decoder.write(peek.peeked[peek.peeked.length - 1]);
  }
  const newline = text.indexOf("\n");
  if (newline === -1 && text.length >= MAX_HEADER_CHARS) {
    throw new CommandError(
      `${name}: malformed CSV header: no line break in the first ${MAX_HEADER_CHARS} characters`,
    );
  }
  const line = (newline === -1 ? text : text.slice(0, newline)).replace(/^\uFEFF/, "").replace(/\r$/, "");
  if (line.trim() === "") throw new CommandError(`${name}: malformed CSV header: the first line is empty`);
  let columns: string[];
  try {
    columns = (parseCsv(line, { delimiter, to_line: 1 }) as string[][])[0] ?? [];
  } catch (err) {
    throw new CommandError(`${name}: malformed CSV header: ${(err as Error).message}`);
  }
  const seen = new Set<string>();
  columns.forEach((column, i) => {
    if (column.trim() === "") {
      throw new CommandError(`${name}: malformed CSV header: column ${i + 1} has no name`);
    }
    if (seen.has(column)) {
      throw new CommandError(`${name}: malformed CSV header: column "${column}" appears twice`);
    }
    seen.add(column);
  });
  return peek;
}

/**
 * The objects of a JSON array, parsed one element at a time as the text streams in, so a file of any size is
 * never held whole. Elements must be objects (events).
 */
export async function* jsonArrayEvents(
  data: AsyncIterable<Buffer>,
  name: string,
): AsyncGenerator<Record<string, unknown>> {
  const decoder = new StringDecoder("utf8");
  const splitter = new JsonArraySplitter(name);
  for await (const chunk of data) yield* splitter.push(decoder.write(chunk));
  yield* splitter.push(decoder.end());
  splitter.end();
}

/** Cuts a JSON array's text into its elements' texts, across chunk boundaries. */
class JsonArraySplitter {
  private state: "before" | "between" | "element" | "after" = "before";
  /** True after an element, where only `,` or `]` may come. */
  private needComma = false;
  private partial = "";
  private depth = 0;
  private inString = false;
  private escaped = false;
  private count = 0;

  constructor(private readonly name: string) {}

  *push(text: string): Generator<Record<string, unknown>> {
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (this.state === "element") {
        const start = i;
        for (; i < n; i++) {
          const c = text.charCodeAt(i);
          if (this.inString) {
            if (this.escaped) this.escaped = false;
            else if (c === 0x5c) this.escaped = true;
            else if (c === 0x22) this.inString = false;
          } else if (c === 0x22) this.inString = true;
          else if (c === 0x7b || c === 0x5b) this.depth++;
          else if ((c === 0x7d || c === 0x5d) && --this.depth === 0) {
            i++;
            break;
          }
        }
        this.partial += text.slice(start, i);
        if (this.depth === 0) {
          yield this.parse(this.partial);
          this.partial = "";
          this.state = "between";
          this.needComma = true;
        }
        continue;
      }
      const c = text[i];
      if (c === " " || c === "\n" || c === "\r" || c === "\t" || c === "\uFEFF") {
        i++;
        continue;
      }
      if (this.state === "before") {
        if (c !== "[") this.fail(`expected a JSON array starting with [, found ${JSON.stringify(c)}`);
        this.state = "between";
      } else if (this.state === "after") {
        this.fail(`unexpected ${JSON.stringify(c)} after the array's closing ]`);
      } else if (c === "]") {
        if (!this.needComma && this.count > 0) this.fail(`a trailing comma after element ${this.count}`);
        this.state = "after";
      } else if (c === ",") {
        if (!this.needComma) this.fail(`unexpected , after element ${this.count}`);
        this.needComma = false;
      } else {
        if (this.needComma) this.fail(`expected , or ] after element ${this.count}`);
        if (c !== "{") this.fail(`element ${this.count + 1} is not an object (events must be objects)`);
        this.state = "element";
        continue;
      }
      i++;
    }
  }

  end(): void {
    if (this.state !== "after") this.fail("the JSON array is not closed with ]");
  }

  private parse(text: string): Record<string, unknown> {
    this.count++;
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      return this.fail(`element ${this.count} is not valid JSON: ${(err as Error).message}`);
    }
  }

  private fail(reason: string): never {
    throw new CommandError(`${this.name}: invalid JSON array: ${reason}`);
  }
}

/** One event of a file read whole by {@link eventObjects}, and where it is written. */
export interface FileEvent {
  event: Record<string, unknown>;
  /** `line 3` (NDJSON, CSV: the record's first line) or `element 3` (a JSON array), for messages. */
  where: string;
}

/**
 * The events of one input as objects, for a reader that needs them on this side (an alert test's `replay:`) rather
 * than sent as they are: the same decoding (gzip), format detection (flag, extension, first character), CSV header
 * check and JSON array splitting `ingest` uses, and the service's own reading of an NDJSON line (blank lines skip,
 * each other line one JSON object) and of a CSV cell (`csvCell`, typed as ingest stores it). A line that is not an
 * object, or longer than `maxLineChars`, throws a {@link CommandError} naming the input and the line.
 */
export async function* eventObjects(
  input: Input,
  given: InputFormat | undefined,
  options: {
    csvDelimiter?: string;
    maxLineChars: number;
    /** The CSV cell reader; the service's, passed in so this module does not import the emulator. */
    csvCell: (value: string, ctx: { header: boolean; quoting: boolean }) => unknown;
  },
): AsyncGenerator<FileEvent> {
  const detected = await detectFormat(
    await decoded(
      input.read(() => {}),
      input.name,
    ),
    input.name,
    given,
  );
  const delimiter = options.csvDelimiter ?? ",";
  if (detected.format === "json") {
    let n = 0;
    for await (const event of jsonArrayEvents(detected.data, input.name))
      yield { event, where: `element ${++n}` };
    return;
  }
  if (detected.format === "csv") {
    const data = await checkCsvHeader(detected.data, input.name, delimiter);
    const parser = parseCsvStream({
      columns: true,
      delimiter,
      skip_empty_lines: true,
      bom: true,
      info: true,
      max_record_size: options.maxLineChars,
      cast: (value, ctx) => options.csvCell(value, ctx),
    });
    const source = Readable.from(data);
    source.on("error", (err) => parser.destroy(err));
    source.pipe(parser);
    try {
      for await (const item of parser) {
        const { record, info } = item as { record: Record<string, unknown>; info: { lines: number } };
        for (const k of Object.keys(record)) if (record[k] === undefined) delete record[k];
        yield { event: record, where: `line ${info.lines}` };
      }
    } catch (err) {
      if (err instanceof CommandError) throw err;
      throw new CommandError(`${input.name}: invalid CSV: ${(err as Error).message}`);
    } finally {
      source.destroy();
    }
    return;
  }
  const decoder = new StringDecoder("utf8");
  let partial = "";
  let line = 0;
  const parseLine = (text: string): FileEvent | undefined => {
    line++;
    if (text.trim() === "") return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new CommandError(`${input.name}: line ${line}: invalid JSON: ${(err as Error).message}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      const got = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
      throw new CommandError(`${input.name}: line ${line}: must be a JSON object (an event), got ${got}`);
    }
    return { event: value as Record<string, unknown>, where: `line ${line}` };
  };
  const tooLong = () =>
    new CommandError(`${input.name}: line ${line + 1}: longer than ${options.maxLineChars} characters`);
  for await (const chunk of detected.data) {
    const text = partial + decoder.write(chunk);
    let from = 0;
    for (let eol = text.indexOf("\n"); eol !== -1; eol = text.indexOf("\n", from)) {
      if (eol - from > options.maxLineChars) throw tooLong();
      const e = parseLine(text.slice(from, eol));
      if (e) yield e;
      from = eol + 1;
    }
    partial = text.slice(from);
    if (partial.length > options.maxLineChars) throw tooLong();
  }
  partial += decoder.end();
  if (partial.length > options.maxLineChars) throw tooLong();
  const last = parseLine(partial);
  if (last) yield last;
}
