// Flag parsers shared by command modules. Each refusal says the allowed range, so the fix is in the message.
import { InvalidArgumentError } from "commander";

/** A repeatable flag: `--check a --check b` gives ["a", "b"] (and no flag, undefined, unless given a default). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole number in [min, max]; `unit` names what it counts (seconds), when it counts something. */
export function wholeNumberIn(min: number, max: number, unit?: string) {
  const range = unit ? `a whole number of ${unit} from ${min} to ${max}` : `${min} to ${max}`;
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`must be ${range}`);
    }
    return number;
  };
}

/** A number greater than 0 and at most `max`, e.g. minutes to wait; fractions allowed. */
export function positiveNumberUpTo(max: number, unit: string, example: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === "" || !Number.isFinite(number) || number <= 0 || number > max) {
      throw new InvalidArgumentError(
        `must be a number of ${unit} greater than 0 and at most ${max}, e.g. ${example}`,
      );
    }
    return number;
  };
}
