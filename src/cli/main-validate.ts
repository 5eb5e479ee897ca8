#!/usr/bin/env node
// The entry of the validate-only bundle: CI lints every pull request, and for a one-file lint the
// CLI's own load is most of the time, so `sessionctl validate` loads a bundle with only this
// command (the whole CLI is mostly the HTTP client and the emulator). Everything else (program,
// help, errors, exit codes) is the same code as the whole CLI's.
import { registerValidate } from './commands/validate.js';
import { runMain } from './main-process.js';

await runMain([registerValidate]);
