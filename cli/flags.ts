/** Parsers of flag values shared by the commands: a bad value is a commander usage error (exit 2). */
import { InvalidArgumentError } from "commander";

/** A parser for an integer flag from `min` to `max`, naming the flag when the value is not one. */
export function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}
