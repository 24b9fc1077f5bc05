/** Starts the runtime (configuration, pollers, demo cluster) once when the server starts, before the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Stamp each request with its TCP peer address before Next.js sees it (auth.mode proxy): see server/security/peer.ts.
    (await import("@/server/security/peer")).installPeerStamping();
    const { startServerRuntime } = await import("@/server/boot");
    await startServerRuntime();
  }
}
