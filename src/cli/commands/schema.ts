import type { RegisterCommand } from '../command.js';

/** `sessionctl schema [--config]`: prints the manifest (or project configuration) JSON Schema, byte for byte as shipped. */
export const registerSchema: RegisterCommand = (program, env) => {
  program
    .command('schema')
    .description('Print the JSON Schema (draft-07) of session manifests, for editors, SchemaStore and other tools.')
    .option('--config', 'print the schema of the project configuration, sessionctl.yaml, instead')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl schema > session-manifest.schema.json',
        '  sessionctl schema --config > sessionctl-config.schema.json',
        '  sessionctl schema | jq \'.properties | keys\'',
        '',
        'Editors with yaml-language-server pick it up from a modeline on the first line of a manifest:',
        '  # yaml-language-server: $schema=./session-manifest.schema.json',
      ].join('\n'),
    )
    .action(async (options: { config?: boolean }) => {
      if (options.config === true) {
        const { configSchemaText } = await import('../../project/schema.js');
        env.io.stdout.write(configSchemaText);
        return;
      }
      const { manifestSchemaText } = await import('../../validate/schema.js');
      env.io.stdout.write(manifestSchemaText);
    });
};
