import type { RegisterCommand } from '../command.js';
import { registerApply } from './apply.js';
import { registerCompletion } from './completion.js';
import { registerDelete } from './delete.js';
import { registerDestroy } from './destroy.js';
import { registerDiff } from './diff.js';
import { registerEmulator } from './emulator.js';
import { registerExecuteMeta } from './execute-meta.js';
import { registerExecute } from './execute.js';
import { registerExport } from './export.js';
import { registerHistory } from './history.js';
import { registerImport } from './import.js';
import { registerFiles } from './files.js';
import { registerGet } from './get.js';
import { registerInit } from './init.js';
import { registerLink } from './link.js';
import { registerLsp } from './lsp.js';
import { registerMcp } from './mcp.js';
import { registerPlan } from './plan.js';
import { registerProxy } from './proxy.js';
import { registerSchema } from './schema.js';
import { registerSearch } from './search.js';
import { registerState } from './state.js';
import { registerToolkits } from './toolkits.js';
import { registerTools } from './tools.js';
import { registerValidate } from './validate.js';

/** Every command, in the order `--help` lists them: the config-as-code loop, operating a session, then tooling. */
export const allCommands: readonly RegisterCommand[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerDiff,
  registerDestroy,
  registerDelete,
  registerImport,
  registerExport,
  registerHistory,
  registerState,
  registerGet,
  registerToolkits,
  registerTools,
  registerSearch,
  registerExecute,
  registerExecuteMeta,
  registerLink,
  registerProxy,
  registerFiles,
  registerMcp,
  registerSchema,
  registerInit,
  registerCompletion,
  registerLsp,
  registerEmulator,
];
