import { describe, expect, it } from 'vitest';

/** The setup file's stricter `toThrow` (test/helpers/strict-to-throw.ts), on what vitest alone lets pass. */
describe('toThrow with a message pattern', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
  ])('fails on a promise rejected with %s', async (_name, reason) => {
    const assertion = expect(Promise.reject(reason)).rejects.toThrow(/boom/);
    await expect(assertion).rejects.toBeInstanceOf(Error);
    await expect(expect(Promise.reject(reason)).rejects.toThrow('boom')).rejects.toMatchObject({ message: `expected an error matching boom, but ${String(reason)} was thrown` });
  });

  it('fails on a function that throws undefined, and calls the function once', () => {
    let calls = 0;
    const fails = (): never => {
      calls++;
      throw undefined;
    };
    expect(() => expect(fails).toThrow(/boom/)).toThrowError(expect.objectContaining({ message: 'expected an error matching /boom/, but undefined was thrown' }));
    expect(calls).toBe(1);
  });

  it('still passes on a matching error, and fails on another message, once per call', async () => {
    let calls = 0;
    const boom = (): never => {
      calls++;
      throw new Error('a boom here');
    };
    expect(boom).toThrow(/boom/);
    expect(boom).toThrowError('boom');
    expect(calls).toBe(2);
    await expect(Promise.reject(new Error('boom'))).rejects.toThrow(/boom/);
    expect(() => expect(boom).toThrow(/bang/)).toThrowError(expect.objectContaining({ message: expect.stringMatching(/bang/) }));
    await expect(expect(Promise.reject(new Error('boom'))).rejects.toThrow(/bang/)).rejects.toBeInstanceOf(Error);
  });

  it('leaves the negated form and error classes to vitest', () => {
    expect(() => undefined).not.toThrow(/boom/);
    expect(() => {
      throw new RangeError('x');
    }).toThrow(RangeError);
  });
});
