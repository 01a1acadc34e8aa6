/**
 * The percentile estimator of `percentile`, `percentiles_array` and their `…if` forms: a merging t-digest
 * (Dunning and Ertl, "Computing extremely accurate quantiles using t-digests", 2019), with the k1 scale function.
 *
 * Why an estimate: the reference says `percentile` "returns estimated results ... fast and light on resources even
 * on a large or high-cardinality dataset, but it doesn't provide precise results" (axiomhq/docs
 * apl/aggregation-function/percentile.mdx), so one group's memory stays bounded (at most about
 * {@link DEFAULT_COMPRESSION} centroids plus a buffer) however many rows it sees, as the service's does. Why not a
 * package: npm has no maintained t-digest (the `tdigest` package has had no release since 2021 and no types), and
 * the merging variant is short.
 *
 * Exactness where it is cheap: while a group has seen at most {@link EXACT_LIMIT} values nothing is merged, and the
 * answer is the exact nearest-rank percentile (the smallest value with at least p% of the values at or below it,
 * a value of the column, as the reference's "returns the value from the specified column" reads). Past that the
 * digest interpolates between centroids; its rank error is largest in the middle (about 1/compression of the rank)
 * and shrinks towards the tails, which are what p95/p99 ask for. test/emulator/apl-aggregations.test.ts measures it
 * against the exact value on known distributions.
 */

/** δ: the bound on centroids after a merge is about δ (k1 scale: δ/2 to δ). */
export const DEFAULT_COMPRESSION = 100;
/** Values kept unmerged: a group with at most this many answers exactly. */
export const EXACT_LIMIT = 1000;

/** A t-digest over finite numbers. `add` is O(1) amortised (a sort of the buffer every EXACT_LIMIT values). */
export class TDigest {
  private means: Float64Array;
  private weights: Float64Array;
  private centroids = 0;
  private readonly buffer = new Float64Array(EXACT_LIMIT);
  private buffered = 0;
  /** Whether any merge has happened (the digest is then an estimate). */
  private merged = false;
  private total = 0;
  private minValue = Infinity;
  private maxValue = -Infinity;

  constructor(private readonly compression = DEFAULT_COMPRESSION) {
    // k1 keeps at most about δ centroids after a merge; the merge reads the old centroids and the buffer together.
    this.means = new Float64Array(Math.ceil(compression) * 2 + 10);
    this.weights = new Float64Array(this.means.length);
  }

  /** Values added so far. */
  get count(): number {
    return this.total;
  }

  add(x: number): void {
    if (!Number.isFinite(x)) return;
    if (this.buffered === this.buffer.length) this.mergeBuffer();
    this.buffer[this.buffered++] = x;
    this.total++;
    if (x < this.minValue) this.minValue = x;
    if (x > this.maxValue) this.maxValue = x;
  }

  /** The p-th percentile (0..100) of the values added, or undefined when there are none. */
  percentile(p: number): number | undefined {
    if (this.total === 0) return undefined;
    if (!this.merged) {
      const sorted = this.buffer.slice(0, this.buffered).sort();
      // Nearest rank: the smallest value with at least p% of the values at or below it.
      const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
      return sorted[Math.min(rank, sorted.length) - 1];
    }
    this.mergeBuffer();
    return this.interpolate(p / 100);
  }

  /** The quantile q (0..1) from the centroids: linear between centroid centres, exact at min and max. */
  private interpolate(q: number): number {
    const n = this.centroids;
    const means = this.means;
    const weights = this.weights;
    if (q <= 0) return this.minValue;
    if (q >= 1) return this.maxValue;
    if (n === 1) return means[0];
    const target = q * this.total;
    // Below the first centroid's centre: between min and that centre.
    const firstHalf = weights[0] / 2;
    if (target < firstHalf) {
      return this.minValue + ((means[0] - this.minValue) * target) / firstHalf;
    }
    let cumulative = firstHalf;
    for (let i = 0; i < n - 1; i++) {
      const step = (weights[i] + weights[i + 1]) / 2;
      if (cumulative + step > target) {
        const t = (target - cumulative) / step;
        return means[i] + t * (means[i + 1] - means[i]);
      }
      cumulative += step;
    }
    const lastHalf = weights[n - 1] / 2;
    const t = Math.min(1, (target - cumulative) / lastHalf);
    return means[n - 1] + t * (this.maxValue - means[n - 1]);
  }

  /** k1(q) = δ/(2π) · asin(2q − 1): small centroids at the tails, large ones in the middle. */
  private scale(q: number): number {
    return (this.compression / (2 * Math.PI)) * Math.asin(2 * Math.min(1, Math.max(0, q)) - 1);
  }

  private scaleInverse(k: number): number {
    return (Math.sin((k * 2 * Math.PI) / this.compression) + 1) / 2;
  }

  /**
   * Merges the buffer into the centroids: the buffer is sorted (a typed-array sort) and walked together with the
   * centroids, which are already in order; each output centroid grows while its k-span stays within 1.
   */
  private mergeBuffer(): void {
    if (this.buffered === 0) return;
    this.merged = true;
    const points = this.buffer.subarray(0, this.buffered).sort();
    const oldMeans = this.means.slice(0, this.centroids);
    const oldWeights = this.weights.slice(0, this.centroids);
    const oldCount = this.centroids;
    const pointCount = this.buffered;
    this.buffered = 0;

    const total = this.total;
    let outCount = 0;
    let soFar = 0;
    let mean = 0;
    let weight = 0;
    let limit = total * this.scaleInverse(this.scale(0) + 1);
    let a = 0;
    let b = 0;
    while (a < oldCount || b < pointCount) {
      let m: number;
      let w: number;
      if (b >= pointCount || (a < oldCount && oldMeans[a] <= points[b])) {
        m = oldMeans[a];
        w = oldWeights[a++];
      } else {
        m = points[b++];
        w = 1;
      }
      if (weight === 0) {
        mean = m;
        weight = w;
      } else if (soFar + weight + w <= limit) {
        weight += w;
        mean += ((m - mean) * w) / weight;
      } else {
        soFar += weight;
        this.store(outCount++, mean, weight);
        limit = total * this.scaleInverse(this.scale(soFar / total) + 1);
        mean = m;
        weight = w;
      }
    }
    this.store(outCount++, mean, weight);
    this.centroids = outCount;
  }

  private store(at: number, mean: number, weight: number): void {
    if (at >= this.means.length) {
      const grown = new Float64Array(this.means.length * 2);
      grown.set(this.means);
      this.means = grown;
      const grownWeights = new Float64Array(this.weights.length * 2);
      grownWeights.set(this.weights);
      this.weights = grownWeights;
    }
    this.means[at] = mean;
    this.weights[at] = weight;
  }
}
