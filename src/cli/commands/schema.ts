import type { RegisterCommand } from '../command.js';

/** `sessionctl schema`: prints the manifest JSON Schema, byte for byte as shipped. */
export const registerSchema: RegisterCommand = (program, env) => {
  program
    .command('schema')
    .description('Print the JSON Schema (draft-07) of session manifests, for editors, SchemaStore and other tools.')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl schema > session-manifest.schema.json',
        '  sessionctl schema | jq \'.properties | keys\'',
        '',
        'Editors with yaml-language-server pick it up from a modeline on the first line of a manifest:',
        '  # yaml-language-server: $schema=./session-manifest.schema.json',
      ].join('\n'),
    )
    .action(async () => {
      const { manifestSchemaText } = await import('../../validate/schema.js');
      env.io.stdout.write(manifestSchemaText);
    });
};
