/**
 * Default output column names of aggregations, derived from the arguments' source texts as the service names them:
 * `count()` -> `count_`, `avg(duration)` -> `avg_duration`, `avg(['geo.city'])` -> `avg_geo_city` (the emulator's
 * names before this registry, which test/emulator/apl-parser.test.ts fixes), `percentile(duration, 95)` ->
 * `percentile_duration_95`.
 */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Words that read like identifiers but are not columns. */
const NOT_COLUMNS = new Set([
  "true",
  "false",
  "null",
  "and",
  "or",
  "not",
  "in",
  "has",
  "contains",
  "startswith",
]);

/** A column path as a name part: dots and other punctuation become underscores. */
function sanitize(path: string): string {
  return path.replace(/[^\w$]/g, "_");
}

/**
 * The one column an expression's text reads (a field path, a bracketed `['a.b']`, or a single column under function
 * calls and operators: `toint(status)` reads `status`), or undefined when it reads none or several. Function names
 * (an identifier before `(`), string and number literals and keywords are not columns.
 */
export function singleColumn(text: string): string | undefined {
  const found = new Set<string>();
  let i = 0;
  const s = text;
  while (i < s.length) {
    const c = s[i];
    if (c === "'" || c === '"') {
      // A string literal (or the quoted part of ['a.b'], handled below) is skipped.
      const end = s.indexOf(c, i + 1);
      i = end < 0 ? s.length : end + 1;
      continue;
    }
    if (c === "[") {
      const m = /^\[\s*(['"])(.*?)\1\s*\]/.exec(s.slice(i));
      if (m) {
        let path = m[2];
        i += m[0].length;
        // Dots after a bracketed name continue the path: ['a.b'].c
        const rest = /^(\.[A-Za-z_$][\w$]*)+/.exec(s.slice(i));
        if (rest) {
          path += rest[0];
          i += rest[0].length;
        }
        found.add(path);
        continue;
      }
      i++;
      continue;
    }
    if (/[0-9]/.test(c)) {
      // Numbers and timespan/size literals (1h, 500ms, 1e3): a digit run with its unit letters.
      const m = /^[0-9][\w.]*/.exec(s.slice(i));
      i += m ? m[0].length : 1;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*/.exec(s.slice(i))!;
      i += m[0].length;
      let j = i;
      while (j < s.length && /\s/.test(s[j])) j++;
      if (s[j] === "(") continue;
      if (NOT_COLUMNS.has(m[0].toLowerCase())) continue;
      let path = m[0];
      // A bracketed name right after a path continues it: a.b['c.d'] is the field a.b.c.d.
      for (;;) {
        const more = /^\[\s*(['"])(.*?)\1\s*\]((\.[A-Za-z_$][\w$]*)*)/.exec(s.slice(i));
        if (!more) break;
        path += `.${more[2]}${more[3]}`;
        i += more[0].length;
      }
      found.add(path);
      continue;
    }
    i++;
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The name part of an argument: its one column, underscored, or "" (so `fn_` as before). */
export function argNamePart(argText: string | undefined): string {
  if (argText === undefined) return "";
  const column = singleColumn(argText.trim());
  return column === undefined ? "" : sanitize(column);
}

/** A constant as a name part: `95` -> `95`, `99.9` -> `99_9`. */
export function constantNamePart(v: unknown): string {
  return sanitize(String(v));
}

/**
 * Splits `name = expr` (arg_max's and arg_min's named arguments, `arg_max(longest=duration, ...)`) into the
 * name and the expression; `==` is a comparison, not a name.
 */
export function splitNamedArg(argText: string): { name?: string; expr: string } {
  const m = /^\s*([A-Za-z_$][\w$]*)\s*=(?!=)\s*([\s\S]*)$/.exec(argText);
  if (m && IDENTIFIER.test(m[1])) return { name: m[1], expr: m[2] };
  return { expr: argText };
}

/** Makes names unique as the service does for repeated columns: the second `x` becomes `x1`, then `x2`. */
export function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((n) => {
    let candidate = n;
    for (let k = 1; seen.has(candidate); k++) candidate = `${n}${k}`;
    seen.add(candidate);
    return candidate;
  });
}
