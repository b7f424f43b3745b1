// The Tessera extension: the grammar and language configuration are declared in package.json;
// this starts the language server, `tessera lsp`, over stdio for `.flx` files.

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace
    .getConfiguration("tessera")
    .get<string>("server.path", "tessera");
  const serverOptions: ServerOptions = { command, args: ["lsp"] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "tessera" }],
  };
  client = new LanguageClient("tessera", "Tessera", serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
