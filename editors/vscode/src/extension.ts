// Starts `proclint server` and connects VS Code to it. The server decides
// what it lints: JavaScript that is not a process module gets no findings,
// so the extension can simply hand it every JavaScript file, SKILL.md and
// package.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

/** The executable: the `proclint.path` setting, else the npm package's
 * binary in a workspace folder, else `proclint` on PATH. */
function executable(): string {
  const configured = vscode.workspace.getConfiguration('proclint').get<string>('path', '').trim();
  if (configured) {
    return configured;
  }
  const bin = process.platform === 'win32' ? 'proclint.cmd' : 'proclint';
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const candidate = path.join(folder.uri.fsPath, 'node_modules', '.bin', bin);
    if (fs.existsSync(candidate)) {
      return candidate;
    }
  }
  return 'proclint';
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const command = executable();
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // Node refuses to spawn a `.cmd` or `.bat` without a shell (EINVAL since
  // the 2024 fix for CVE-2024-27980), and npm installs `proclint.cmd` on
  // Windows: run it through cmd.exe, the path quoted for spaces.
  const batch = process.platform === 'win32' && /\.(cmd|bat)$/i.test(command);
  const serverOptions: ServerOptions = {
    command: batch ? `"${command}"` : command,
    args: ['server'],
    transport: TransportKind.stdio,
    options: batch ? { cwd, shell: true } : { cwd },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'javascript' },
      { scheme: 'file', pattern: '**/SKILL.md' },
      { scheme: 'file', pattern: '**/package.json' },
    ],
    // The server also registers these itself when the client allows it;
    // declaring them keeps config edits live with older clients too.
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{proclint.toml,package.json,SKILL.md,*.js,*.mjs,*.cjs}'),
    },
  };
  client = new LanguageClient('proclint', 'proclint', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (e) {
    void vscode.window.showErrorMessage(
      `proclint: cannot start \`${command} server\` (${e}). Install proclint (npm i -D proclint) or set proclint.path.`,
    );
  }
  context.subscriptions.push(client);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('proclint.restart', async () => {
      await client?.stop();
      client = undefined;
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('proclint.path')) {
        await vscode.commands.executeCommand('proclint.restart');
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
