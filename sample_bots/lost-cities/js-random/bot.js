// Lost Cities sample bot "js-random": uniform over the legal actions, written in plain
// JavaScript to show that any language can play through the arena.v1 protocol.
//
// It loads proto/arena/v1/bot.proto at run time (@grpc/proto-loader, no code generation),
// connects to the gRPC target in $ARENA_SOCKET, calls arena.v1.BotService/Play, sends Hello,
// answers every DecisionRequest with one legal action text and exits after MatchEnd.
// Randomness is seeded from the match id and the seat, so a match is reproducible.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const BOT_NAME = "js-random";
const BOT_VERSION = "1";
const PROTOCOL_VERSION = 1;
const PROTO_ROOT = path.join(__dirname, "proto");
const MAX_RECEIVE_BYTES = 16 * 1024 * 1024;

function fail(message) {
  console.error(`${BOT_NAME}: ${message}`);
  process.exit(1);
}

function loadService() {
  const file = path.join(PROTO_ROOT, "arena", "v1", "bot.proto");
  if (!fs.existsSync(file)) {
    fail(`${file} is missing: run \`npm run sync-proto\` (or \`npm ci\`) in ${__dirname}`);
  }
  const definition = protoLoader.loadSync("arena/v1/bot.proto", {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names as in the .proto (decision_id, legal_actions, ...)
    enums: String,
    longs: Number,
    defaults: true,
    oneofs: true, // message.kind names the oneof field that is set
  });
  return grpc.loadPackageDefinition(definition).arena.v1.BotService;
}

// 32-bit FNV-1a of a string: the seed of the match's random stream.
function hashSeed(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

// mulberry32: a small seeded PRNG returning floats in [0, 1).
function makeRng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The policy: a uniformly random element of the legal actions (canonical texts).
function choose(request, rng) {
  const legal = request.legal_actions;
  if (legal.length === 0) {
    fail(`decision ${request.decision_id} has no legal actions`);
  }
  return legal[Math.floor(rng() * legal.length)];
}

function main() {
  const target = process.env.ARENA_SOCKET;
  if (!target) {
    fail("ARENA_SOCKET is not set: run this bot through the arena (`arena match ...`)");
  }
  const BotService = loadService();
  const client = new BotService(target, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": MAX_RECEIVE_BYTES,
  });
  const call = client.Play();
  let rng = null;
  let finished = false;

  call.write({
    hello: { bot_name: BOT_NAME, bot_version: BOT_VERSION, protocol_version: PROTOCOL_VERSION },
  });

  call.on("data", (message) => {
    switch (message.kind) {
      case "match_start": {
        const start = message.match_start;
        rng = makeRng(hashSeed(`${start.match_id}:${start.seat}`));
        break;
      }
      case "decision": {
        if (rng === null) {
          fail("decision request before match start");
        }
        const request = message.decision;
        const action = choose(request, rng);
        call.write({ decision: { decision_id: request.decision_id, action_text: action } });
        break;
      }
      case "round_end":
        break;
      case "match_end": {
        const end = message.match_end;
        console.log(`${BOT_NAME}: ${end.result} (${end.termination}), totals ${end.totals}`);
        finished = true;
        call.end();
        client.close();
        break;
      }
      default:
        fail(`unexpected message ${JSON.stringify(message)}`);
    }
  });
  call.on("error", (error) => {
    // The referee may cancel or close the stream once the match is over.
    if (!finished) {
      fail(`stream error: ${error.message}`);
    }
  });
  call.on("end", () => {
    if (!finished) {
      fail("the referee closed the stream before the match ended");
    }
  });
}

main();
