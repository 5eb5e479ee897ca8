import type { MountDeleteResult, MountDownloadUrl, MountItem, MountUploadUrl } from '../../wire/operations.js';
import { count, humanBytes, type RenderContext } from './context.js';
import { cell, renderFields, renderTable } from './table.js';

/** Where a file sits inside the sandbox: `/mnt/files` + `/` + `data/x.csv`. */
export function sandboxPath(r: { sandbox_mount_prefix?: unknown; mount_relative_path?: unknown }): string {
  const prefix = typeof r.sandbox_mount_prefix === 'string' ? r.sandbox_mount_prefix.replace(/\/+$/, '') : '';
  return `${prefix}/${cell(r.mount_relative_path)}`;
}

/** `files ls`: path, size and time of each file. */
export function renderMountItems(items: readonly MountItem[], more: boolean, ctx: RenderContext): string {
  const tail = more ? ' (more with --all or --limit N)' : '';
  if (items.length === 0) return `no files${tail}\n`;
  const bytes = items.reduce((n, i) => n + (typeof i.size === 'number' ? i.size : 0), 0);
  const table = renderTable(
    [{ header: 'PATH', shrink: true }, { header: 'SIZE', align: 'right' }, { header: 'MODIFIED' }],
    items.map((i) => [i.mount_relative_path, humanBytes(i.size), i.last_modified]),
    ctx,
  );
  return `${table}\n${count(items.length, 'file')}, ${humanBytes(bytes)}${tail}\n`;
}

/** `files upload-url` / `download-url`: the presigned URL (whole: it is meant to be copied) and its expiry. */
export function renderPresigned(kind: 'upload' | 'download', r: MountUploadUrl | MountDownloadUrl, ctx: RenderContext): string {
  const url = kind === 'upload' ? (r as MountUploadUrl).upload_url : (r as MountDownloadUrl).download_url;
  const how = kind === 'upload' ? 'PUT the bytes to' : 'GET the bytes from';
  return `${how} (no API key needed, expires ${cell(r.expires_at)}):\n  ${cell(url)}\n\n${renderFields([['sandbox path', sandboxPath(r)]], ctx)}`;
}

export function renderDeleted(r: MountDeleteResult): string {
  return `deleted ${sandboxPath(r)} (or it was not there)\n`;
}

export function renderUploaded(local: string, bytes: number, r: MountUploadUrl): string {
  return `uploaded ${local} (${humanBytes(bytes)}) to ${sandboxPath(r)}\n`;
}

export function renderDownloaded(local: string, bytes: number, r: MountDownloadUrl): string {
  return `downloaded ${sandboxPath(r)} to ${local} (${humanBytes(bytes)})\n`;
}
