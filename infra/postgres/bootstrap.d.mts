export interface ServiceDatabase {
  schema: string;
  userEnv: string;
  passwordEnv: string;
  defaultUser: string;
}
export declare const SERVICES: ServiceDatabase[];
export declare function adminConfig(
  env?: NodeJS.ProcessEnv,
  database?: string,
): { host: string; port: number; user: string; password: string | undefined; database: string; connectionTimeoutMillis: number };
export declare function bootstrapDatabase(options?: {
  env?: NodeJS.ProcessEnv;
  database?: string;
  log?: (line: string) => void;
}): Promise<string>;
