// Setup file of both projects (vitest.config.ts). The suite runs with `isolate: false`, so a worker keeps the
// modules of the files it ran before: this fails a file at once if a worker that ran one project's files runs
// another's with the engine its modules read at import, instead of letting the file pass on the wrong engine.
import { beforeAll } from "vitest";
import { TEST_ENGINE, testEngine } from "./test-store.js";

beforeAll(() => {
  const wanted = testEngine();
  if (TEST_ENGINE !== wanted) {
    throw new Error(
      `this worker's modules were loaded for BATON_TEST_STORE=${TEST_ENGINE}, but this file runs on ${wanted}: ` +
        "run the projects with isolate: true",
    );
  }
});
