// The statuses of a cluster's ownership, apart from the writes so that filters and pages can name
// them without importing the audit and notification code.
export const OWNERSHIP_STATUSES = ['open', 'investigating', 'waiting_for_fix', 'on_hold', 'resolved'] as const;
export type OwnershipStatus = (typeof OWNERSHIP_STATUSES)[number];
export const STATUS_LABEL: Record<OwnershipStatus, string> = {
  open: 'open',
  investigating: 'investigating',
  waiting_for_fix: 'waiting for fix',
  on_hold: 'on hold',
  resolved: 'resolved',
};
/** The inbox's ownership filters: assigned to me, to nobody, or on hold. */
export const OWNER_FILTERS = ['mine', 'unassigned', 'on_hold'] as const;
