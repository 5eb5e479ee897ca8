import { describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../src/wire/operations.js';
import { renderSearch } from '../../../src/report/operate/search.js';
import { createStyle } from '../../../src/report/ansi.js';

const result = {
  results: [],
  toolkit_connection_statuses: [
    { toolkit: 'github', has_active_connection: false, status_message: 'Not connected: use COMPOSIO_MANAGE_CONNECTIONS' },
    { toolkit: 'gmail', has_active_connection: true, status_message: 'Connected' },
    { toolkit: 'hackernews', has_active_connection: false, status_message: 'No authentication needed' },
  ],
  tool_schemas: {},
} as unknown as SearchResult;

describe('search, human output', () => {
  it('a toolkit that is not connected says how a person connects it: sessionctl link, with the session as named', () => {
    expect(renderSearch(result, { style: createStyle(false) }, 'support-agent')).toBe(
      [
        '',
        'TOOLKIT     CONNECTED  STATUS',
        'github      no         Not connected: sessionctl link support-agent github',
        'gmail       yes        Connected',
        'hackernews  no         No authentication needed',
        '',
        '0 results, 0 tool schemas (see them with --format json)',
        '',
      ].join('\n'),
    );
  });
});
