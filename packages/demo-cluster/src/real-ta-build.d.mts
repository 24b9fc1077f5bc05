export declare const REAL_TA_MODULE: string;
export declare const REAL_TA_VERSION: string;
export declare function peerCache(): string;
export declare function requirePeers(): boolean;
export declare function findGo(): string | undefined;
export declare function realTaPath(): string;
export declare function ensureRealTa(opts?: { log?: (line: string) => void }): { path: string; built: boolean; seconds: number; version: string } | { missing: string };
