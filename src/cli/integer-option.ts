import { InvalidArgumentError } from 'commander';
import { wholeNumber } from '../util/whole-number.js';

/**
 * A commander argument parser for a whole-number option from `min` to `max`; anything else is
 * refused with "expected <what>", which commander prefixes with the option's name.
 */
export function integerOption(min: number, max: number, what: string): (value: string) => number {
  return (value) => {
    const n = wholeNumber(value, min, max);
    if (n === undefined) throw new InvalidArgumentError(`expected ${what}`);
    return n;
  };
}
