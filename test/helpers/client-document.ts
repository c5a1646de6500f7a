// A Client ID Metadata Document served over https on loopback, as an MCP client would publish it at its client_id
// URL. The certificate is signed by a CA made for this test (the service trusts it only through the test's
// `oauthFetch`, or NODE_EXTRA_CA_CERTS for a real `baton serve`): real TLS, no public host needed.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { generateCa } from "../../src/proxy/ca/authority.js";
import { issueLeafPem } from "../../src/proxy/ca/leaves.js";

export interface ClientDocumentServer {
  /** The client_id: the document's own https URL. */
  clientId: string;
  caPem: string;
  /** How many times the document was fetched. */
  fetches: number;
  close(): Promise<void>;
}

export async function serveClientDocument(
  metadata: (clientId: string) => Record<string, unknown>,
): Promise<ClientDocumentServer> {
  const ca = await generateCa();
  const leaf = await issueLeafPem(ca, ["127.0.0.1", "localhost"]);
  const state = { clientId: "", fetches: 0 };
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    if (req.url !== "/mcp-client.json") {
      res.writeHead(404).end();
      return;
    }
    state.fetches++;
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" });
    res.end(JSON.stringify({ ...metadata(state.clientId), client_id: state.clientId }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.clientId = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp-client.json`;
  return {
    get clientId() {
      return state.clientId;
    },
    caPem: ca.certPem,
    get fetches() {
      return state.fetches;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
