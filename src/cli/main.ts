#!/usr/bin/env node
import { allCommands } from './commands/index.js';
import { runMain } from './main-process.js';

await runMain(allCommands);
