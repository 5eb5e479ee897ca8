import type { RegisterCommand } from '../command.js';
import { registerApply } from './apply.js';
import { registerCompletion } from './completion.js';
import { registerDiff } from './diff.js';
import { registerEmulator } from './emulator.js';
import { registerExecuteMeta } from './execute-meta.js';
import { registerExecute } from './execute.js';
import { registerFiles } from './files.js';
import { registerGet } from './get.js';
import { registerInit } from './init.js';
import { registerLink } from './link.js';
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
  registerSchema,
  registerInit,
  registerCompletion,
  registerEmulator,
];
