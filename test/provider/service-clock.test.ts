/**
 * The creation times the service stamps, as an uncertain create reads them (service-clock.ts): the instant and
 * its precision, which the minute's guard beside the baseline listing compares with the POST's start.
 */
import { readStamp } from "../../provider/resources/service-clock";

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
