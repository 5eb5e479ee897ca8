import { describe, expect, it } from 'vitest';
import { yaml11Reading } from '../../../src/manifest/yaml11.js';

describe('yaml11Reading', () => {
  it.each([
    ['yes', 'the boolean true'],
    ['Yes', 'the boolean true'],
    ['NO', 'the boolean false'],
    ['on', 'the boolean true'],
    ['Off', 'the boolean false'],
    ['y', 'the boolean true'],
    ['n', 'the boolean false'],
    ['0755', 'the number 493'],
    ['1:20', 'the number 80'],
    ['1_000', 'the number 1000'],
    ['0b101', 'the number 5'],
    ['2001-12-14', 'the timestamp 2001-12-14T00:00:00.000Z'],
  ])('plain %s reads as %s in YAML 1.1', (source, reading) => {
    expect(yaml11Reading({ source, style: 'plain' })).toBe(reading);
  });

  it.each(['true', 'false', 'null', '~', '42', '0o17', '0x1F', '1.5', 'gmail', 'Europe/Paris', 'yesterday', 'nope', ''])(
    'plain %j reads the same in both versions',
    (source) => {
      expect(yaml11Reading({ source, style: 'plain' })).toBeUndefined();
    },
  );

  it.each([
    ['"yes"', 'quoted'],
    ["'on'", 'quoted'],
    ['|\n  yes\n', 'block'],
  ] as const)('%s (%s) is never ambiguous', (source, style) => {
    expect(yaml11Reading({ source, style })).toBeUndefined();
  });
});
