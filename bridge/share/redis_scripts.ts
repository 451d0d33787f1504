/**
 * The Lua scripts RedisShare runs (atomic session create and update, leases, login throttling,
 * idempotency claims), defined with `@redis/client`'s `defineScript`: the client sends each by
 * its SHA-1 (EVALSHA) and, when Redis lost it (a restart, `SCRIPT FLUSH`), by its text (EVAL).
 *
 * @module
 */
import { defineScript } from "@redis/client";
import type { CommandParser } from "@redis/client";

const CREATE = `
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local max, maxFresh = tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
local ended = {}
if redis.call('ZCARD', KEYS[6]) >= maxFresh then
  local old = redis.call('ZRANGE', KEYS[6], 0, 0)[1]
  if old then table.insert(ended, old) end
end
if #ended == 0 and redis.call('ZCARD', KEYS[4]) >= max then
  local old = redis.call('ZRANGE', KEYS[5], 0, 0)[1]
  if not old then return -1 end
  table.insert(ended, old)
end
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
redis.call('SET', KEYS[3], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[4], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[5], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[6], now + ttl, ARGV[1])
return ended`;

const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = redis.call('PTTL', KEYS[1])
if KEYS[2] then
  redis.call('DEL', KEYS[2])
  if ttl > 0 then redis.call('SET', KEYS[3], ARGV[1], 'PX', ttl) end
end
if KEYS[4] then
  redis.call('DEL', KEYS[4])
  if ttl > 0 then redis.call('SET', KEYS[5], ARGV[1], 'PX', ttl) end
end
if ARGV[#ARGV] == 'bump' then return redis.call('HINCRBY', KEYS[1], 'version', 1) end
return 1`;

const LOAD = `
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return fields end
local holder = redis.call('GET', KEYS[2])
if holder and redis.call('EXISTS', ARGV[1] .. holder) == 1 then
  table.insert(fields, 'holder')
  table.insert(fields, holder)
end
return fields`;

const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and redis.call('EXISTS', ARGV[3] .. holder) == 1 then
  return math.max(1, redis.call('PTTL', KEYS[1]))
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;

const FAIL = `
local count, last = tonumber(redis.call('HGET', KEYS[1], 'count') or '0'), tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
if now - last >= window then count = 0 end
count = count + 1
redis.call('HSET', KEYS[1], 'count', count, 'last', now)
redis.call('PEXPIRE', KEYS[1], window)
return count`;

const CLAIM_ATTEMPTS = `
local now, window, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local base, top = tonumber(ARGV[4]), tonumber(ARGV[5])
local wait = 0
for i = 1, #KEYS do
  local count = tonumber(redis.call('HGET', KEYS[i], 'count') or '0')
  local last = tonumber(redis.call('HGET', KEYS[i], 'last') or '0')
  if now - last < window and count >= max then
    local delay = math.min(top, base * 2 ^ math.min(count - max, 30))
    local left = last + delay - now
    if left > 0 then wait = math.max(wait, math.ceil(left / 1000)) end
  end
end
if wait > 0 then return wait end
for i = 1, #KEYS do
  local count = tonumber(redis.call('HGET', KEYS[i], 'count') or '0')
  local last = tonumber(redis.call('HGET', KEYS[i], 'last') or '0')
  if now - last >= window then count = 0 end
  redis.call('HSET', KEYS[i], 'count', count + 1, 'last', now)
  redis.call('PEXPIRE', KEYS[i], window)
end
return 0`;

const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
  if extra > 0 then
    local old = redis.call('ZPOPMIN', KEYS[2], extra)
    for i = 1, #old, 2 do redis.call('DEL', ARGV[6] .. old[i]) end
  end
  return false
end
return redis.call('GET', KEYS[1])`;

const SETTLE = `
local value = ARGV[2]
if ARGV[1] ~= '' then
  local total = redis.call('INCRBY', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  if total <= tonumber(ARGV[5]) then value = ARGV[1]
  else redis.call('DECRBY', KEYS[2], ARGV[4]) end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('SET', KEYS[1], value, 'PX', ARGV[3]) end
return 1`;

const FORGIVE = `
local count = redis.call('HINCRBY', KEYS[1], 'count', -1)
if count <= 0 then redis.call('DEL', KEYS[1]) end
return count`;

/** The keys and the arguments of one call of a script. */
export interface ScriptCall {
  keys: string[];
  arguments: string[];
}

/**
 * One of aim's scripts as the client is given it: its Lua text and SHA-1, how a call becomes a
 * command, and its reply (what the Lua code returns, checked by the caller).
 */
export interface AimScript {
  SCRIPT: string;
  SHA1: string;
  parseCommand(parser: CommandParser, call: ScriptCall): void;
  transformReply: (reply: unknown) => unknown;
}

/** The name the client is given each script under (`client.createSession(…)`). */
export type ScriptName =
  | "createSession"
  | "updateSession"
  | "loadSession"
  | "acquireLease"
  | "renewLease"
  | "releaseLease"
  | "failAttempt"
  | "claimAttempts"
  | "claimKey"
  | "settleKey"
  | "forgiveAttempt";

/** A script called with its keys and its arguments, answering what the Lua code returns. */
function script(text: string): AimScript {
  return defineScript({
    SCRIPT: text,
    parseCommand(parser: CommandParser, call: ScriptCall) {
      parser.pushKeysLength(call.keys);
      parser.push(...call.arguments);
    },
    transformReply: (reply: unknown): unknown => reply,
  });
}

/**
 * Every script, by the name the client is given it under (`createClient({ scripts })`), so that
 * `client.createSession({ keys, arguments })` runs CREATE. The client sends a call in the
 * caller's turn, with nothing awaited first: the commands of one instance reach Redis in the order
 * it made them, so a write made before an answer is read by the next request, on any instance.
 */
export const SCRIPTS: Readonly<Record<ScriptName, AimScript>> = {
  createSession: script(CREATE),
  updateSession: script(UPDATE),
  loadSession: script(LOAD),
  acquireLease: script(ACQUIRE),
  renewLease: script(RENEW),
  releaseLease: script(RELEASE),
  failAttempt: script(FAIL),
  claimAttempts: script(CLAIM_ATTEMPTS),
  claimKey: script(CLAIM),
  settleKey: script(SETTLE),
  forgiveAttempt: script(FORGIVE),
};
