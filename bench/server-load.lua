-- wrk script for bench/server.bench.mjs: one wrk thread per client, each with its own connection and its own
-- sandbox, so requests and answers alternate on one Lua state and each client behaves exactly as
-- `baton env activate` does, one activation after another. Arguments (after wrk's `--`):
--   healthz <credentials file> <key prefix>    GET /healthz in a loop
--   activate <credentials file> <key prefix>   POST /ops/v1/operations (a fresh Idempotency-Key each time);
--       a pending answer is long-polled, and when the answer carries no overlay, GET .../overlay follows
-- The credentials file has one line per thread: "<turn token> <sandbox lease>". `done` prints one JSON line
-- starting with {"bench": that the bench parses: completed units and anything that went wrong.

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

local mode, prefix, headers, base
local next_request = nil -- a GET that must come next, or nil for a new POST
local sent = 0
units, errors, polls, overlays = 0, 0, 0, 0

function init(args)
  mode, prefix = args[1], args[3]
  local n = 0
  for line in io.lines(args[2]) do
    n = n + 1
    if n == index then
      local token, lease = line:match("^(%S+) (%S+)$")
      headers = { ["Authorization"] = "Bearer " .. token, ["Baton-Sandbox-Lease"] = lease }
    end
  end
  base = { ["Authorization"] = headers["Authorization"], ["Baton-Sandbox-Lease"] = headers["Baton-Sandbox-Lease"] }
end

local function post()
  sent = sent + 1
  local h = { ["Authorization"] = base["Authorization"], ["Baton-Sandbox-Lease"] = base["Baton-Sandbox-Lease"],
    ["Content-Type"] = "application/json", ["Idempotency-Key"] = prefix .. "-" .. index .. "-" .. sent }
  local repository = (sent % 2 == 0) and "acme/api" or "acme/web"
  return wrk.format("POST", "/ops/v1/operations", h, '{"kind":"env.activate","repository":"' .. repository .. '"}')
end

function request()
  if mode == "healthz" then return wrk.format("GET", "/healthz") end
  if next_request then
    local r = next_request
    next_request = nil
    return wrk.format("GET", r, base)
  end
  return post()
end

function response(status, _, body)
  if mode == "healthz" then
    if status == 200 then units = units + 1 else errors = errors + 1 end
    return
  end
  if status ~= 200 and status ~= 202 then
    errors = errors + 1
    return
  end
  if body:sub(1, 12) == '{"revision":' then -- the overlay of GET .../overlay
    units = units + 1
    return
  end
  local id = body:match('^{"id":"([^"]+)"')
  local state = body:match('"state":"(%a+)"')
  if not id or not state then
    errors = errors + 1
  elseif state == "pending" or state == "running" then
    polls = polls + 1
    next_request = "/ops/v1/operations/" .. id .. "?waitMs=10000"
  elseif state ~= "succeeded" then
    errors = errors + 1
  elseif body:find('"overlay":{"revision":', 1, true) then
    overlays = overlays + 1
    units = units + 1
  else
    next_request = "/ops/v1/operations/" .. id .. "/overlay"
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
