// Types of the parts of lib.mjs that TypeScript imports (bench).
export const ROOT: string;
export const DEFAULTS: Record<string, string>;
export function say(line: string): void;
/** Resolves when something at host:port answers like a NATS server (sends INFO). */
export function natsReachable(url: string, timeoutMs?: number): Promise<boolean>;
export function natsServersReachable(urls: string, timeoutMs?: number): Promise<{ url: string; ok: boolean }[]>;
/** process.env with the documented defaults filled in. */
export function withDefaults(env?: NodeJS.ProcessEnv): Record<string, string>;
