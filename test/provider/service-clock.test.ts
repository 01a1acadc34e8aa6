/**
 * The service's clock as uncertain creates learn it (service-clock.ts): each answered create brackets the
 * offset between the service's clock and ours, and a creation time then tells an object made before a POST from
 * one made by it, to within the stamp's precision.
 */
import { ObservabilityClient } from "../../provider/client";
import { mayBeCreatedSince, observeCreation, readStamp } from "../../provider/resources/service-clock";

const client = new ObservabilityClient({ url: "http://127.0.0.1:9", token: "xaat-test" });
afterAll(() => client.close());

describe("readStamp", () => {
  it.each([
    ["2024-01-02T03:04:05Z", Date.UTC(2024, 0, 2, 3, 4, 5), 1000],
    ["2024-01-02T03:04:05.5Z", Date.UTC(2024, 0, 2, 3, 4, 5, 500), 100],
    ["2024-01-02T03:04:05.123Z", Date.UTC(2024, 0, 2, 3, 4, 5, 123), 1],
    // The nine digits datasets carry (axiom-go datasets_test.go) keep the millisecond, truncated.
    ["2024-01-02T03:04:05.123456789Z", Date.UTC(2024, 0, 2, 3, 4, 5, 123), 1],
    ["2024-01-02T05:04:05+02:00", Date.UTC(2024, 0, 2, 3, 4, 5), 1000],
  ])("%s is %d ms, to %d ms", (text, ms, precisionMs) => {
    expect(readStamp(text)).toEqual({ ms, precisionMs });
  });

  it.each([[undefined], [""], ["yesterday"], [1704164645000]])("%p is not a stamp", (value) => {
    expect(readStamp(value)).toBeUndefined();
  });
});

describe("the offset learnt from answered creates", () => {
  const T = Date.UTC(2030, 0, 1, 0, 0, 10);
  const stamp = (ms: number, precisionMs = 1000) => ({ ms, precisionMs });

  it("knows nothing before the first answer of the kind", () => {
    expect(mayBeCreatedSince(client, "Unseen", stamp(T), T)).toBeUndefined();
  });

  it("with the service 5 s ahead: an object stamped before the POST is ruled out, one in its second is not", () => {
    // Sent at T, answered at T + 40 ms; the service stamped T + 5 s (to the second).
    observeCreation(client, "Ahead", stamp(T + 5000), T, T + 40);
    // A POST starting at T + 3 s reaches the service no earlier than T + 8 s by its clock, minus the bracket.
    expect(mayBeCreatedSince(client, "Ahead", stamp(T + 6000), T + 3000)).toBe(false);
    expect(mayBeCreatedSince(client, "Ahead", stamp(T + 7000), T + 3000)).toBe(true);
    expect(mayBeCreatedSince(client, "Ahead", stamp(T + 9000), T + 3000)).toBe(true);
  });

  it("answers narrow the bracket: two stamps in different halves of a second pin the offset closer", () => {
    observeCreation(client, "Narrow", stamp(T), T - 600, T - 550);
    // Bracket now: low = T − (T − 550) = 550, high = T + 1000 − (T − 600) = 1600.
    expect(mayBeCreatedSince(client, "Narrow", stamp(T + 1000, 1), T + 440)).toBe(true);
    observeCreation(client, "Narrow", stamp(T + 1000), T + 100, T + 150);
    // Second answer: low = 850, high = 1900 → bracket [850, 1600]. An object stamped 1 ms before T + 440 + 850:
    expect(mayBeCreatedSince(client, "Narrow", stamp(T + 1289, 1), T + 440)).toBe(false);
    expect(mayBeCreatedSince(client, "Narrow", stamp(T + 1290, 1), T + 440)).toBe(true);
  });

  it("an answer that contradicts the bracket (a clock stepped) starts it again from that answer", () => {
    observeCreation(client, "Stepped", stamp(T), T, T + 10);
    // The service's clock stepped back an hour: the new answer cannot fit the old bracket.
    observeCreation(client, "Stepped", stamp(T - 3_600_000 + 20_000), T + 20_000, T + 20_010);
    expect(mayBeCreatedSince(client, "Stepped", stamp(T - 3_600_000 + 30_000), T + 30_000)).toBe(true);
    expect(mayBeCreatedSince(client, "Stepped", stamp(T - 3_600_000 + 28_000), T + 30_000)).toBe(false);
  });

  it("is kept per client and per kind", () => {
    observeCreation(client, "PerKind", stamp(T), T, T + 10);
    expect(mayBeCreatedSince(client, "OtherKind", stamp(T), T)).toBeUndefined();
    const other = new ObservabilityClient({ url: "http://127.0.0.1:9", token: "xaat-other" });
    expect(mayBeCreatedSince(other, "PerKind", stamp(T), T)).toBeUndefined();
    void other.close();
  });
});
