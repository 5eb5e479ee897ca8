// A minimal VS Code extension: it starts `sessionctl lsp` for YAML files and passes the
// `sessionctl.*` settings to it. Everything else (findings, completion, fixes) is the server's.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('sessionctl');
  const command = config.get('path', 'sessionctl');
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'yaml' }],
    initializationOptions: {
      unsetVariables: config.get('unsetVariables', 'placeholder'),
      debounceMs: config.get('debounceMs', 150),
      deployedLens: config.get('deployedLens', false),
    },
    synchronize: { configurationSection: 'sessionctl' },
  };
  client = new LanguageClient('sessionctl', 'sessionctl', serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
