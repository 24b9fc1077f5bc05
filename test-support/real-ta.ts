/**
 * The tests held to upstream's real Target Allocator: where its binary is (built by scripts/peers.mjs, which `npm test`
 * runs first), or why it is not. `realTaSuite(name, body)` runs `body` with the binary, or registers one skipped test
 * naming the reason; with ALLOCATION_LENS_REQUIRE_PEERS=1 (CI) a missing binary is one failed test instead.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { REAL_TA_VERSION, realTaPath, requirePeers } from "@allocation-lens/demo-cluster/real-ta-build";

export interface RealTaBinary {
  binary: string;
  version: string;
}

/** The built binary, or undefined when it is not built. */
export function realTaBinary(): RealTaBinary | undefined {
  const binary = realTaPath();
  return fs.existsSync(binary) ? { binary, version: REAL_TA_VERSION } : undefined;
}

export function realTaSuite(name: string, body: (ta: RealTaBinary) => void): void {
  const ta = realTaBinary();
  if (ta) {
    describe(name, () => body(ta));
    return;
  }
  const reason = `upstream's otel-allocator ${REAL_TA_VERSION} is not built (${realTaPath()}): scripts/peers.mjs ensureRealTa() builds it with Go 1.24 or newer, which npm test runs first`;
  if (requirePeers()) it(`${name}: the real Target Allocator is available (ALLOCATION_LENS_REQUIRE_PEERS=1)`, () => expect.fail(reason));
  else it.skip(`${name}: ${reason}`, () => undefined);
}
