/**
 * Fault injection for testing retry paths against a misbehaving service.
 *
 * Spec string (`--faults`): comma-separated `kind=rate` pairs, plus `seed=N` and `latency=rate:ms`, e.g.
 *   `429=0.05,500=0.02,502=0.02,503=0.02,drop=0.01,latency=0.1:50,seed=42`
 * Rates are per-request probabilities in [0, 1], drawn from a PRNG seeded by `seed` (default 1), so one seed
 * always gives the same sequence of faults for the same sequence of requests.
 *
 * Kinds, and whether the request takes effect:
 * - `429`, `500`, `502`, `503`, `drop`: decided BEFORE the request is processed; a faulted request has no
 *   effect at all (so a client may safely retry a POST that got one of them). `429` carries `Retry-After: 1`;
 *   `drop` destroys the socket without any response.
 * - `500after`: the request IS processed, then answered with 500 instead of its result ("maybe processed").
 * - `latency=rate:ms`: delays the request by `ms` milliseconds before it is handled; combines with the others.
 */

/** Kinds that replace the response; all but `500after` are decided before the request is processed. */
export const FAULT_KINDS = ["429", "500", "502", "503", "drop", "500after"] as const;
/** A fault that replaces the response. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Parsed fault options. */
export interface FaultOptions {
  /** Probability of each response-replacing kind. */
  rates?: Partial<Record<FaultKind, number>>;
  /** Probability and size of added latency. */
  latency?: { rate: number; ms: number };
  /** PRNG seed; default 1. */
  seed?: number;
}

/** The decision for one request. */
export interface FaultDecision {
  kind?: FaultKind;
  latencyMs: number;
}

function parseRate(part: string, text: string): number {
  const rate = Number(text);
  if (text.trim() === "" || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new Error(`invalid fault spec part "${part}": rate must be a number between 0 and 1`);
  }
  return rate;
}

/** Parses a `--faults` spec string; an invalid part is an error that names it. */
export function parseFaultSpec(spec: string): FaultOptions {
  const out: FaultOptions = { rates: {} };
  for (const raw of spec.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`invalid fault spec part "${part}": expected kind=rate`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "seed") {
      if (!/^-?\d+$/.test(value))
        throw new Error(`invalid fault spec part "${part}": seed must be an integer`);
      out.seed = Number(value);
    } else if (key === "latency") {
      const m = /^([^:]+):(\d+)$/.exec(value);
      if (!m) throw new Error(`invalid fault spec part "${part}": expected latency=rate:ms`);
      out.latency = { rate: parseRate(part, m[1]), ms: Number(m[2]) };
    } else if ((FAULT_KINDS as readonly string[]).includes(key)) {
      out.rates![key as FaultKind] = parseRate(part, value);
    } else {
      throw new Error(
        `invalid fault spec part "${part}": unknown kind "${key}" (known: ${FAULT_KINDS.join(", ")}, latency, seed)`,
      );
    }
  }
  const total = Object.values(out.rates!).reduce((a, b) => a + (b ?? 0), 0);
  if (total > 1) throw new Error(`invalid fault spec "${spec}": the rates add up to more than 1`);
  return out;
}

/** Deterministic fault source: mulberry32 over the seed, two draws per request. */
export class FaultInjector {
  private state: number;
  private readonly rates: [FaultKind, number][];
  private readonly latency?: { rate: number; ms: number };

  constructor(options: FaultOptions) {
    this.state = (options.seed ?? 1) >>> 0;
    this.rates = FAULT_KINDS.filter((k) => (options.rates?.[k] ?? 0) > 0).map((k) => [k, options.rates![k]!]);
    this.latency = options.latency;
  }

  private next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Decides the fate of the next request. */
  decide(): FaultDecision {
    const r = this.next();
    const l = this.next();
    let kind: FaultKind | undefined;
    let acc = 0;
    for (const [k, rate] of this.rates) {
      acc += rate;
      if (r < acc) {
        kind = k;
        break;
      }
    }
    const latencyMs = this.latency && l < this.latency.rate ? this.latency.ms : 0;
    return { kind, latencyMs };
  }
}
