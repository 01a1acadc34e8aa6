/** The proleptic Gregorian calendar in UTC, as every parser of the time module checks its fields. */

/**
 * Seconds since the Unix epoch of a proleptic Gregorian UTC wall time, or undefined when a field is out of
 * range (month 13, 30 February, hour 24, minute 60, second 60).
 */
export function utcSeconds(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  // Built in the leap year 2000, then moved to `year`: Date.UTC reads years below 100 as 19xx, and a 29
  // February the target year lacks then rolls into March, which the check below refuses.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.getTime() / 1000;
}
