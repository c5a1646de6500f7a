// One fake model as a process of its own, for a network namespace the caller's process cannot listen in (a proxy
// refuses its own machine's addresses, so a fake behind `baton proxy` lives on a host of its own). Run as
// `node dist/src/testing/fake-models/standalone.js <settings.json>` (in-namespace.ts does): it writes its URL to
// the settings' readyFile once listening and keeps the requests it recorded, as a JSON array, in their
// requestsFile (rewritten as they change). SIGTERM saves them a last time and closes it. It prints nothing.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { StandaloneFakeSettings } from "./in-namespace.js";
import { startFakeAnthropic, startFakeOpenAIResponses } from "./index.js";

/** Written whole or not at all: the reader polls it. */
function replace(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

const settings = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as StandaloneFakeSettings;
const start = settings.api === "anthropic" ? startFakeAnthropic : startFakeOpenAIResponses;
const fake = await start({
  script: settings.script,
  tls: settings.tls,
  host: settings.host,
  port: settings.port,
});
let last = "";
const save = () => {
  const text = JSON.stringify(fake.requests);
  if (text === last) return;
  last = text;
  replace(settings.requestsFile, text);
};
const timer = setInterval(save, 100);
replace(settings.readyFile, fake.url);
// Once the server is closed nothing is left to run and the process ends by itself.
process.once("SIGTERM", () => {
  clearInterval(timer);
  save();
  void fake.close();
});
