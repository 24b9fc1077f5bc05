// Starts a worker thread's TypeScript entry in a source tree (tests, `next dev`): workerData.entry is loaded through tsx,
// which resolves the tsconfig's "@/" paths. The built server starts the bundled worker instead (scripts/build-server.mjs).
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
