// Tokenise each file given with the TextMate grammar of the extension, using the tokeniser VS
// Code itself uses (vscode-textmate with the Oniguruma regular expressions), and report every
// token whose scopes include an `invalid` one. Exit status 1 when any is found.
//
//   node check.js FILE.flx…

"use strict";
const fs = require("fs");
const path = require("path");
const textmate = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const grammarPath = path.join(__dirname, "..", "syntaxes", "tessera.tmLanguage.json");
const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;

async function main(files) {
  await oniguruma.loadWASM(wasm);
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === "source.tessera"
        ? textmate.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath)
        : null,
  });
  const grammar = await registry.loadGrammar("source.tessera");
  let problems = 0;
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split(/\r?\n/);
    let state = textmate.INITIAL;
    lines.forEach((line, number) => {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        const bad = token.scopes.find((scope) => scope.startsWith("invalid"));
        if (bad) {
          problems += 1;
          const text = line.slice(token.startIndex, token.endIndex);
          console.log(`${file}:${number + 1}:${token.startIndex + 1}: \`${text}\` is ${bad}`);
        }
      }
      state = result.ruleStack;
    });
  }
  console.log(`${files.length} files tokenised, ${problems} invalid tokens`);
  process.exit(problems === 0 ? 0 : 1);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(2);
});
