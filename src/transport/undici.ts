// undici's Agent and request() without its index: the index also loads fetch, WebSocket, caches and mocks, which
// roughly triples the CLI's cold start for nothing the client uses. The version is pinned in package.json; the
// transport tests fail loudly if these paths ever move.
import { createRequire } from "node:module";
import type { Agent as AgentClass, Dispatcher } from "undici";

const require = createRequire(import.meta.url);

type RequestFn = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

let loaded: { Agent: typeof AgentClass; request: RequestFn } | undefined;

function load() {
  loaded ??= {
    Agent: require("undici/lib/dispatcher/agent.js") as typeof AgentClass,
    request: (require("undici/lib/api/index.js") as { request: RequestFn }).request,
  };
  return loaded;
}

export function createAgent(options: AgentClass.Options): Dispatcher {
  return new (load().Agent)(options);
}

export function sendRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  return load().request.call(dispatcher, options);
}
