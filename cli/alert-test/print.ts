/**
 * The comparison as text, promtool's way: one row per expectation, expected against got, marked ✓ or ✗, and under a
 * failed row what happened instead; then the notifications nobody expected.
 */
import type { RunWarning } from "./check";
import { describeAlert, formatOffset, type Comparison, type ExpectationResult } from "./compare";

/** When an expectation looks, in words: `at +30m`, `by +45m`, `+10m..+45m`, `after +10m`, `any time`. */
export function describeWhen(r: ExpectationResult): string {
  const e = r.expectation;
  if (e.at !== undefined) return `at ${formatOffset(e.at)}`;
  if (e.after !== undefined && e.by !== undefined) return `${formatOffset(e.after)}..${formatOffset(e.by)}`;
  if (e.by !== undefined) return `by ${formatOffset(e.by)}`;
  if (e.after !== undefined) return `after ${formatOffset(e.after)}`;
  return "any time";
}

/** An expectation's group as the tables write it (`service=checkout` or `a,b`), `-` without one. */
export function groupText(group: ExpectationResult["expectation"]["group"]): string {
  if (group === undefined) return "-";
  if (Array.isArray(group)) return group.map(String).join(",");
  return Object.entries(group)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(",");
}

/** The cells of a row: the table's columns after the mark. */
function rowCells(r: ExpectationResult, startMs: number): string[] {
  const e = r.expectation;
  const times = r.got.map((g) => formatOffset(g.timeMs - startMs));
  return [
    String(e.line ?? "?"),
    e.monitorKey,
    e.action ?? "Open",
    groupText(e.group),
    e.notifierKey ?? "(any)",
    describeWhen(r),
    r.wanted,
    String(r.got.length),
    times.length === 0 ? "-" : times.length > 4 ? `${times.slice(0, 4).join(",")},…` : times.join(","),
  ];
}

/** A row in one line that says its columns: `✗ line 33: errors Open, group -, to slack, +10m..+12m: want 1, got 0 (sent at -)`. */
export function rowLine(r: ExpectationResult, startMs: number): string {
  const [line, monitor, action, group, notifier, when, want, got, sent] = rowCells(r, startMs);
  return `${r.ok ? "✓" : "✗"} line ${line}: ${monitor} ${action}, group ${group}, to ${notifier}, ${when}: want ${want}, got ${got} (sent at ${sent})`;
}

/** Left-aligned columns, two spaces apart. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? "")].length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell + " ".repeat(widths[c] - [...cell].length)))
      .join("  ")
      .trimEnd(),
  );
}

/** `1 thing`, `2 things`. */
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A warning's one line: its place, when it has one, then its words. */
export function formatWarning(w: RunWarning): string {
  const where =
    w.file === undefined
      ? ""
      : `${w.file}${w.line === undefined ? "" : `:${w.line}${w.column === undefined ? "" : `:${w.column}`}`}: `;
  return `${where}${w.message}`;
}

/** The lines printed for one test file; `warnings` are the run's (stand-ins, bin_auto, what `allow:` let pass). */
export function formatComparison(
  file: string,
  comparison: Comparison,
  startMs: number,
  warnings: readonly RunWarning[] = [],
): string[] {
  const { rows, unexpected, failures } = comparison;
  const failed = rows.filter((r) => !r.ok).length;
  const queries = failures.filter((f) => f.kind === "query-failed").length;
  const sends = failures.length - queries;
  const lines = [
    `${file}: ${comparison.ok ? "PASS" : "FAIL"}, ${rows.length - failed} of ${rows.length} expectations met` +
      (unexpected.length
        ? `; ${count(unexpected.length, "unexpected notification", "unexpected notifications")}`
        : "") +
      (queries ? `; ${count(queries, "monitor whose runs failed", "monitors whose runs failed")}` : "") +
      (sends ? `; ${count(sends, "notifier whose sends failed", "notifiers whose sends failed")}` : "") +
      (warnings.length ? `; ${count(warnings.length, "warning", "warnings")}` : ""),
  ];
  const table: string[][] = [
    ["", "LINE", "MONITOR", "ACTION", "GROUP", "NOTIFIER", "WHEN", "WANT", "GOT", "SENT AT"],
  ];
  const details = new Map<number, string[]>();
  rows.forEach((r, i) => {
    table.push([r.ok ? "✓" : "✗", ...rowCells(r, startMs)]);
    if (r.hints.length > 0) details.set(i + 1, r.hints);
  });
  // Without expectations (a file that only lists what happens) there is no table to head.
  const laidOut = rows.length > 0 ? columns(table) : [];
  laidOut.forEach((line, i) => {
    lines.push(`  ${line}`);
    for (const hint of details.get(i) ?? []) lines.push(`        ${hint}`);
  });
  if (unexpected.length > 0) {
    lines.push(comparison.ok ? "  unexpected (ignored):" : "  ✗ unexpected, no expectation describes them:");
    for (const a of unexpected) lines.push(`        ${describeAlert(a, startMs)}`);
  }
  if (failures.length > 0) {
    lines.push(
      "  ✗ failed while it ran (a test passes only if what it tests runs; allow: in the file lets it pass):",
    );
    for (const f of failures) lines.push(`        ${f.message}`);
  }
  for (const w of warnings) lines.push(`  ! warning: ${formatWarning(w)}`);
  return lines;
}
