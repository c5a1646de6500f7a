// One fake model as a process of its own, for a network namespace the test's process cannot listen in (a proxy
// refuses its own machine's addresses, so a fake behind `baton proxy` lives on a host of its own). Its settings
// come from a JSON file named on the command line; it prints `ready <url>` once listening and keeps the requests
// it recorded, as a JSON array, in the settings' requestsFile (rewritten as they change).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { type ScriptStep, startFakeAnthropic, startFakeOpenAIResponses } from "./index.js";

export interface StandaloneFakeSettings {
  api: "anthropic" | "openai-responses";
  script: ScriptStep[];
  tls: { key: string; cert: string };
  host: string;
  port: number;
  requestsFile: string;
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
  writeFileSync(`${settings.requestsFile}.tmp`, text);
  renameSync(`${settings.requestsFile}.tmp`, settings.requestsFile);
};
const timer = setInterval(save, 100);
process.stdout.write(`ready ${fake.url}\n`);
process.once("SIGTERM", () => {
  clearInterval(timer);
  save();
  void fake.close().then(() => process.exit(0));
});
