export const GENERATE_HINT: string;
export const PRODUCTION_SECRETS: readonly string[];
export function secretProblem(name: string, value: string | undefined): string | undefined;
export const SERVICE_URLS: readonly string[];
export function urlPasswordProblem(name: string, value: string | undefined): string | undefined;
export function productionSecretProblems(vars: Record<string, string | undefined>): string[];
export function checkpointKeyFile(vars: Record<string, string | undefined>): string;
export function fileSecret(file: string): string;
