// The demo's MCP client: one JSON-RPC request to POST /v1/mcp in the modern era (2026-07-28), plain fetch, the
// personal access token as a bearer header, as any MCP client configured "by URL and bearer header" sends it.
const VERSION = "2026-07-28";
const CLIENT_INFO = { name: "baton-demo", version: "1.0.0" };
let nextId = 1;

/** Sends `method` with `params`; returns the JSON-RPC result, or throws with the error it got. */
export async function callMcp(url, token, method, params = {}) {
  const name = method === "tools/call" ? params.name : undefined;
  const response = await fetch(`${url}/v1/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const body = await response.json();
  if (body.error)
    throw new Error(`MCP ${method}: HTTP ${response.status}, ${body.error.code} ${body.error.message}`);
  return body.result;
}

/** A tool's JSON answer (its structured content), or throws with the tool's own error text. */
export async function callTool(url, token, name, args = {}) {
  const result = await callMcp(url, token, "tools/call", { name, arguments: args });
  if (result.isError) throw new Error(`MCP tool ${name}: ${result.content?.[0]?.text ?? "refused"}`);
  return result.structuredContent;
}
