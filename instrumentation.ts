/** Starts the runtime (configuration, pollers, demo cluster) once when the server starts, before the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startServerRuntime } = await import("@/server/boot");
    await startServerRuntime();
  }
}
