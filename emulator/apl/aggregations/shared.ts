/** Helpers the aggregation definitions share: null and identity of values, constants' checks, numeric input. */
import { DateTime, Timespan, toOutput } from "../values";
import { AggregationArgumentError } from "./contract";
import { argNamePart } from "./naming";

/** Null and missing values: the aggregations skip them (count(x) counts the others). */
export function isNullish(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/**
 * The key of a value in the sets and maps of dcount, topk, make_set and spotlight: the value itself when it is a
 * string, number or boolean (a Map tells 1 from "1" and puts 0 with -0 and NaN with NaN by itself), otherwise a
 * string tagged with a NUL, which no ordinary text starts with (a text that does is tagged too, so nothing
 * collides). Unlike {@link valueKey} it builds no string for the common values: about 100 ns a row less.
 */
export function distinctKey(v: unknown): string | number | boolean {
  switch (typeof v) {
    case "string":
      return v.charCodeAt(0) === 0 ? `\u0000s${v}` : v;
    case "number":
    case "boolean":
      return v;
    default:
      return `\u0000${valueKey(v)}`;
  }
}

/**
 * A key that tells values apart by type and value, for distinct counting and sets of dynamic values: `1` and `"1"`
 * are different values, two datetimes at the same instant are one.
 */
export function valueKey(v: unknown): string {
  if (isNullish(v)) return "n";
  if (v instanceof DateTime) return `d${v.ns}`;
  if (v instanceof Timespan) return `t${v.ns}`;
  switch (typeof v) {
    case "number":
      return `#${v}`;
    case "string":
      return `s${v}`;
    case "boolean":
      return v ? "b1" : "b0";
    case "bigint":
      return `#${v}`;
    default:
      // Arrays and bags by their JSON; datetimes and timespans inside them by their toJSON (text, nanoseconds).
      return `j${JSON.stringify(v)}`;
  }
}

/** `fn_arg` from the first argument, or the given name. */
export function namedAfterFirstArg(fn: string) {
  return (given: string | undefined, argTexts: readonly string[]): string[] => [
    given ?? `${fn}_${argNamePart(argTexts[0])}`,
  ];
}

/** A positive integer constant (topk's k, histogram's bins, make_list's max size). */
export function positiveInt(v: unknown, fn: string, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    throw new AggregationArgumentError(
      `${fn}() takes ${what} as a positive integer constant, got ${describe(v)}`,
    );
  }
  return v;
}

/** A percentile constant, 0 to 100. */
export function percentileValue(v: unknown, fn: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 100) {
    throw new AggregationArgumentError(`${fn}() takes percentiles between 0 and 100, got ${describe(v)}`);
  }
  return v;
}

/** A constant as an error message shows it: JSON, or "nothing" for an argument left out. */
export function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  return JSON.stringify(toOutput(v)) ?? String(v);
}

/**
 * Running numeric input: numbers, or timespans (kept as nanoseconds and given back as timespans when every value
 * was one). Mixed numbers and timespans add up as numbers of nanoseconds. Where datetimes make sense (percentiles,
 * histograms: `ordered`), datetimes are read as nanoseconds after the first one seen, so they keep their precision
 * in a double, and are given back as datetimes; a group mixing datetimes with numbers keeps the kind it saw first.
 */
export class NumericInput {
  numbers = 0;
  timespans = 0;
  datetimes = 0;
  private origin = 0n;

  constructor(private readonly ordered = false) {}

  /** The value as a number (timespans in ns), or undefined for a value numeric aggregations skip. */
  read(v: unknown): number | undefined {
    if (typeof v === "number") {
      if (Number.isNaN(v) || this.datetimes > 0) return undefined;
      this.numbers++;
      return v;
    }
    if (v instanceof Timespan) {
      if (this.datetimes > 0) return undefined;
      this.timespans++;
      return Number(v.ns);
    }
    if (v instanceof DateTime) {
      if (!this.ordered || this.numbers > 0 || this.timespans > 0) return undefined;
      if (this.datetimes++ === 0) this.origin = v.ns;
      return Number(v.ns - this.origin);
    }
    if (typeof v === "bigint") {
      if (this.datetimes > 0) return undefined;
      this.numbers++;
      return Number(v);
    }
    return undefined;
  }

  /** A number in the input's unit: a timespan or datetime when the inputs were all of that kind. */
  out(x: number): number | Timespan | DateTime {
    if (this.datetimes > 0) return new DateTime(this.origin + BigInt(Math.round(x)));
    return this.timespans > 0 && this.numbers === 0 ? new Timespan(BigInt(Math.round(x))) : x;
  }
}
