// Reads the Debian mirror (and its keyring) for a suite from the machine's apt sources, so no host name is ever
// written in our code: deb822 files (`*.sources`) and one-line files (`*.list`) under /etc/apt.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Parses apt source files' text into `{uri, suites, components, signedBy}` entries of type `deb`. */
export function parseAptSources(files) {
  const entries = [];
  for (const { name, text } of files) {
    if (name.endsWith(".sources")) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const fields = {};
        for (const line of stanza.split("\n")) {
          const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
          if (match && !line.startsWith("#")) fields[match[1].toLowerCase()] = match[2].trim();
        }
        if (!(fields.types ?? "").split(/\s+/).includes("deb") || !fields.uris) continue;
        for (const uri of fields.uris.split(/\s+/))
          entries.push({
            uri,
            suites: (fields.suites ?? "").split(/\s+/),
            components: (fields.components ?? "").split(/\s+/),
            signedBy: fields["signed-by"],
          });
      }
    } else if (name.endsWith(".list") || name === "sources.list") {
      for (const raw of text.split("\n")) {
        const line = raw.replace(/#.*/, "").trim();
        const match = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s+(.*)$/.exec(line);
        if (!match) continue;
        const signedBy = /signed-by=(\S+)/.exec(match[1] ?? "")?.[1];
        entries.push({ uri: match[2], suites: [match[3]], components: match[4].split(/\s+/), signedBy });
      }
    }
  }
  return entries;
}

/** The first `deb` entry that serves `suite` with the `main` component. */
export function pickMirror(entries, suite) {
  return entries.find((entry) => entry.suites.includes(suite) && entry.components.includes("main"));
}

export function readDebianMirror(suite, aptDir = "/etc/apt") {
  const files = [];
  const read = (path, name) => {
    try {
      files.push({ name, text: readFileSync(path, "utf8") });
    } catch {
      // absent: the other files may still name a mirror
    }
  };
  read(join(aptDir, "sources.list"), "sources.list");
  let names = [];
  try {
    names = readdirSync(join(aptDir, "sources.list.d")).sort();
  } catch {
    names = [];
  }
  for (const name of names) read(join(aptDir, "sources.list.d", name), name);
  const mirror = pickMirror(parseAptSources(files), suite);
  if (!mirror)
    throw new Error(
      `no apt source under ${aptDir} serves Debian ${suite} (main); add one to /etc/apt/sources.list.d/ first`,
    );
  return mirror;
}
