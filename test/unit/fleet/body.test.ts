import { describe, expect, test } from 'vitest';
import { bodyFor } from '../../../src/fleet/body.js';
import { MissingVariableError } from '../../../src/fleet/errors.js';
import type { Publication } from '../../../src/state/fleet.js';

const publication = (body: Publication['body'], templates: Publication['templates']) => ({ name: 'support-agent', body, templates });

describe('bodyFor', () => {
  test('no template: the published body with the user id in place of the placeholder, the publication left as it was', () => {
    const p = publication({ user_id: '<end-user>', toolkits: { enable: ['gmail'] } }, []);
    expect(bodyFor(p, 'alice', {})).toStrictEqual({ user_id: 'alice', toolkits: { enable: ['gmail'] } });
    expect(p.body['user_id']).toBe('<end-user>');
  });

  test('each template is filled from env at its pointer, in objects and arrays; text around a variable is kept; other strings are not touched', () => {
    const p = publication(
      {
        user_id: '<end-user>',
        manage_connections: { callback_url: 'https://hooks.example.com/cb?token=${HOOK_TOKEN}' },
        headers: ['x', '${SECOND}', '${NOT_A_TEMPLATE}'],
        'a/b': { '~k': '${ESCAPED}' },
      },
      [
        { pointer: '/manage_connections/callback_url', parts: ['https://hooks.example.com/cb?token=', { variable: 'HOOK_TOKEN' }] },
        { pointer: '/headers/1', parts: [{ variable: 'SECOND' }, '!'] },
        { pointer: '/a~1b/~0k', parts: [{ variable: 'ESCAPED' }] },
      ],
    );
    expect(bodyFor(p, 'bob', { HOOK_TOKEN: 's3cret', SECOND: 'two', ESCAPED: 'e', NOT_A_TEMPLATE: 'no' })).toStrictEqual({
      user_id: 'bob',
      manage_connections: { callback_url: 'https://hooks.example.com/cb?token=s3cret' },
      headers: ['x', 'two!', '${NOT_A_TEMPLATE}'],
      'a/b': { '~k': 'e' },
    });
  });

  test('a variable that is not there is a MissingVariableError naming the manifest and the variable', () => {
    const p = publication({ user_id: '<end-user>', url: '${A}${B}' }, [{ pointer: '/url', parts: [{ variable: 'A' }, { variable: 'B' }] }]);
    const e = (() => {
      try {
        return bodyFor(p, 'carol', { A: 'x' });
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(MissingVariableError);
    expect([(e as MissingVariableError).manifest, (e as MissingVariableError).variable]).toEqual(['support-agent', 'B']);
  });

  test('a template whose pointer leads to no string changes nothing there', () => {
    const p = publication({ user_id: '<end-user>', n: 3 }, [{ pointer: '/n', parts: [{ variable: 'A' }] }]);
    expect(bodyFor(p, 'dan', {})).toStrictEqual({ user_id: 'dan', n: 3 });
  });
});
