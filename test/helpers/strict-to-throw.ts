/**
 * vitest 4's `toThrow(/re/)` and `toThrow('text')` pass when what was thrown, or what a promise
 * rejected with, is `undefined` or `null`: chai compares the message of a truthy error only. A
 * function that fails with nothing would pass every such assertion; installed from the setup
 * file, this makes those assertions fail instead (`test/unit/helpers/strict-to-throw.test.ts`).
 */
import { chai } from 'vitest';

type Method = (this: Chai.AssertionStatic, ...args: unknown[]) => unknown;

export function installStrictToThrow(): void {
  chai.use((c, utils) => {
    for (const name of ['toThrow', 'toThrowError']) {
      utils.overwriteMethod(c.Assertion.prototype, name, (original: Method) =>
        function strictToThrow(this: Chai.AssertionStatic, ...args: unknown[]): unknown {
          const expected = args[0];
          if ((typeof expected === 'string' || expected instanceof RegExp) && utils.flag(this, 'negate') !== true) {
            const subject: unknown = utils.flag(this, 'object');
            let threw = false;
            let thrown: unknown;
            if (utils.flag(this, 'promise') === 'rejects') {
              threw = true;
              thrown = subject;
            } else if (typeof subject === 'function') {
              try {
                (subject as () => unknown)();
              } catch (err) {
                threw = true;
                thrown = err;
              }
              // The original calls the function again: it gets this call's outcome instead.
              utils.flag(this, 'object', () => {
                if (threw) throw thrown;
              });
            }
            if (threw && (thrown === undefined || thrown === null)) {
              throw new c.AssertionError(`expected an error matching ${String(expected)}, but ${String(thrown)} was thrown`);
            }
          }
          return original.apply(this, args);
        },
      );
    }
  });
}
