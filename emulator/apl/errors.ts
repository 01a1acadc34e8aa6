/** The one error type the APL front end throws: it carries a 1-based position for the 400's `detail`. */

/** Kind of APL failure, reported as `detail.errorType`. */
export type AplErrorType = "syntax" | "semantic";

/** A malformed or unsupported query, pointing at the offending token. */
export class AplError extends Error {
  override readonly name = "AplError";
  constructor(
    message: string,
    /** 1-based line of the offending token. */
    readonly line: number,
    /** 1-based column of the offending token. */
    readonly column: number,
    readonly errorType: AplErrorType = "syntax",
  ) {
    super(message);
  }
}

/** 1-based line and column of a 0-based offset in `source`. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** The message of every refusal: the construct, and why the emulator cannot run it. */
export function unsupported(construct: string, why: string): string {
  return `not supported by the emulator: ${construct} (${why})`;
}
