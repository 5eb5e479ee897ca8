import type { MountItemList } from '../../wire/operations.js';
import { lstat, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { insecureHttpAllowed, traceLine } from '../connection.js';
import { interruptOn } from '../interrupt.js';
import { addListOptions, addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type ListFlags, type OperateFlags } from '../operate-options.js';

interface MountFlags extends OperateFlags {
  mount: string;
}

/** Mount listings: the service's maximum page size (api facts §2.10, 1..500). */
const MAX_PAGE = 500;

const REMOTE_HELP = 'the path inside the mount, e.g. data/report.csv (no leading /)';

function withMount(cmd: Command): Command {
  return addOperateOptions(cmd.option('--mount <id>', 'the mount', 'files'));
}

function uploadUrlOptions(flags: MountFlags & { contentType?: string }): { mountId: string; mimetype?: string } {
  return { mountId: flags.mount, ...(flags.contentType !== undefined ? { mimetype: flags.contentType } : {}) };
}

/**
 * With --verbose, the transfer is traced on stderr, each line masked and escaped by traceLine.
 * SESSIONCTL_ALLOW_HTTP=1 also lets it use the plain http URLs an emulator on another host gives.
 */
function traceOption(flags: OperateFlags, env: CommandEnv): { onTrace?: (line: string) => void; allowInsecureHttp: boolean } {
  const allowInsecureHttp = insecureHttpAllowed(env.io.env);
  return flags.verbose === true ? { onTrace: (line) => env.io.stderr.write(`${traceLine(line, env)}\n`), allowInsecureHttp } : { allowInsecureHttp };
}

const FILES_HELP = [
  '',
  'Examples:',
  '  sessionctl files put support-agent ./report.csv reports/q3.csv',
  '  sessionctl files ls support-agent reports/',
  '  sessionctl files get support-agent reports/q3.csv ./copy.csv',
  '',
  'Presigned URLs point at storage, not the service: the API key is never sent there, and files are streamed.',
].join('\n');

/**
 * `sessionctl files ...`: the session's mount (the sandbox's `/mnt/files`): list, presigned URLs,
 * delete, and `put` / `get`, which also move the bytes. Presigned URLs point at storage, not the
 * service: the API key is never sent there, and files are streamed, never held in memory.
 */
export const registerFiles: RegisterCommand = (program, env) => {
  const files = program
    .command('files')
    .description("Work with the files in a session's mount (/mnt/files in its sandbox): ls, put, get, rm, upload-url, download-url.")
    .addHelpText('after', FILES_HELP);
  for (const register of [registerLs, registerUploadUrl, registerDownloadUrl, registerRm, registerPut, registerGet]) register(files, env);
  for (const sub of files.commands) sub.exitOverride();
};

/** `files ls`: list the mount, a page or all of it. */
function registerLs(files: Command, env: CommandEnv): void {
  const ls = files.command('ls').description('List the files in the mount (paginated).').argument('<session>', SESSION_ARG_HELP).argument('[prefix]', 'only paths that start with this, e.g. data/');
  addListOptions(withMount(ls))
    .addHelpText('after', sessionHelp(['sessionctl files ls support-agent', 'sessionctl files ls trs_1a2b3c4d5e6f data/ --all --format json']))
    .action(async (ref: string, prefix: string | undefined, flags: MountFlags & ListFlags) => {
      const { pageSelection, collectPages, cursorOf } = await import('../../runner/paginate.js');
      const selection = pageSelection(flags.all, flags.limit);
      await withSession(ref, flags, env, async (client, id) => {
        const got = await collectPages<MountItemList>(
          (cursor, limit) =>
            client.listMountItems(
              id,
              { ...(cursor !== undefined ? { cursor } : {}), ...(limit !== undefined ? { limit } : {}), ...(prefix !== undefined ? { mount_relative_prefix: prefix } : {}) },
              flags.mount,
            ),
          cursorOf,
          selection,
          MAX_PAGE,
        );
        if (flags.format === 'json') return printJson(env, got.response);
        const { renderMountItems } = await import('../../report/operate/files.js');
        env.io.stdout.write(renderMountItems(got.items, got.more, renderContext(env)));
      });
    });
}

/** `files upload-url`: a presigned URL to PUT into. */
function registerUploadUrl(files: Command, env: CommandEnv): void {
  const uploadUrl = files
    .command('upload-url')
    .description('Get a presigned URL to PUT a file into the mount (no API key needed there).')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<remote>', REMOTE_HELP)
    .option('--content-type <mime>', 'the file\'s media type, e.g. text/csv');
  withMount(uploadUrl)
    .addHelpText('after', sessionHelp(['sessionctl files upload-url support-agent data/report.csv --content-type text/csv']))
    .action(async (ref: string, remote: string, flags: MountFlags & { contentType?: string }) => {
      await withSession(ref, flags, env, async (client, id) => {
        const r = await client.mountUploadUrl(id, remote, uploadUrlOptions(flags));
        if (flags.format === 'json') return printJson(env, r);
        const { renderPresigned } = await import('../../report/operate/files.js');
        env.io.stdout.write(renderPresigned('upload', r, renderContext(env)));
      });
    });
}

/** `files download-url`: a presigned URL to GET from. */
function registerDownloadUrl(files: Command, env: CommandEnv): void {
  const downloadUrl = files
    .command('download-url')
    .description('Get a presigned URL to GET a file from the mount (no API key needed there).')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<remote>', REMOTE_HELP);
  withMount(downloadUrl)
    .addHelpText('after', sessionHelp(['sessionctl files download-url support-agent data/report.csv', 'curl -fsS "$(sessionctl files download-url trs_1a2b3c4d5e6f out.txt --format json | jq -r .download_url)"']))
    .action(async (ref: string, remote: string, flags: MountFlags) => {
      await withSession(ref, flags, env, async (client, id) => {
        const r = await client.mountDownloadUrl(id, remote, flags.mount);
        if (flags.format === 'json') return printJson(env, r);
        const { renderPresigned } = await import('../../report/operate/files.js');
        env.io.stdout.write(renderPresigned('download', r, renderContext(env)));
      });
    });
}

/** `files rm`: delete one file of the mount. */
function registerRm(files: Command, env: CommandEnv): void {
  const rm = files.command('rm').description('Delete a file from the mount (deleting a missing file succeeds).').argument('<session>', SESSION_ARG_HELP).argument('<remote>', REMOTE_HELP);
  withMount(rm)
    .addHelpText('after', sessionHelp(['sessionctl files rm support-agent data/report.csv']))
    .action(async (ref: string, remote: string, flags: MountFlags) => {
      await withSession(ref, flags, env, async (client, id) => {
        const r = await client.mountDelete(id, remote, flags.mount);
        if (flags.format === 'json') return printJson(env, r);
        const { renderDeleted } = await import('../../report/operate/files.js');
        env.io.stdout.write(renderDeleted(r));
      });
    });
}

/** `files put`: a presigned upload URL, then the local file streamed to it. */
function registerPut(files: Command, env: CommandEnv): void {
  const put = files
    .command('put')
    .description('Upload a local file into the mount: asks for a presigned URL, then streams the file to it.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<local>', 'the local file to upload')
    .argument('<remote>', REMOTE_HELP)
    .option('--content-type <mime>', 'the file\'s media type (default application/octet-stream)');
  withMount(put)
    .addHelpText('after', sessionHelp(['sessionctl files put support-agent ./report.csv data/report.csv --content-type text/csv'], ['--format json prints the upload-url response; the key is never sent to the presigned URL.']))
    .action(async (ref: string, local: string, remote: string, flags: MountFlags & { contentType?: string }) => {
      const { uploadFile } = await import('../../client/presigned.js');
      const path = resolve(env.io.cwd, local);
      // Checked before asking for an upload URL, so a typo costs no request.
      const st = await stat(path).catch((err: NodeJS.ErrnoException) => err);
      if (st instanceof Error || !st.isFile()) {
        const why = st instanceof Error ? (st.code === 'ENOENT' ? 'no such file' : (st.code ?? 'unreadable')) : 'not a regular file';
        throw new InputError(`cannot read the file to upload (${why})`, local);
      }
      await withSession(ref, flags, env, async (client, id) => {
        const r = await client.mountUploadUrl(id, remote, uploadUrlOptions(flags));
        const sent = await uploadFile(r.upload_url, path, {
          ...(flags.contentType !== undefined ? { contentType: flags.contentType } : {}),
          ...traceOption(flags, env),
        });
        if (flags.format === 'json') return printJson(env, r);
        const { renderUploaded } = await import('../../report/operate/files.js');
        env.io.stdout.write(renderUploaded(local, sent.bytes, r));
      });
    });
}

/** `files get`: a presigned download URL, then the file streamed into a local one, whole or not at all. */
function registerGet(files: Command, env: CommandEnv): void {
  const get = files
    .command('get')
    .description('Download a file from the mount: asks for a presigned URL, then streams it into a local file (written whole or not at all).')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<remote>', REMOTE_HELP)
    .argument('<local>', 'the local file to write, or a folder to write into; an existing file is replaced only with --force')
    .option('--force', 'replace the local file if it exists');
  withMount(get)
    .addHelpText(
      'after',
      sessionHelp(
        ['sessionctl files get support-agent data/report.csv ./report.csv', 'sessionctl files get support-agent data/report.csv ./report.csv --force   # replace it'],
        ['--format json prints the download-url response; the key is never sent to the presigned URL.'],
      ),
    )
    .action(async (ref: string, remote: string, local: string, flags: MountFlags & { force?: boolean }) => {
      const { downloadToFile } = await import('../../client/presigned.js');
      let path = resolve(env.io.cwd, local);
      let shown = local;
      const st = await stat(path).catch(() => undefined);
      if (st?.isDirectory() === true) {
        path = join(path, basename(remote));
        shown = join(local, basename(remote));
      }
      // Checked before asking for a download URL: an existing file is kept unless --force says
      // otherwise, as cp -n and curl -o would not (a download is easy to redo, a lost file is not).
      if (flags.force !== true && (await lstat(path).catch(() => undefined)) !== undefined) {
        throw new UsageError(`${shown} already exists; files get does not replace a local file`, 'pass --force to replace it, or name another file');
      }
      // Ctrl-C (or SIGTERM) stops the transfer: its temp file is removed, nothing half-written stays.
      const interrupt = interruptOn(env);
      const stopped = (): boolean => {
        const code = interrupt.exitCode();
        if (code === undefined) return false;
        env.io.stderr.write(`files get: ${interrupt.received()} received: the download was stopped and nothing was written\n`);
        env.setExitCode(code);
        return true;
      };
      try {
        await withSession(ref, flags, env, async (client, id) => {
          const r = await client.mountDownloadUrl(id, remote, flags.mount);
          if (stopped()) return;
          const options = { signal: interrupt.signal, ...traceOption(flags, env) };
          const got = await downloadToFile(r.download_url, path, options).catch((err: unknown) => {
            if (interrupt.signal.aborted) return undefined;
            // Name the file as the user wrote it, not its absolute path.
            if (err instanceof InputError) throw new InputError(err.message, shown, { cause: err });
            throw err;
          });
          if (got === undefined) return void stopped();
          if (flags.format === 'json') return printJson(env, r);
          const { renderDownloaded } = await import('../../report/operate/files.js');
          env.io.stdout.write(renderDownloaded(shown, got.bytes, r));
        });
      } finally {
        interrupt.stop();
      }
    });
}
