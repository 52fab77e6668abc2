// Copies the arena.v1 .proto files from the repository (../../../proto/arena/v1) into ./proto,
// where bot.js loads them at run time. Run by `npm run sync-proto` and by `npm install`/`npm ci`
// (the "prepare" script). Outside the repository (e.g. a copied bot directory) it keeps an
// existing ./proto and only fails when there is none.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const SOURCE = path.resolve(__dirname, "..", "..", "..", "proto", "arena", "v1");
const TARGET = path.join(__dirname, "proto", "arena", "v1");

function main() {
  if (!fs.existsSync(SOURCE)) {
    if (fs.existsSync(path.join(TARGET, "bot.proto"))) {
      console.log(`sync-proto: ${SOURCE} not found; keeping the existing ${TARGET}`);
      return;
    }
    console.error(`sync-proto: ${SOURCE} not found and no ${TARGET}/bot.proto to fall back on`);
    process.exit(1);
  }
  fs.rmSync(TARGET, { recursive: true, force: true });
  fs.mkdirSync(TARGET, { recursive: true });
  const names = fs.readdirSync(SOURCE).filter((name) => name.endsWith(".proto")).sort();
  for (const name of names) {
    fs.copyFileSync(path.join(SOURCE, name), path.join(TARGET, name));
  }
  console.log(`sync-proto: copied ${names.join(", ")} into ${TARGET}`);
}

main();
