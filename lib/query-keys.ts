// React Query key factories, one file (docs/style.md pattern 9).
export const deadLetterKeys = {
  all: ['dead-letters'] as const,
  list: (filters: Record<string, unknown>) => [...deadLetterKeys.all, 'list', filters] as const,
  detail: (id: string) => [...deadLetterKeys.all, 'detail', id] as const,
};

export const clusterKeys = {
  all: ['clusters'] as const,
  list: (filters: Record<string, unknown>) => [...clusterKeys.all, 'list', filters] as const,
  detail: (id: string) => [...clusterKeys.all, 'detail', id] as const,
};

export const redriveKeys = {
  all: ['redrives'] as const,
  detail: (id: string) => [...redriveKeys.all, 'detail', id] as const,
  series: (id: string) => [...redriveKeys.all, 'series', id] as const,
  preview: (selection: unknown) => [...redriveKeys.all, 'preview', selection] as const,
};

export const healthKeys = { all: ['health'] as const };
