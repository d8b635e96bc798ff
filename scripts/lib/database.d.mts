export function databaseName(url: string): string;
export function ensureDatabase(url: string, opts?: { template?: string }): Promise<boolean>;
export function dropDatabase(url: string): Promise<void>;
export function prisma(args: string[], env?: Record<string, string>): string;
export function migrate(url: string): void;
export function freshTestDatabase(baseUrl: string, label: string): Promise<string>;
