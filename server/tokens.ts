/**
 * The bearer token file of `auth.mode: token`: read, parsed (lib/auth/decide.ts parseTokenFile) and its problems named by
 * file and line, never by the token. No "server-only" import: the server entry checks the file before it starts.
 */
import fs from "node:fs";
import { parseTokenFile, type TokenFile } from "@/lib/auth/decide";

export function readTokenFile(file: string): TokenFile {
  return parseTokenFile(fs.readFileSync(file, "utf8"));
}

/** One line per problem of the token file: `allocation-lens: /secrets/tokens line 3: a token must be ...`. */
export function tokenFileProblems(file: string, parsed: TokenFile): string[] {
  const lines = parsed.problems.map((p) => `allocation-lens: ${file} line ${p.line}: ${p.message}`);
  if (!parsed.digests.length && !parsed.problems.length) lines.push(`allocation-lens: the token file ${file} holds no token: every request would be refused`);
  return lines;
}
