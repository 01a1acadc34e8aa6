/**
 * The expected band of an anomaly monitor. The service does not publish its algorithm (DOCS anomaly-monitors:
 * axiomhq/docs monitor-data/anomaly-monitors.mdx says only that it compares with the same time of earlier days,
 * `compareDays` of them, and that `tolerance` widens the band), so this band is the emulator's own choice,
 * documented in docs/emulator.md ("Monitors that run"):
 *
 * - The baseline: every numeric value of the same query over the same window shifted back by 1, 2, …
 *   `compareDays` days (one day when `compareDays` is 0), per group.
 * - The band: mean ± w, where w = (1 + tolerance / 100) × max(3 × standard deviation, 10% of |mean|). Three
 *   standard deviations is the usual "outside normal variation" line; the 10% floor keeps a baseline that never
 *   varied (a steady rate) from calling the smallest wiggle an anomaly. `tolerance` (OA: a percentage, at most
 *   100) widens it up to twice.
 * - A value is anomalous above the band (`Above`, `AboveOrEqual`: v > mean + w), below it (`Below`,
 *   `BelowOrEqual`: v < mean − w) or either (`AboveOrBelow`). A window with no baseline value is never anomalous.
 */

/** The band a value is judged against. */
export interface AnomalyBand {
  mean: number;
  low: number;
  high: number;
  /** How many baseline values it is made of. */
  samples: number;
}

/** The band of a baseline, or undefined when the baseline is empty. */
export function bandOf(baseline: readonly number[], tolerancePercent: number): AnomalyBand | undefined {
  if (baseline.length === 0) return undefined;
  let sum = 0;
  for (const v of baseline) sum += v;
  const mean = sum / baseline.length;
  let squares = 0;
  for (const v of baseline) squares += (v - mean) ** 2;
  const stdev = Math.sqrt(squares / baseline.length);
  const width =
    (1 + Math.min(100, Math.max(0, tolerancePercent)) / 100) * Math.max(3 * stdev, 0.1 * Math.abs(mean));
  return { mean, low: mean - width, high: mean + width, samples: baseline.length };
}

/** The direction an operator watches: `up`, `down` or `both`. */
export function anomalyDirection(operator: string): "up" | "down" | "both" {
  if (operator === "Above" || operator === "AboveOrEqual") return "up";
  if (operator === "Below" || operator === "BelowOrEqual") return "down";
  return "both";
}

/** Whether `v` lies outside the band in the watched direction. */
export function isAnomalous(v: number, band: AnomalyBand, direction: "up" | "down" | "both"): boolean {
  return (direction !== "down" && v > band.high) || (direction !== "up" && v < band.low);
}

/**
 * The value of a window to report: the one furthest outside the band in the watched direction, else the one
 * furthest from the mean; null when there is none.
 */
export function mostAnomalous(
  values: readonly number[],
  band: AnomalyBand | undefined,
  direction: "up" | "down" | "both",
): number | null {
  if (values.length === 0) return null;
  if (!band) return values[values.length - 1];
  let best = values[0];
  let bestScore = -Infinity;
  for (const v of values) {
    const score =
      direction === "up" ? v - band.high : direction === "down" ? band.low - v : Math.abs(v - band.mean);
    if (score > bestScore) {
      best = v;
      bestScore = score;
    }
  }
  return best;
}
