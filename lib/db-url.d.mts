export function withDefaultUser(url: string): string;
