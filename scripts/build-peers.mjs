#!/usr/bin/env node
// `node scripts/build-peers.mjs [name...]` builds the named Go test peers (all of them without a name: helm,
// otel-allocator, cloudwatch-target-allocator, oauth2-proxy, kube-apiserver, opentelemetry-operator, cloudwatch-operator)
// one after the other, each once (scripts/peers.mjs, cached),
// and ends each with a JSON line: { peer, path, built, seconds } or { peer, missing }. It exits 0 when one is missing (the
// line says why): the tests that need it say so themselves. `npm test` runs it in the background, one process per peer.
// A file of its own: scripts/peers.mjs is imported by tests, and Playwright's loader fails on a module that uses
// `import.meta` (as a command line needs to).
import { GO_PEERS } from "./peers.mjs";

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in GO_PEERS));
if (unknown.length) {
  console.error(`unknown peer ${unknown.join(", ")}: one of ${Object.keys(GO_PEERS).join(", ")}`);
  process.exit(2);
}
for (const name of names.length ? names : Object.keys(GO_PEERS)) console.log(JSON.stringify({ peer: name, ...GO_PEERS[name]() }));
