/**
 * Tools of the emulator's own making, for common toolkits that the shared data has no tools for
 * (the data covers only github, googledrive, google_analytics and google_maps). Slugs follow the
 * service's style (`GMAIL_SEND_EMAIL`); tags are the MCP hints a real tool of that kind carries.
 * The toolkits themselves (auth kinds) come from the shared data.
 */
import type { CatalogTool } from './types.js';

type P = Record<string, { type: string; description?: string }>;

function tool(slug: string, name: string, tags: string[], required: string[], properties: P, description?: string): CatalogTool {
  const toolkit = TOOLKIT_OF_PREFIX.find(([prefix]) => slug.startsWith(prefix))?.[1];
  if (toolkit === undefined) throw new Error(`no toolkit for ${slug}`);
  return { slug, name, toolkit, tags, input: { required, properties }, ...(description === undefined ? {} : { description }) };
}

const TOOLKIT_OF_PREFIX: Array<[string, string]> = [
  ['GMAIL_', 'gmail'],
  ['SLACK_', 'slack'],
  ['NOTION_', 'notion'],
  ['LINEAR_', 'linear'],
  ['GOOGLECALENDAR_', 'googlecalendar'],
  ['JIRA_', 'jira'],
  ['OUTLOOK_', 'outlook'],
  ['TODOIST_', 'todoist'],
  ['HACKERNEWS_', 'hackernews'],
  ['WEATHERMAP_', 'weathermap'],
  ['TEXT_TO_PDF_', 'text_to_pdf'],
];

const R = ['readOnlyHint', 'idempotentHint', 'openWorldHint'];
const W = ['openWorldHint'];
const DI = ['destructiveHint', 'idempotentHint', 'openWorldHint'];
const s = { type: 'string' };
const i = { type: 'integer' };
const b = { type: 'boolean' };
const a = { type: 'array' };

export const ownTools: readonly CatalogTool[] = [
  tool('GMAIL_SEND_EMAIL', 'Send email', W, ['recipient_email', 'body'], { recipient_email: s, subject: s, body: s, cc: a, bcc: a, is_html: b }),
  tool('GMAIL_FETCH_EMAILS', 'Fetch emails', R, [], { query: s, max_results: i, label_ids: a, include_payload: b }),
  tool('GMAIL_CREATE_EMAIL_DRAFT', 'Create email draft', W, ['recipient_email', 'body'], { recipient_email: s, subject: s, body: s }),
  tool('GMAIL_REPLY_TO_THREAD', 'Reply to thread', W, ['thread_id', 'message_body'], { thread_id: s, message_body: s, recipient_email: s }),
  tool('GMAIL_DELETE_MESSAGE', 'Delete message', DI, ['message_id'], { message_id: s }),
  tool('GMAIL_ADD_LABEL_TO_EMAIL', 'Modify email labels', ['idempotentHint', 'openWorldHint'], ['message_id'], {
    message_id: s,
    add_label_ids: a,
    remove_label_ids: a,
  }),
  tool('SLACK_SEND_MESSAGE', 'Send message', W, ['channel', 'text'], { channel: s, text: s, thread_ts: s }),
  tool('SLACK_LIST_ALL_CHANNELS', 'List all channels', R, [], { limit: i, cursor: s, exclude_archived: b }),
  tool('SLACK_FETCH_CONVERSATION_HISTORY', 'Fetch conversation history', R, ['channel'], { channel: s, limit: i, oldest: s, latest: s }),
  tool('SLACK_ADD_EMOJI', 'Add emoji', W, ['name', 'url'], { name: s, url: s }),
  tool('SLACK_DELETE_A_MESSAGE', 'Delete a message', DI, ['channel', 'ts'], { channel: s, ts: s }),
  tool('NOTION_CREATE_NOTION_PAGE', 'Create Notion page', W, ['parent_id', 'title'], { parent_id: s, title: s, markdown: s }),
  tool('NOTION_SEARCH_NOTION_PAGE', 'Search Notion pages', R, [], { query: s, page_size: i }),
  tool('NOTION_FETCH_DATABASE', 'Fetch database', R, ['database_id'], { database_id: s }),
  tool('NOTION_ARCHIVE_NOTION_PAGE', 'Archive Notion page', DI, ['page_id'], { page_id: s, archive: b }),
  tool('LINEAR_CREATE_LINEAR_ISSUE', 'Create Linear issue', W, ['team_id', 'title'], { team_id: s, title: s, description: s, priority: i }),
  tool('LINEAR_LIST_LINEAR_ISSUES', 'List Linear issues', R, [], { first: i, after: s, project_id: s }),
  tool('LINEAR_UPDATE_ISSUE', 'Update Linear issue', ['idempotentHint', 'openWorldHint'], ['issue_id'], { issue_id: s, title: s, state_id: s }),
  tool('LINEAR_DELETE_LINEAR_ISSUE', 'Delete Linear issue', DI, ['issue_id'], { issue_id: s }),
  tool('GOOGLECALENDAR_CREATE_EVENT', 'Create event', W, ['start_datetime'], {
    start_datetime: s,
    event_duration_minutes: i,
    summary: s,
    attendees: a,
    calendar_id: s,
  }),
  tool('GOOGLECALENDAR_FIND_EVENT', 'Find event', R, [], { query: s, time_min: s, time_max: s, calendar_id: s }),
  tool('GOOGLECALENDAR_DELETE_EVENT', 'Delete event', DI, ['event_id'], { event_id: s, calendar_id: s }),
  tool('JIRA_CREATE_ISSUE', 'Create issue', W, ['project_key', 'summary'], { project_key: s, summary: s, issue_type: s, description: s }),
  tool('JIRA_GET_ISSUE', 'Get issue', R, ['issue_id_or_key'], { issue_id_or_key: s }),
  tool('JIRA_DELETE_ISSUE', 'Delete issue', DI, ['issue_id_or_key'], { issue_id_or_key: s, delete_subtasks: b }),
  tool('OUTLOOK_OUTLOOK_SEND_EMAIL', 'Send email', W, ['to_email', 'subject', 'body'], { to_email: s, subject: s, body: s }),
  tool('OUTLOOK_OUTLOOK_LIST_MESSAGES', 'List messages', R, [], { folder: s, top: i }),
  tool('TODOIST_CREATE_TASK', 'Create task', W, ['content'], { content: s, due_string: s, project_id: s, priority: i }),
  tool('TODOIST_GET_ALL_TASKS', 'Get all tasks', R, [], { project_id: s, filter: s }),
  tool('TODOIST_CLOSE_TASK', 'Close task', ['idempotentHint', 'openWorldHint'], ['task_id'], { task_id: s }),
  tool('HACKERNEWS_GET_FRONTPAGE', 'Get front page', R, [], { min_points: i }),
  tool('HACKERNEWS_GET_ITEM_WITH_ID', 'Get item with id', R, ['id'], { id: i }),
  tool('HACKERNEWS_SEARCH_POSTS', 'Search posts', R, ['query'], { query: s, tags: s, page: i }),
  tool('WEATHERMAP_WEATHER', 'Current weather', R, ['location'], { location: s, units: s }),
  tool('TEXT_TO_PDF_CONVERT_TEXT_TO_PDF', 'Convert text to PDF', W, ['text'], { text: s, title: s }),
];
