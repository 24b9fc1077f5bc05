export declare const OAUTH2_PROXY_MODULE: string;
export declare const OAUTH2_PROXY_VERSION: string;
export declare function peerCache(): string;
export declare function oauth2ProxyPath(): string;
export declare function requirePeers(): boolean;
export declare function findGo(): string | undefined;
export declare function ensureOauth2Proxy(opts?: { log?: (line: string) => void }): { path: string; built: boolean; seconds: number } | { missing: string };
