// Preloaded into a `clarion` process (`node --import ./bench/harness/loaded-scripts.mjs …`) by
// bench/startup-modules.ts: on SIGUSR2 it writes every script V8 has parsed so far (its URL and length in characters)
// as JSON to the file named by BENCH_LOADED_SCRIPTS_FILE. Enabling the inspector's Debugger domain replays a
// `Debugger.scriptParsed` event for each script already compiled, Node's own modules included, so the list is what
// the process has loaded, whichever loader (ESM or CommonJS) loaded it.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const outputFile = process.env.BENCH_LOADED_SCRIPTS_FILE;
if (outputFile) {
  process.on('SIGUSR2', () => {
    const session = new Session();
    const scripts = [];
    session.on('Debugger.scriptParsed', ({ params }) => scripts.push({ url: params.url, length: params.length }));
    session.connect();
    // The replayed events arrive synchronously, before the command's own answer.
    session.post('Debugger.enable', () => {
      session.post('Debugger.disable', () => {
        session.disconnect();
        writeFileSync(outputFile, JSON.stringify(scripts));
      });
    });
  });
}
