-- wrk script for bench/server.bench.mjs. Arguments (after wrk's `--`):
--   healthz  <credentials file> <key prefix>  GET /healthz in a loop
--   activate <credentials file> <key prefix>  POST /ops/v1/operations, a fresh Idempotency-Key each time
--   start    <credentials file> <key prefix>  POST /v1/workspaces/ws_bench/tasks as the next member in turn
--                                             (bench/store-serve.bench.mjs; lines "<member token> -")
-- The credentials file has one line per client, "<turn token> <sandbox lease>"; each wrk thread takes an equal
-- share of them and sends each POST as the next of its clients in turn.
--
-- An activation is what `baton env activate` sends. Against an idle engagement the answer is the finished
-- operation, and a succeeded one carries its overlay: one request. A pending answer is long-polled, and an
-- answer without the overlay (a service from before that field) is followed by GET .../overlay; those
-- follow-ups need to know which client asked, so they work only with one connection per thread (wrk
-- -t N -c N); with more, such an answer counts as an error. `done` prints one JSON line starting with
-- {"bench": that the bench parses.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("index", #threads)
end

local mode, prefix, clients, solo
local turn, sent = 0, 0
local follow_up -- the request a one-connection thread must send next, or nil
units, errors, polls, overlays = 0, 0, 0, 0

function init(args)
  mode, prefix = args[1], args[3]
  local all = {}
  for line in io.lines(args[2]) do
    local token, lease = line:match("^(%S+) (%S+)$")
    table.insert(all, { ["Authorization"] = "Bearer " .. token, ["Baton-Sandbox-Lease"] = lease })
  end
  -- This thread's share of the clients: every #threads-th one, starting at its index.
  local count = tonumber(args[4])
  clients = {}
  for i = index, #all, count do table.insert(clients, all[i]) end
  solo = #clients == 1
end

function request()
  if mode == "healthz" then return wrk.format("GET", "/healthz") end
  if follow_up then
    local path, client = follow_up[1], follow_up[2]
    follow_up = nil
    return wrk.format("GET", path, client)
  end
  turn = turn % #clients + 1
  sent = sent + 1
  local client = clients[turn]
  if mode == "start" then
    return wrk.format("POST", "/v1/workspaces/ws_bench/tasks",
      { ["Authorization"] = client["Authorization"], ["Content-Type"] = "application/json" },
      '{"prompt":"bench: fix it"}')
  end
  local headers = { ["Authorization"] = client["Authorization"], ["Baton-Sandbox-Lease"] = client["Baton-Sandbox-Lease"],
    ["Content-Type"] = "application/json", ["Idempotency-Key"] = prefix .. "-" .. index .. "-" .. sent }
  local repository = (sent % 2 == 0) and "acme/api" or "acme/web"
  return wrk.format("POST", "/ops/v1/operations", headers,
    '{"kind":"env.activate","repository":"' .. repository .. '"}')
end

local function follow(path)
  if not solo then
    errors = errors + 1
    return
  end
  follow_up = { path, clients[turn] }
end

function response(status, _, body)
  if mode == "healthz" then
    if status == 200 then units = units + 1 else errors = errors + 1 end
    return
  end
  if mode == "start" then
    if status == 202 then units = units + 1 else errors = errors + 1 end
    return
  end
  if status ~= 200 and status ~= 202 then
    errors = errors + 1
    return
  end
  if body:sub(1, 12) == '{"revision":' then -- the answer to GET .../overlay
    units = units + 1
    return
  end
  local id = body:match('^{"id":"([^"]+)"')
  local state = body:match('"state":"(%a+)"')
  if not id or not state then
    errors = errors + 1
  elseif state == "pending" or state == "running" then
    polls = polls + 1
    follow("/ops/v1/operations/" .. id .. "?waitMs=10000")
  elseif state ~= "succeeded" then
    errors = errors + 1
  elseif body:find('"overlay":{"revision":', 1, true) then
    overlays = overlays + 1
    units = units + 1
  else
    follow("/ops/v1/operations/" .. id .. "/overlay")
  end
end

function done(summary)
  local u, e, p, o = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    u = u + thread:get("units")
    e = e + thread:get("errors")
    p = p + thread:get("polls")
    o = o + thread:get("overlays")
  end
  io.write(string.format('{"bench":true,"units":%d,"errors":%d,"polls":%d,"overlays":%d,"requests":%d,"us":%d}\n',
    u, e, p, o, summary.requests, summary.duration))
end
